#!/usr/bin/env bash
# How a job ends when a rank fails: the exit code, the message naming the
# rank and the cause, the time it takes (the others are blocked in
# MPI_Recv), and no process or /dev/shm segment left behind (nor what the
# ranks forked: mpiexec is their subreaper and reaps them at the end).
set -uo pipefail
mpiexec=$1 prog=$2
fails=0

check() {   # check NAME NP EXPECTED_CODE PATTERN ARGS...
    local name=$1 np=$2 want=$3 pattern=$4
    shift 4
    local t0 t1 out code
    t0=$(date +%s.%N)
    out=$("$mpiexec" -n "$np" --timeout 30 "$prog" "$@" 2>&1)
    code=$?
    t1=$(date +%s.%N)
    local secs
    secs=$(echo "$t1 - $t0" | bc)
    if [ "$code" != "$want" ]; then
        echo "FAIL $name: exit code $code, expected $want"; echo "$out"; fails=$((fails + 1)); return
    fi
    if ! grep -Eq "$pattern" <<<"$out"; then
        echo "FAIL $name: output lacks /$pattern/:"; echo "$out"; fails=$((fails + 1)); return
    fi
    # The job (with a 100 ms head start for the failing rank) must end within 2 s.
    if [ "$(echo "$secs > 2.5" | bc)" = 1 ]; then
        echo "FAIL $name: took $secs s"; fails=$((fails + 1)); return
    fi
    echo "ok   $name: exit $code in ${secs}s"
}

before=$(ls /dev/shm 2>/dev/null | grep -c '^uzura-' || true)
check fatal-error 4 2 'rank 1.*MPI_Send: invalid count -1.*MPI_ERR_COUNT' fatal-error
check abort 4 7 'rank 1 aborted the job with code 7.*MPI_Abort\(MPI_COMM_WORLD, 7\)' abort 7
check kill 4 137 'rank 1.*(killed by signal 9|signal 9)' kill
check before-init 2 1 'MPI_Comm_rank called before MPI_Init' before-init
check no-finalize 2 1 'without calling MPI_Finalize' no-finalize
check singleton-abort 1 3 'MPI_Abort' abort 3
check orphan 3 0 '' orphan
sleep 0.2
if pgrep -x "$(basename "$prog")" >/dev/null; then
    echo "FAIL: processes left behind:"; pgrep -ax "$(basename "$prog")"; fails=$((fails + 1))
fi
after=$(ls /dev/shm 2>/dev/null | grep -c '^uzura-' || true)
if [ "$after" -gt "$before" ]; then
    echo "FAIL: /dev/shm segments left behind:"; ls /dev/shm | grep '^uzura-'; fails=$((fails + 1))
fi
[ "$fails" = 0 ] && echo "runtime_fatal: passed" || echo "runtime_fatal: $fails failures"
exit $((fails > 0))
