#!/usr/bin/env bash
# compiler_override.sh — which compiler mpicc/mpicxx run: UZURA_CC/UZURA_CXX first,
# then CC/CXX (unless that names an MPI wrapper, as CC=mpicc often does), then gcc/g++.
set -euo pipefail
source "$(dirname "$0")/testlib.sh"
unset CC CXX UZURA_CC UZURA_CXX UZURA_WRAPPER_ACTIVE
bin=$UZ_BUILD_DIR/bin

# first_word WRAPPER [VAR=VALUE...]: the compiler that `WRAPPER -show x.c` runs.
first_word() {
    local w=$1
    shift
    env "$@" "$bin/$w" -show x.c | cut -d' ' -f1
}
expect_eq "mpicc default" "gcc" "$(first_word mpicc)"
expect_eq "mpicc CC" "mycc" "$(first_word mpicc CC=mycc)"
expect_eq "mpicc UZURA_CC beats CC" "uzcc" "$(first_word mpicc CC=mycc UZURA_CC=uzcc)"
expect_eq "mpicc ignores CC=mpicc" "gcc" "$(first_word mpicc CC=mpicc)"
expect_eq "mpicc ignores CC=/path/to/mpicc" "gcc" "$(first_word mpicc CC="$bin/mpicc")"
expect_eq "mpicc CC with words" "ccache gcc -I$UZ_SOURCE_DIR/include" \
    "$(CC='ccache gcc' "$bin/mpicc" -show x.c | cut -d' ' -f1-3)"
expect_eq "mpicxx default" "g++" "$(first_word mpicxx)"
expect_eq "mpicxx CXX" "myc++" "$(first_word mpicxx CXX=myc++ CC=mycc)"
expect_eq "mpicxx UZURA_CXX beats CXX" "uzc++" "$(first_word mpicxx CXX=myc++ UZURA_CXX=uzc++)"
expect_eq "mpicxx ignores UZURA_CC" "g++" "$(first_word mpicxx UZURA_CC=uzcc)"

# The chosen compiler really runs, with the arguments intact.
scratch
cat >"$UZ_SCRATCH/logcc" <<'SH'
#!/usr/bin/env bash
printf '%s\n' "$@" >"$(dirname "$0")/logcc.args"
exec gcc "$@"
SH
chmod +x "$UZ_SCRATCH/logcc"
UZURA_CC=$UZ_SCRATCH/logcc "$bin/mpicc" -o "$UZ_SCRATCH/hello" "$UZ_SOURCE_DIR/examples/hello.c"
expect_eq "UZURA_CC ran, last argument" "-lmpi_abi" \
    "$(grep -v -- -fsanitize "$UZ_SCRATCH/logcc.args" | tail -n1)"
expect_eq "program built through UZURA_CC" "Hello from rank 0 of 1 on $(uname -n)" "$("$UZ_SCRATCH/hello")"

# A compiler that leads back to a wrapper is stopped, not looped.
out=$(UZURA_CC=$bin/mpicc "$bin/mpicc" -o "$UZ_SCRATCH/loop" "$UZ_SOURCE_DIR/examples/hello.c" 2>&1) &&
    fail "UZURA_CC=mpicc should fail"
case $out in
    *"leads back to an MPI wrapper"*) echo "ok: UZURA_CC=mpicc stops with: $out" ;;
    *) fail "UZURA_CC=mpicc printed: $out" ;;
esac
