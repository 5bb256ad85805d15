#!/usr/bin/env bash
# mpich_built_on_uzura.sh — a program compiled by MPICH's mpicc_abi (linked to
# MPICH's libmpi_abi.so.1) runs on Uzura's library, unchanged:
#   runpath   mpicc_abi records a RUNPATH, so LD_LIBRARY_PATH=<Uzura>/lib picks Uzura
#   rpath     a binary with an old-style RPATH ignores LD_LIBRARY_PATH for it;
#             LD_PRELOAD=<Uzura>/lib/libmpi_abi.so.1 takes the soname's place
#   mpiexec   both under Uzura's mpiexec: the runpath binary at -n 2 and 4, the
#             rpath one with LD_PRELOAD given to the ranks only, as docs/install.md
#             shows ($UZ_TEST_LAUNCHER overrides build/bin/mpiexec, e.g. with
#             MPICH's Hydra; skipped while build/bin/mpiexec is not built)
# "on Uzura" in the output comes from MPI_Get_library_version, so it proves
# which library ran.  Skipped when the MPICH peer is not installed.
set -euo pipefail
source "$(dirname "$0")/../wrappers/testlib.sh"
unset LD_LIBRARY_PATH LD_PRELOAD MPICH_CC
mode=${1:?usage: mpich_built_on_uzura.sh runpath|rpath|mpiexec}
require_mpich
uzlib=$UZ_BUILD_DIR/lib
launcher=${UZ_TEST_LAUNCHER:-$UZ_BUILD_DIR/bin/mpiexec}
[ "$mode" != mpiexec ] || [ -x "$launcher" ] || skip "$launcher is not built yet"
# A sanitized Uzura needs its runtime loaded first in a program built without it.
san=$(sanitizer_preload)

scratch
src=$(dirname "$0")/abi_hello.c
exe=$UZ_SCRATCH/hello_mpich
"$MPICH/bin/mpicc_abi" -o "$exe" "$src"
expect_eq "mpicc_abi links" "libmpi_abi.so.1" \
    "$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(libmpi_abi[^]]*\)\]/\1/p')"

# Link as an older toolchain would: DT_RPATH instead of DT_RUNPATH.
link_with_rpath() {
    "$MPICH/bin/mpicc_abi" -c -o "$1.o" "$src"
    cc -o "$1" "$1.o" -L"$MPICH/lib" -Wl,-rpath,"$MPICH/lib" -Wl,--disable-new-dtags -lmpi_abi
}

case $mode in
runpath)
    expect_eq "mpicc_abi's RUNPATH" "$MPICH/lib" "$(dyn_path RUNPATH "$exe")"
    expect_eq "mpicc_abi's RPATH (none)" "" "$(dyn_path RPATH "$exe")"
    expect_eq "as built, it runs on MPICH" "rank 0 of 1 on MPICH" "$("$exe")"
    expect_eq "LD_LIBRARY_PATH: the loader picks" "$uzlib/libmpi_abi.so.1" \
        "$(LD_LIBRARY_PATH=$uzlib resolved_lib libmpi_abi.so.1 "$exe")"
    expect_eq "LD_LIBRARY_PATH: it runs on Uzura" "rank 0 of 1 on Uzura" \
        "$(env LD_LIBRARY_PATH="$uzlib" ${san:+LD_PRELOAD=$san} "$exe")"
    ;;
rpath)
    link_with_rpath "$exe"
    expect_eq "RPATH" "$MPICH/lib" "$(dyn_path RPATH "$exe")"
    expect_eq "LD_LIBRARY_PATH cannot override an RPATH" "rank 0 of 1 on MPICH" \
        "$(LD_LIBRARY_PATH=$uzlib "$exe")"
    expect_eq "LD_PRELOAD: it runs on Uzura" "rank 0 of 1 on Uzura" \
        "$(LD_PRELOAD="${san:+$san }$uzlib/libmpi_abi.so.1" "$exe")"
    expect_eq "LD_PRELOAD: MPICH's library is not loaded at all" "" \
        "$(LD_PRELOAD="$uzlib/libmpi_abi.so.1" ldd "$exe" | grep -F "$MPICH/lib" || true)"
    ;;
mpiexec)
    echo "launcher: $launcher"
    for n in 2 4; do
        expect_eq "LD_LIBRARY_PATH=... mpiexec -n $n" "$(expected_ranks "$n" " on Uzura")" \
            "$(env LD_LIBRARY_PATH="$uzlib" ${san:+LD_PRELOAD=$san} timeout 60 "$launcher" -n "$n" "$exe" | sort)"
    done
    # The RPATH case as docs/install.md shows it: LD_PRELOAD for the ranks only.
    link_with_rpath "$exe.rpath"
    expect_eq "mpiexec -n 2 env LD_PRELOAD=..." "$(expected_ranks 2 " on Uzura")" \
        "$(timeout 60 "$launcher" -n 2 env LD_PRELOAD="${san:+$san }$uzlib/libmpi_abi.so.1" "$exe.rpath" | sort)"
    if "$launcher" --version 2>&1 | grep -q Uzura; then
        expect_eq "mpiexec -n 2 -x LD_PRELOAD=..." "$(expected_ranks 2 " on Uzura")" \
            "$(timeout 60 "$launcher" -n 2 -x LD_PRELOAD="${san:+$san }$uzlib/libmpi_abi.so.1" "$exe.rpath" | sort)"
    fi
    ;;
*) fail "unknown mode $mode" ;;
esac
