#!/usr/bin/env bash
# A full /dev/shm is a clear error, not a SIGBUS: run a job inside a private
# mount namespace whose /dev/shm is a 64 KiB tmpfs (enough to start, not for
# a message ring) and check that it ends with MPI_ERR_NO_SPACE and a message
# saying what could not be reserved.  Needs root (unshare -m, mount).
set -uo pipefail
mpiexec=$1 prog=$2
if ! unshare -m true 2>/dev/null; then
    echo "SKIPPED: cannot create a mount namespace here (needs root and unshare)"; exit 77
fi
out=$(unshare -m sh -c "mount -t tmpfs -o size=64k tmpfs /dev/shm && exec '$mpiexec' -n 2 --timeout 30 '$prog'" 2>&1)
code=$?
echo "$out"
if [ "$code" -ne 41 ]; then      # MPI_ERR_NO_SPACE, the error class, is the exit code
    echo "FAIL: exit code $code, expected 41 (MPI_ERR_NO_SPACE)"; exit 1
fi
if grep -qi "bus error\|SIGBUS\|signal 7" <<<"$out"; then
    echo "FAIL: a rank died of SIGBUS"; exit 1
fi
grep -q "cannot reserve .* shared memory .*No space left on device" <<<"$out" ||
    { echo "FAIL: no clear message"; exit 1; }
echo "shm_full: passed"
