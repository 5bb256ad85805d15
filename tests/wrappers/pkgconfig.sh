#!/usr/bin/env bash
# pkgconfig.sh — build/lib/pkgconfig/mpi.pc gives the flags that build and run a program.
set -euo pipefail
source "$(dirname "$0")/testlib.sh"
unset LD_LIBRARY_PATH
command -v pkg-config >/dev/null || skip "pkg-config is not installed"
export PKG_CONFIG_PATH=$UZ_BUILD_DIR/lib/pkgconfig
pc() { pkg-config "$@" | sed 's/[[:space:]]*$//'; }   # pkgconf ends lines with a space

lib=$UZ_BUILD_DIR/lib
expect_eq "pkg-config --modversion mpi" "$UZ_VERSION" "$(pc --modversion mpi)"
expect_eq "pkg-config --cflags mpi" "-I$UZ_SOURCE_DIR/include -I$UZ_SOURCE_DIR/src/binding/gen" \
    "$(pc --cflags mpi)"
expect_eq "pkg-config --libs mpi" \
    "-L$lib -Wl,-rpath,$lib -Wl,--enable-new-dtags${UZ_SANITIZE:+ -fsanitize=$UZ_SANITIZE} -lmpi_abi" \
    "$(pc --libs mpi)"

scratch
# shellcheck disable=SC2046  # the flags are meant to split
gcc -o "$UZ_SCRATCH/hello" "$UZ_SOURCE_DIR/examples/hello.c" $(pkg-config --cflags --libs mpi)
expect_eq "program built with pkg-config's flags" "Hello from rank 0 of 1 on $(uname -n)" "$("$UZ_SCRATCH/hello")"
