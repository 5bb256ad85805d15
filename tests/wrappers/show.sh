#!/usr/bin/env bash
# show.sh — the build tree's mpicc/mpicxx print exactly the commands they would run,
# keep arguments with spaces intact, and add no link flags when only compiling.
set -euo pipefail
source "$(dirname "$0")/testlib.sh"
unset CC CXX UZURA_CC UZURA_CXX UZURA_WRAPPER_ACTIVE

bin=$UZ_BUILD_DIR/bin
inc="-I$UZ_SOURCE_DIR/include -I$UZ_SOURCE_DIR/src/binding/gen"
lib=$UZ_BUILD_DIR/lib
link="-L$lib -Wl,-rpath,$lib -Wl,--enable-new-dtags${UZ_SANITIZE:+ -fsanitize=$UZ_SANITIZE} -lmpi_abi"

expect_eq "mpicc -show" "gcc $inc -o hello hello.c $link" "$("$bin/mpicc" -show -o hello hello.c)"
expect_eq "mpicc -showme" "gcc $inc -o hello hello.c $link" "$("$bin/mpicc" -o hello -showme hello.c)"
expect_eq "mpicc -show without arguments" "gcc $inc $link" "$("$bin/mpicc" -show)"
expect_eq "mpicc --showme:link" "$link" "$("$bin/mpicc" --showme:link)"
expect_eq "mpicxx -show" "g++ $inc -o hello hello.cc $link" "$("$bin/mpicxx" -show -o hello hello.cc)"
expect_eq "mpicc -c adds no link flags" "gcc $inc -c hello.c" "$("$bin/mpicc" -show -c hello.c)"
expect_eq "mpicc -E adds no link flags" "gcc $inc -E hello.c" "$("$bin/mpicc" -show -E hello.c)"

for opt in -compile_info -compile-info -showme:compile; do
    expect_eq "mpicc $opt" "$inc" "$("$bin/mpicc" $opt)"
done
for opt in -link_info -link-info -showme:link; do
    expect_eq "mpicc $opt" "$link" "$("$bin/mpicc" $opt)"
done
expect_eq "mpicc -showme:incdirs" "$UZ_SOURCE_DIR/include $UZ_SOURCE_DIR/src/binding/gen" \
    "$("$bin/mpicc" -showme:incdirs)"
expect_eq "mpicc -showme:libdirs" "$lib" "$("$bin/mpicc" -showme:libdirs)"
expect_eq "mpicc -showme:libs" "mpi_abi" "$("$bin/mpicc" -showme:libs)"
expect_eq "mpicc -showme:version" "mpicc: Uzura $UZ_VERSION" "$("$bin/mpicc" -showme:version)"

# Arguments with spaces come out quoted, ready to paste into a shell.
expect_eq "mpicc -show quotes spaces" "gcc $inc -c 'my file.c' '-DGREETING=\"hi there\"' -o 'it'\\''s.o'" \
    "$("$bin/mpicc" -show -c 'my file.c' '-DGREETING="hi there"' -o "it's.o")"

# ... and reach the compiler intact.
scratch
mkdir "$UZ_SCRATCH/dir with space"
src="$UZ_SCRATCH/dir with space/hello world.c"
cat >"$src" <<'C'
#include <stdio.h>
#include <mpi.h>
int main(void) { printf("%s, MPI %d.%d\n", GREETING, MPI_VERSION, MPI_SUBVERSION); return 0; }
C
"$bin/mpicc" -DGREETING='"hi there"' -o "$UZ_SCRATCH/dir with space/hello world" "$src"
expect_eq "program built from a path with spaces" "hi there, MPI 5.0" "$("$UZ_SCRATCH/dir with space/hello world")"

# -v alone reports versions and links nothing; no arguments is an error.
out=$("$bin/mpicc" -v 2>&1) || fail "mpicc -v failed: $out"
case $out in "mpicc: Uzura $UZ_VERSION"*"gcc version"*) echo "ok: mpicc -v" ;; *) fail "mpicc -v printed: $out" ;; esac
expect_status "mpicc without arguments fails" 1 "$bin/mpicc"
expect_status "mpicc -help" 0 "$bin/mpicc" -help
