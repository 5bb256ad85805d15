#!/usr/bin/env bash
# hello.sh — examples/hello.c built by the build tree's mpicc runs without
# LD_LIBRARY_PATH, alone (`hello.sh singleton`) or under build/bin/mpiexec
# (`hello.sh mpiexec`, skipped until the launcher is built).
set -euo pipefail
source "$(dirname "$0")/testlib.sh"
unset CC UZURA_CC UZURA_WRAPPER_ACTIVE LD_LIBRARY_PATH
mode=${1:?usage: hello.sh singleton|mpiexec}
mpiexec=$UZ_BUILD_DIR/bin/mpiexec
[ "$mode" = singleton ] || [ -x "$mpiexec" ] || skip "$mpiexec is not built yet"

scratch
exe=$UZ_SCRATCH/hello
"$UZ_BUILD_DIR/bin/mpicc" -o "$exe" "$UZ_SOURCE_DIR/examples/hello.c"

lib=$UZ_BUILD_DIR/lib
expect_eq "RUNPATH" "$lib" "$(dyn_path RUNPATH "$exe")"
expect_eq "no RPATH" "" "$(dyn_path RPATH "$exe")"
expect_eq "libmpi_abi.so.1 resolves to" "$lib/libmpi_abi.so.1" "$(resolved_lib libmpi_abi.so.1 "$exe")"

host=$(uname -n)
if [ "$mode" = singleton ]; then
    expect_eq "singleton run" "Hello from rank 0 of 1 on $host" "$("$exe")"
else
    for n in 1 2 4; do
        want=$(for ((r = 0; r < n; r++)); do echo "Hello from rank $r of $n on $host"; done)
        expect_eq "mpiexec -n $n" "$want" "$(timeout 60 "$mpiexec" -n "$n" "$exe" | sort)"
    done
fi
