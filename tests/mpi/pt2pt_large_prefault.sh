#!/usr/bin/env bash
# Runs pt2pt_large's prefault case (each of two ranks receives one large
# message into fresh memory, then one into the same memory again) with the
# receiver copying alone, and checks from the shm transport's counter
# (UZURA_VERBOSE=2) that each rank made exactly the fresh buffer present
# before copying into it, and nothing for the used one.
set -euo pipefail
mpiexec=$1 prog=$2
expect=$((24 << 20))        # pt2pt_large's message size with two ranks
out=$(UZURA_VERBOSE=2 UZURA_SHM_BULK_HELP=0 "$mpiexec" -n 2 "$prog" prefault 2>&1)
echo "$out"
grep -q "pt2pt_large prefault: passed" <<<"$out"
# MADV_POPULATE_WRITE came with Linux 5.14; before it nothing is prefaulted.
IFS=. read -r major minor _ <<<"$(uname -r)"
if [ "$major" -lt 5 ] || { [ "$major" -eq 5 ] && [ "${minor%%[!0-9]*}" -lt 14 ]; }; then
    echo "kernel $(uname -r) has no MADV_POPULATE_WRITE: skipped"
    exit 77
fi
for r in 0 1; do
    n=$(sed -n "s/^Uzura rank $r: shm: receive memory prefaulted \([0-9]*\) bytes.*/\1/p" <<<"$out")
    echo "rank $r prefaulted ${n:-no} bytes, expected $expect"
    [ "${n:-0}" -eq "$expect" ] || { echo "FAIL: rank $r prefaulted ${n:-no} bytes, expected $expect"; exit 1; }
done
