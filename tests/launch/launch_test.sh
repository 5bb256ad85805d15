#!/usr/bin/env bash
# Tests of mpiexec, one case per ctest: each runs mpiexec on small rank
# programs and checks the exact output, the exit status and, where the job
# must end by itself, how long it took.
#
#   launch_test.sh CASE    with MPIEXEC, LAUNCH_RANK and PMI_KVS_CHECK set
set -u
case_name=$1
: "${MPIEXEC:?}" "${LAUNCH_RANK:?}" "${PMI_KVS_CHECK:?}"
# If these tests themselves run under a process manager, its variables
# must not reach mpiexec's ranks through our assertions.
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE MPIEXEC_TIMEOUT

source "$(dirname "$0")/lib.sh"

# Start a job of hanging ranks, wait until all have started, signal mpiexec.
signal_test() {  # SIGNAL EXPECTED_STATUS EXPECTED_NUMBER NAME
    local pids=$work/pids start end
    start=$(date +%s%3N)
    "$MPIEXEC" -n 3 "$LAUNCH_RANK" hang "$pids" >"$out" 2>"$err" </dev/null &
    local mpiexec_pid=$!
    wait_for_ranks "$pids" 3
    kill -"$1" "$mpiexec_pid"
    wait "$mpiexec_pid"
    rc=$?
    end=$(date +%s%3N)
    elapsed_ms=$((end - start))
    expect_rc "$2"
    expect_stderr "mpiexec: received signal $3 ($4); ending the job"
    expect_faster_than 5
    expect_nothing_left "$pids"
}

case $case_name in
kvs.np*)
    np=${case_name#kvs.np}
    run -n "$np" "$PMI_KVS_CHECK" --expect-size "$np"
    expect_rc 0
    # MPI_UNIVERSE_SIZE: the host's processors, at least the job's size.
    cpus=$(getconf _NPROCESSORS_ONLN)
    expect_stdout "pmi_kvs_check: $np ranks ok (universe $((cpus > np ? cpus : np)), appnum 0, server)"
    expect_stderr ""
    ;;
plain_programs)
    run -n 3 true
    expect_rc 0
    expect_stdout ""
    run -n 2 sh -c 'exit 0'
    expect_rc 0
    run -np 2 false
    expect_rc 1
    expect_stderr_re "mpiexec: rank [01] \(pid [0-9]+\) exited with code 1"
    ;;
exit_code)
    run -n 4 "$LAUNCH_RANK" exit 2 3
    expect_rc 3
    expect_stderr_re "mpiexec: rank 2 \(pid [0-9]+\) exited with code 3"
    expect_faster_than 5
    ;;
killed_by_signal)
    run -n 3 "$LAUNCH_RANK" kill 1
    expect_rc 137
    expect_stderr_re "mpiexec: rank 1 \(pid [0-9]+\) killed by signal 9 \(Killed\)"
    expect_faster_than 5
    ;;
ranks_ignoring_sigterm)
    run -n 3 "$LAUNCH_RANK" stubborn 0 4
    expect_rc 4
    expect_stderr_re "mpiexec: rank 0 \(pid [0-9]+\) exited with code 4"
    expect_faster_than 5
    ;;
abort)
    run -n 4 "$LAUNCH_RANK" abort 3 5
    expect_rc 5
    expect_stderr "mpiexec: rank 3 aborted the job with code 5: launch_rank gives up"
    expect_faster_than 5
    run -n 2 "$LAUNCH_RANK" abort 0 256
    expect_rc 1
    expect_stderr "mpiexec: rank 0 aborted the job with code 256: launch_rank gives up"
    ;;
no_finalize)
    run -n 2 "$LAUNCH_RANK" nofinalize 1
    expect_rc 1
    expect_stderr_re "mpiexec: rank 1 \(pid [0-9]+\) exited without calling MPI_Finalize"
    expect_faster_than 5
    ;;
finalize_while_others_fence)
    run -n 3 "$LAUNCH_RANK" early-finalize 1
    expect_rc 1
    expect_stderr_re "mpiexec: ranks wait in a PMI barrier \(fence\) that rank 1 will never enter: it has (finalized|exited)"
    expect_faster_than 5
    ;;
malformed_pmi)
    run -n 2 "$LAUNCH_RANK" garbage 1
    expect_rc 1
    expect_stderr "mpiexec: rank 1 sent a PMI line that has a field without '=': 'cmd=put key'"
    expect_faster_than 5
    ;;
timeout)
    run -n 2 --timeout 1 "$LAUNCH_RANK" hang "$work/pids"
    expect_rc 124
    expect_stderr "mpiexec: job exceeded timeout of 1 s"
    expect_faster_than 5
    expect_nothing_left "$work/pids"
    rm -f "$work/pids"
    MPIEXEC_TIMEOUT=0.5 run -n 1 "$LAUNCH_RANK" hang "$work/pids"
    expect_rc 124
    expect_stderr "mpiexec: job exceeded timeout of 0.5 s"
    ;;
sigint)
    signal_test INT 130 2 Interrupt
    ;;
sigterm)
    signal_test TERM 143 15 Terminated
    ;;
mpiexec_killed)
    # SIGKILL leaves mpiexec no chance to clean up; the ranks must still die
    # (PR_SET_PDEATHSIG), e.g. when a test harness's timeout kills mpiexec.
    pids=$work/pids
    "$MPIEXEC" -n 3 "$LAUNCH_RANK" hang "$pids" >"$out" 2>"$err" </dev/null &
    mpiexec_pid=$!
    wait_for_ranks "$pids" 3
    kill -KILL "$mpiexec_pid"
    wait "$mpiexec_pid"
    sleep 0.5
    dead_job=
    while read -r pid job _; do
        # A zombie is dead; whether it is reaped is up to whoever adopted it.
        state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)
        [ -z "$state" ] || [ "$state" == Z ] || fail "rank process $pid survived mpiexec (state $state)"
        dead_job=$job
    done <"$pids"
    cleanup_hooks+=("rm -f /dev/shm/uzura-$dead_job-*")
    # What the killed job left (its ranks' files, mpiexec's alive file)
    # is removed by the next mpiexec that starts ranks here, while the
    # files of a job still running stay.  (Under a parallel ctest another
    # test's mpiexec may sweep them first: that is the same guarantee.)
    live_pids=$work/live_pids
    "$MPIEXEC" -n 2 "$LAUNCH_RANK" hang "$live_pids" >"$work/live_out" 2>&1 </dev/null &
    live_mpiexec=$!
    cleanup_hooks+=("kill -TERM $live_mpiexec 2>/dev/null; wait $live_mpiexec 2>/dev/null")
    wait_for_ranks "$live_pids" 2
    live_job=$(awk '{ print $2; exit }' "$live_pids")
    live_files=$(ls /dev/shm/uzura-"$live_job"-* 2>/dev/null | sort)
    run -n 1 true
    expect_rc 0
    if compgen -G "/dev/shm/uzura-$dead_job-*" >/dev/null; then
        fail "the next mpiexec left the killed job's files: $(ls /dev/shm/uzura-"$dead_job"-*)"
    fi
    [ -n "$live_files" ] || fail "the running job has no files in /dev/shm"
    [ "$(ls /dev/shm/uzura-"$live_job"-* 2>/dev/null | sort)" == "$live_files" ] ||
        fail "the sweep touched the running job's files: before '$live_files', after '$(ls /dev/shm/uzura-"$live_job"-* 2>/dev/null)'"
    kill -TERM "$live_mpiexec"
    wait "$live_mpiexec"
    if compgen -G "/dev/shm/uzura-$live_job-*" >/dev/null; then
        fail "the running job, ended by SIGTERM, left: $(ls /dev/shm/uzura-"$live_job"-*)"
    fi
    ;;
shm_cleanup)
    run -n 3 "$LAUNCH_RANK" shm 1
    expect_rc 137
    job=$(sed -n 's/^job //p' "$out")
    [ -n "$job" ] || fail "rank 0 did not print the job id"
    if compgen -G "/dev/shm/uzura-$job-*" >/dev/null; then
        fail "left behind: $(ls /dev/shm/uzura-"$job"-*)"
    fi
    ;;
tag_output)
    run -l -n 2 sh -c 'echo hello; echo oops >&2; printf "no newline"'
    expect_rc 0
    [ "$(grep -c '^\[0\] hello$' "$out")" -eq 1 ] || fail "no '[0] hello' line"
    [ "$(sort "$out")" == "$(printf '[0] hello\n[0] no newline\n[1] hello\n[1] no newline')" ] ||
        { fail "tagged stdout"; show; }
    [ "$(sort "$err")" == "$(printf '[0] oops\n[1] oops')" ] || { fail "tagged stderr"; show; }
    # One line longer than mpiexec's buffer keeps one prefix.
    run --tag-output -n 1 sh -c 'head -c 20000 /dev/zero | tr "\0" x; echo; echo next'
    expect_rc 0
    expect_stdout "[0] $(head -c 20000 /dev/zero | tr '\0' x)
[0] next"
    ;;
output_of_killed_rank)
    run -l -n 1 sh -c 'echo before; printf partial; kill -9 $$'
    expect_rc 137
    expect_stdout "[0] before
[0] partial"
    # Rank 1 dies once rank 0 has written; rank 0 is then killed by mpiexec.
    flag=$work/rank0-wrote
    run -l -n 2 sh -c 'echo before; if [ "$PMI_RANK" = 1 ]; then
                           while [ ! -e "$0" ]; do sleep 0.01; done; kill -9 $$
                       else touch "$0"; sleep 10; fi' "$flag"
    expect_rc 137
    expect_stderr_re "mpiexec: rank 1 \(pid [0-9]+\) killed by signal 9 \(Killed\)"
    [ "$(sort "$out")" == "$(printf '[0] before\n[1] before')" ] || { fail "output lost"; show; }
    expect_faster_than 5
    ;;
environment)
    export UZ_TEST_INHERITED=inherited
    run -n 2 -genv A 1 -x B=2 -x UZ_TEST_INHERITED -env C "three words" -genv PMI_RANK 7 \
        "$LAUNCH_RANK" env A B C UZ_TEST_INHERITED PMI_SIZE PMI_RANK UZURA_LOCAL_SIZE UZURA_NODE_ID
    expect_rc 0
    expect_stdout "A=1
B=2
C=three words
UZ_TEST_INHERITED=inherited
PMI_SIZE=2
PMI_RANK=0
UZURA_LOCAL_SIZE=2
UZURA_NODE_ID=0"
    expect_stderr ""
    run -n 1 "$LAUNCH_RANK" env UZURA_JOB_ID UZURA_JOB_KEY
    grep -Eq '^UZURA_JOB_ID=[0-9a-f]{16}$' "$out" || { fail "UZURA_JOB_ID"; show; }
    grep -Eq '^UZURA_JOB_KEY=[0-9a-f]{32}$' "$out" || { fail "UZURA_JOB_KEY"; show; }
    ;;
wdir)
    run -n 2 -wdir /tmp "$LAUNCH_RANK" pwd
    expect_rc 0
    expect_stdout "/tmp"
    run -n 1 --wdir=/ "$LAUNCH_RANK" pwd
    expect_stdout "/"
    run -n 1 -wdir /nonexistent-dir "$LAUNCH_RANK" pwd
    expect_rc 2
    expect_stderr "mpiexec: cannot run in directory '/nonexistent-dir': No such file or directory"
    ;;
stdin)
    start=$(date +%s%3N)
    printf 'line1\nline2\n' | "$MPIEXEC" -n 3 "$LAUNCH_RANK" stdin >"$out" 2>"$err"
    rc=$?
    expect_rc 0
    expect_stdout "line1
line2"
    ;;
stdin_from_terminal)
    # On a terminal, mpiexec forwards stdin to rank 0 (which is not in the
    # terminal's foreground process group and could not read it itself).
    if ! command -v script >/dev/null; then
        echo "SKIPPED: needs script(1) from util-linux for a pseudo-terminal"
        exit 77
    fi
    (printf 'hello tty\n'; sleep 1; printf '\004') |
        timeout 20 script -qec "'$MPIEXEC' -l -n 2 '$LAUNCH_RANK' stdin" /dev/null >"$out" 2>"$err"
    rc=$?
    expect_rc 0
    grep -q '^\[0\] hello tty' "$out" || { fail "rank 0 did not get the terminal's input"; show; }
    ;;
program_not_found)
    run -n 2 /nonexistent/prog
    expect_rc 127
    expect_stderr "mpiexec: cannot run '/nonexistent/prog': No such file or directory"
    run -n 2 uzura-no-such-program
    expect_rc 127
    expect_stderr "mpiexec: cannot run 'uzura-no-such-program': No such file or directory"
    run -n 1 /etc/passwd
    expect_rc 126
    expect_stderr "mpiexec: cannot run '/etc/passwd': Permission denied"
    ;;
options)
    run --frobnicate -n 1 true
    expect_rc 2
    expect_stderr "mpiexec: unknown option '--frobnicate' (see mpiexec --help)"
    run -ppn 0 true
    expect_rc 2
    expect_stderr "mpiexec: -ppn: '0' is not a number of ranks per host (see mpiexec --help)"
    run -n 0 true
    expect_rc 2
    expect_stderr "mpiexec: -n: '0' is not a number of ranks between 1 and 1000000 (see mpiexec --help)"
    run -n
    expect_rc 2
    expect_stderr "mpiexec: option '-n' needs a value (see mpiexec --help)"
    run -n 2
    expect_rc 2
    expect_stderr "mpiexec: no program to run (see mpiexec --help)"
    run --timeout -3 true
    expect_rc 2
    expect_stderr "mpiexec: --timeout: '-3' is not a positive number of seconds (see mpiexec --help)"
    run --help
    expect_rc 0
    grep -q '^Usage: mpiexec \[options\] program' "$out" || fail "--help"
    run --version
    expect_rc 0
    grep -Eq '^mpiexec \(Uzura\) [0-9]' "$out" || { fail "--version"; show; }
    run --oversubscribe --allow-run-as-root --np=2 -- "$LAUNCH_RANK" ok
    expect_rc 0
    expect_stderr ""
    mpirun=$(dirname "$MPIEXEC")/mpirun
    "$mpirun" -n 2 true || fail "mpirun does not work"
    ;;
idle_cpu)
    # mpiexec must sleep while its ranks do.  The last line of bash's `times`
    # is the CPU time of finished children ("0m0.009s 0m0.001s"): mpiexec
    # and its ranks, which only sleep.
    "$MPIEXEC" -n 8 sleep 1
    times >"$work/times"    # not in a pipe: a subshell has no children
    cpu_ms=$(tail -1 "$work/times" | awk '{ t = 0
        for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] }
        print int(t * 1000) }')
    [ -n "$cpu_ms" ] && [ "$cpu_ms" -lt 200 ] ||
        fail "mpiexec and 8 sleeping ranks used '${cpu_ms}' ms of CPU"
    echo "mpiexec and 8 sleeping ranks used $cpu_ms ms of CPU in 1 s"
    ;;
mpich_program)
    # MPICH's own PMI-1 client under our server: init, process mapping,
    # barrier, finalize.  (Not MPI_Abort: an aborted MPICH job leaves its
    # /dev/shm/mpich_shm_* segments behind, under any launcher.)
    peers=${UZURA_PEERS_DIR:-$HOME/.cache/uzura/peers}
    if [ ! -x "$peers/mpich/bin/mpicc" ]; then
        echo "SKIPPED: MPICH's mpicc not found in $peers/mpich/bin (run tools/peers/install.sh mpich)"
        exit 77
    fi
    program=$work/peer_mpi_program
    "$peers/mpich/bin/mpicc" "$(dirname "$0")/peer_mpi_program.c" -o "$program" ||
        { fail "mpicc failed"; exit 1; }
    for np in 1 2 4; do
        run -n "$np" "$program" hello
        expect_rc 0
        expect_stdout "peer_mpi_program: $np ranks, sum of ranks $((np * (np - 1) / 2))"
    done
    ;;
*)
    echo "launch_test.sh: unknown case '$case_name'"
    exit 2
    ;;
esac
finish
