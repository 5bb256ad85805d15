#!/usr/bin/env bash
# find_package.sh — a CMake project with find_package(MPI) + MPI::MPI_C finds
# an installed Uzura, given -DMPI_C_COMPILER=PREFIX/bin/mpicc or just
# PREFIX/bin first in PATH, and the program it builds runs on PREFIX/lib.
set -euo pipefail
source "$(dirname "$0")/testlib.sh"
unset CC UZURA_CC UZURA_WRAPPER_ACTIVE LD_LIBRARY_PATH MPI_HOME I_MPI_ROOT

scratch
prefix=$UZ_SCRATCH/prefix
cmake --install "$UZ_BUILD_DIR" --prefix "$prefix" >"$UZ_SCRATCH/install.log" ||
    { cat "$UZ_SCRATCH/install.log"; fail "cmake --install failed"; }
project=$(dirname "$0")/find_package
preload=$(sanitizer_preload)    # FindMPI links without -fsanitize

# check HOW CMAKE-ARGS...: configure, build and run the project.
check() {
    local how=$1 build=$UZ_SCRATCH/build-$1
    shift
    "$@" -S "$project" -B "$build" >"$build.log" 2>&1 || { cat "$build.log"; fail "$how: configure failed"; }
    found() { sed -n "s/^-- found: $1=//p" "$build.log"; }
    expect_eq "$how: MPI_C_COMPILER" "$prefix/bin/mpicc" "$(found MPI_C_COMPILER)"
    expect_eq "$how: MPI_C_VERSION" "5.0" "$(found MPI_C_VERSION)"
    expect_eq "$how: MPI_C_INCLUDE_DIRS" "$prefix/include" "$(found MPI_C_INCLUDE_DIRS)"
    expect_eq "$how: MPI_C_LIBRARIES" "$prefix/lib/libmpi_abi.so" "$(found MPI_C_LIBRARIES)"
    cmake --build "$build" >>"$build.log" 2>&1 || { cat "$build.log"; fail "$how: build failed"; }
    expect_eq "$how: libmpi_abi.so.1 resolves to" "$prefix/lib/libmpi_abi.so.1" \
        "$(resolved_lib libmpi_abi.so.1 "$build/x")"
    expect_eq "$how: program runs" "rank 0 of 1 on Uzura" "$(env ${preload:+LD_PRELOAD=$preload} "$build/x")"
}
check compiler cmake -DMPI_C_COMPILER="$prefix/bin/mpicc"
check path env PATH="$prefix/bin:$PATH" cmake
