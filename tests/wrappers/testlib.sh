# testlib.sh — helpers for the shell tests in tests/wrappers and tests/abi (sourced).
#
# Every test gets its paths from the environment that CMake sets (so a test
# can also be run by hand):
#   UZ_SOURCE_DIR  the source tree      UZ_BUILD_DIR  the build tree
#   UZ_VERSION     Uzura's version      UZ_SANITIZE   -DUZURA_SANITIZE value (may be empty)
# Exit codes follow ctest's convention here: 0 pass, 1 fail, 77 skipped.

: "${UZ_SOURCE_DIR:?set UZ_SOURCE_DIR to the source tree}"
: "${UZ_BUILD_DIR:?set UZ_BUILD_DIR to the build tree}"
case ${UZ_SANITIZE:-} in OFF | NO | FALSE | 0) UZ_SANITIZE= ;; esac

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIPPED: $*"; exit 77; }

# expect_eq WHAT EXPECTED ACTUAL
expect_eq() {
    if [ "$2" != "$3" ]; then
        printf 'FAIL: %s\n  expected: %s\n  actual:   %s\n' "$1" "$2" "$3" >&2
        exit 1
    fi
    echo "ok: $1"
}

# expect_status WHAT EXPECTED-CODE COMMAND...  (runs the command, checks its exit code)
expect_status() {
    local what=$1 want=$2 got=0
    shift 2
    "$@" >/dev/null || got=$?
    [ "$got" = "$want" ] || fail "$what: exit code $got, expected $want (command: $*)"
    echo "ok: $what"
}

# A scratch directory, removed when the test ends.
scratch() {
    UZ_SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/uzura-test.XXXXXX")
    trap 'rm -rf "$UZ_SCRATCH"' EXIT
    echo "scratch: $UZ_SCRATCH"
}

peers_dir() { echo "${UZURA_PEERS_DIR:-$HOME/.cache/uzura/peers}"; }

# The MPICH peer's prefix, or skip the test when it is not installed.
require_mpich() {
    MPICH=$(peers_dir)/mpich
    if [ ! -x "$MPICH/bin/mpicc_abi" ] || [ ! -x "$MPICH/bin/mpiexec" ]; then
        skip "MPICH peer not installed in $MPICH (tools/peers/install.sh mpich)"
    fi
}

# A sanitized Uzura needs its sanitizer's runtime first in any program that
# was not linked with -fsanitize (one built by another MPI, or by FindMPI's
# flags).  Prints the LD_PRELOAD value for that, empty when none is needed.
sanitizer_preload() {
    local rt=
    case ${UZ_SANITIZE:-} in
        *address*) rt=libasan.so ;;
        *thread*) rt=libtsan.so ;;
        *) return 0 ;;
    esac
    "${CC:-cc}" -print-file-name="$rt"
}

# The `rank R of N` lines a correct run of N ranks prints, in order.
expected_ranks() {
    local n=$1 suffix=$2 r
    for ((r = 0; r < n; r++)); do echo "rank $r of $n$suffix"; done
}

# The dynamic-section line for RUNPATH / RPATH of a binary ("" when absent).
dyn_path() { readelf -d "$2" | sed -n "s/.*($1) *Library [a-z]*: \[\(.*\)\]/\1/p"; }

# Where the dynamic loader finds a library for a binary, as ldd reports it.
resolved_lib() { ldd "$2" | awk -v lib="$1" '$1 == lib { print $3 }'; }
