#!/usr/bin/env bash
# Runs pt2pt_copy_reduction with a small ring and checks, from the
# request layer's counters (UZURA_VERBOSE=2), that rank 0 finished
# messages by copy reduction rather than only through the buffer.
set -euo pipefail
mpiexec=$1 prog=$2
out=$(UZURA_SHM_RING_SIZE=4096 UZURA_EAGER_LIMIT=64k UZURA_VERBOSE=2 "$mpiexec" -n 2 "$prog" 2>&1)
echo "$out"
grep -q "pt2pt_copy_reduction: passed" <<<"$out"
n=$(sed -n 's/^Uzura rank 0: .*copy-reduced \([0-9]*\).*/\1/p' <<<"$out")
echo "rank 0 copy-reduced messages: ${n:-none}"
[ "${n:-0}" -gt 0 ] || { echo "FAIL: no message was copy-reduced"; exit 1; }
