#!/usr/bin/env bash
# ofi_killed.sh — a rank killed in the middle of an exchange over ofi
# (ofi_killed.c): a clear error, no hang, no shared-memory segment left.
#
#   ofi_killed.sh PROVIDER MPIEXEC PROGRAM die|survivor HOSTS PPN
#
# "die": mpiexec must end the job promptly (not by its own --timeout),
# naming rank 1.  "survivor": rank 0 must get MPI_ERR_PROC_ABORTED from
# the transport, with a message naming rank 1.  Either way no
# /dev/shm/uzura-<job>-* remains.
set -u
prov=$1 mpiexec=$2 prog=$3 how=$4 hosts=$5 ppn=$6
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
UZ_TEST_TIMEOUT=60 UZURA_OFI_PEER_TIMEOUT=3 "$here/ofi_run.sh" "$prov" netns "$hosts" "$ppn" "$mpiexec" "$prog" "$how" >"$out" 2>&1
rc=$?
cat "$out"
[ $rc -eq 77 ] && exit 77
echo "mpiexec exited $rc"
[ $rc -ne 124 ] || { echo "FAIL: the job hung until mpiexec's timeout"; exit 1; }
grep -q "ofi_killed: FAIL" "$out" && { echo "FAIL: see above"; exit 1; }
if [ "$how" = survivor ]; then
    grep -q "ofi_killed: PASS" "$out" || { echo "FAIL: rank 0 got no MPI_ERR_PROC_ABORTED"; exit 1; }
    grep -q "rank 1" "$out" || { echo "FAIL: the error does not name rank 1"; exit 1; }
else
    [ $rc -ne 0 ] || { echo "FAIL: the job succeeded although rank 1 was killed"; exit 1; }
    grep -Eqi "rank 1 .*(killed|signal|died|9)" "$out" || { echo "FAIL: mpiexec did not name the killed rank"; exit 1; }
fi
job=$(sed -n 's/^job //p' "$out" | head -1)
[ -n "$job" ] && [ "$job" != "?" ] || { echo "FAIL: rank 0 did not print the job id"; exit 1; }
sleep 0.5
if compgen -G "/dev/shm/uzura-$job-*" >/dev/null; then
    echo "FAIL: left behind: $(ls /dev/shm/uzura-"$job"-*)"; exit 1
fi
echo PASS
