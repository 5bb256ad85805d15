#!/usr/bin/env bash
# Tests of mpiexec's hang diagnosis (docs/launch.md, "Hang diagnosis"): MPI
# programs that hang on purpose (hang_mpi.c), and what mpiexec prints about
# them on --timeout and on SIGUSR1.  One case per ctest.
#
#   hang_test.sh CASE    with MPIEXEC and HANG_MPI set
#
#   cycle2         two ranks each in MPI_Recv from the other: the cycle
#   cycle4         four ranks in a ring of receives (more ranks than cores)
#   ssend          three ranks in a ring of synchronous sends
#   coll           a collective three ranks entered and one did not
#   sigusr1        SIGUSR1 on a slow job: the diagnosis, and the job finishes
#   pages_removed  no state page is left behind: after a timeout, an
#                  ordinary end and MPI_Abort
#   netns          a ring of receives across two hosts (network namespaces)
set -u
case_name=$1
: "${MPIEXEC:?}" "${HANG_MPI:?}"
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE MPIEXEC_TIMEOUT

here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

# stderr must hold this line exactly.
expect_line() {
    grep -qxF -- "$1" "$err" || { fail "stderr lacks the line: $1"; show; }
}

job_of_run() {
    sed -n 's/^job //p' "$out" | head -1
}

expect_no_pages() {
    local job
    job=$(job_of_run)
    [ -n "$job" ] && [ "$job" != - ] || { fail "rank 0 did not print the job id"; show; return; }
    if compgen -G "/dev/shm/uzura-$job-*" >/dev/null; then
        fail "left behind: $(ls /dev/shm/uzura-"$job"-*)"
    fi
}

# page_blocked JOB RANK: the rank's state page says it blocks.
page_blocked() {
    grep -aq 'blocked 1$' "/dev/shm/uzura-$1-state-$2" 2>/dev/null
}

recv() {   # recv FROM TAG: how the diagnosis names MPI_Recv on MPI_COMM_WORLD
    echo "MPI_Recv(from $1, tag $2, MPI_COMM_WORLD)"
}

case $case_name in
cycle2)
    run -n 2 --timeout 3 "$HANG_MPI" cycle
    expect_rc 124
    expect_line "mpiexec: hang diagnosis (timeout of 3 s expired): what each rank waits in"
    expect_line "mpiexec:   rank 0 waits in $(recv 1 7)"
    expect_line "mpiexec:   rank 1 waits in $(recv 0 7)"
    expect_line "mpiexec: deadlock: rank 0 waits in $(recv 1 7) ← rank 1 waits in $(recv 0 7)"
    expect_line "mpiexec: job exceeded timeout of 3 s"
    # The diagnosis comes before the job is ended.
    [ "$(tail -1 "$err")" == "mpiexec: job exceeded timeout of 3 s" ] ||
        { fail "the timeout line is not the last"; show; }
    expect_no_pages
    ;;
cycle4)
    run -n 4 --timeout 4 "$HANG_MPI" cycle
    expect_rc 124
    expect_line "mpiexec: deadlock: rank 0 waits in $(recv 1 7) ← rank 1 waits in $(recv 2 7) ← rank 2 waits in $(recv 3 7) ← rank 3 waits in $(recv 0 7)"
    expect_no_pages
    ;;
ssend)
    run -n 3 --timeout 3 "$HANG_MPI" ssend
    expect_rc 124
    ssend() { echo "MPI_Ssend(to $1, tag 5, MPI_COMM_WORLD)"; }
    expect_line "mpiexec:   rank 2 waits in $(ssend 0)"
    expect_line "mpiexec: deadlock: rank 0 waits in $(ssend 1) ← rank 1 waits in $(ssend 2) ← rank 2 waits in $(ssend 0)"
    expect_no_pages
    ;;
coll)
    run -n 4 --timeout 4 "$HANG_MPI" coll
    expect_rc 124
    coll="MPI_Allreduce(MPI_COMM_WORLD, call #3)"
    for r in 0 1 2; do
        expect_line "mpiexec:   rank $r waits in $coll"
    done
    expect_line "mpiexec:   rank 3 waits in $(recv 0 0)"
    expect_line "mpiexec: rank 0,1,2 wait in $coll; rank 3 has not entered it (it waits in $(recv 0 0))"
    expect_line "mpiexec: deadlock: rank 0 waits in $coll ← rank 3 waits in $(recv 0 0)"
    expect_no_pages
    ;;
sigusr1)
    "$MPIEXEC" -n 3 --timeout 40 "$HANG_MPI" slow 8 >"$out" 2>"$err" </dev/null &
    pid=$!
    # Ask once ranks 0 and 2 have said (in their pages) that they block,
    # while rank 1 still sleeps; never signal a pid that may be gone (and
    # reused by someone else's process).
    asked=0
    for _ in $(seq 60); do
        job=$(job_of_run)
        if [ -n "$job" ] && page_blocked "$job" 0 && page_blocked "$job" 2; then
            kill -USR1 "$pid" && asked=1
            break
        fi
        sleep 0.1
    done
    wait "$pid"
    rc=$?
    [ $asked -eq 1 ] || { fail "ranks 0 and 2 did not say that they block within 6 s"; show; }
    expect_rc 0
    grep -qx done "$out" || { fail "the job did not finish after the diagnosis"; show; }
    expect_line "mpiexec: hang diagnosis (asked by SIGUSR1; the job goes on): what each rank waits in"
    expect_line "mpiexec:   rank 0 waits in $(recv 1 3)"
    expect_line "mpiexec:   rank 1 is running, not blocked in MPI"
    expect_line "mpiexec:   rank 2 waits in MPI_Barrier(MPI_COMM_WORLD, call #1)"
    expect_line "mpiexec: rank 2 waits in MPI_Barrier(MPI_COMM_WORLD, call #1); rank 0 has not entered it (it waits in $(recv 1 3)); rank 1 has not entered it (it is running, not blocked in MPI)"
    expect_line "mpiexec: no cycle of waits among the blocked ranks"
    expect_no_pages
    ;;
pages_removed)
    run -n 2 --timeout 2 "$HANG_MPI" cycle
    expect_rc 124
    expect_no_pages
    run -n 2 "$HANG_MPI" slow 0
    expect_rc 0
    expect_no_pages
    run -n 3 "$HANG_MPI" abort
    expect_rc 3
    expect_no_pages
    ;;
netns)
    netns_sh=$here/../net/netns.sh
    message=$(UZURA_NETNS_HOLDER=$$ bash "$netns_sh" up 2 2>&1)
    status=$?
    [ $status -eq 77 ] && { echo "$message"; exit 77; }
    [ $status -eq 0 ] || { echo "netns.sh up failed: $message"; exit 1; }
    cleanup_hooks+=("UZURA_NETNS_HOLDER=$$ bash '$netns_sh' down >/dev/null 2>&1")
    UZURA_NET=tcp run -launcher-exec "ip netns exec" -hosts uzh0,uzh1 -ppn 2 -n 4 --timeout 6 \
        "$HANG_MPI" cycle
    expect_rc 124
    expect_line "mpiexec: deadlock: rank 0 waits in $(recv 1 7) ← rank 1 waits in $(recv 2 7) ← rank 2 waits in $(recv 3 7) ← rank 3 waits in $(recv 0 7)"
    expect_line "mpiexec: job exceeded timeout of 6 s"
    expect_no_pages
    ;;
*)
    echo "unknown case $case_name"
    exit 2
    ;;
esac
[ $failures -eq 0 ]
