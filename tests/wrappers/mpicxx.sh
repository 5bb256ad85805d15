#!/usr/bin/env bash
# mpicxx.sh — a C++ program built by the build tree's mpicxx compiles cleanly
# (-Wall -Wextra -Werror) against mpi.h and runs.
set -euo pipefail
source "$(dirname "$0")/testlib.sh"
unset CXX UZURA_CXX UZURA_WRAPPER_ACTIVE LD_LIBRARY_PATH
command -v g++ >/dev/null || skip "g++ is not installed"

scratch
"$UZ_BUILD_DIR/bin/mpicxx" -std=c++11 -Wall -Wextra -Werror -o "$UZ_SCRATCH/hello_cxx" \
    "$(dirname "$0")/hello.cc"
expect_eq "C++ program" "C++ rank 0 of 1 on Uzura" "$("$UZ_SCRATCH/hello_cxx")"
