#!/usr/bin/env bash
# Tests of multi-host jobs (mpiexec -hosts / -hostfile), one case per ctest.
# Network namespaces are the hosts: tests/net/netns.sh makes uzh0..uzh2
# (10.77.0.1-3), and mpiexec starts its proxies with
# `-launcher-exec 'ip netns exec'`.  Cases that need namespaces exit 77
# (skipped) when they cannot be made; the fork.* and options cases run
# anywhere (-launcher fork starts the proxies on this host).
#
#   hosts_test.sh CASE   with MPIEXEC, LAUNCH_RANK, PMI_KVS_CHECK and, for the
#                        mpi.* cases, MPI_WHERE set
set -u
case_name=$1
: "${MPIEXEC:?}" "${LAUNCH_RANK:?}" "${PMI_KVS_CHECK:?}"
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE MPIEXEC_TIMEOUT

here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
netns_sh=$here/../net/netns.sh
netns=(-launcher-exec "ip netns exec")
H2=uzh0,uzh1
H3=uzh0,uzh1,uzh2

# The namespaces for this case (skipping it when they cannot be made); they
# are released when the case ends and removed when no other case holds them.
hosts_up() {
    local message status
    message=$(UZURA_NETNS_HOLDER=$$ bash "$netns_sh" up 3 2>&1)
    status=$?
    if [ $status -eq 77 ]; then
        echo "$message"
        exit 77
    fi
    [ $status -eq 0 ] || { echo "netns.sh up failed: $message"; exit 1; }
    cleanup_hooks+=("UZURA_NETNS_HOLDER=$$ bash '$netns_sh' down >/dev/null 2>&1")
}

# A script that prints where it runs, one line per rank:
#   "<rank> node=<id> local=<local rank>/<local size> nodes=<n> <address>"
where=$work/where.sh
cat >"$where" <<'EOF'
#!/bin/sh
set -- $(ip -4 -o addr show dev veth0 2>/dev/null) - - - -
echo "$PMI_RANK node=$UZURA_NODE_ID local=$UZURA_LOCAL_RANK/$UZURA_LOCAL_SIZE nodes=$UZURA_NUM_NODES ${4%/24}"
EOF
chmod +x "$where"

# No process of this case may be left in any namespace: ranks are found by
# $work in their command line (every case's programs carry it), proxies by
# the parent pids in PIDFILE (launch_rank hang).
expect_hosts_clean() {  # [PIDFILE]
    [ -n "${1:-}" ] && expect_nothing_left "$1" check-parents
    local n pid
    for n in 0 1 2; do
        for pid in $(ip netns pids "uzh$n" 2>/dev/null); do
            if cmdline_of "$pid" | grep -qF -- "$work"; then
                fail "left in uzh$n: $pid $(cmdline_of "$pid")"
            fi
        done
    done
}

cmdline_of() {  # PID (quietly nothing once it has exited)
    tr '\0' ' ' 2>/dev/null <"/proc/$1/cmdline"
}

# Ranks and proxies of PIDFILE that are still there (zombies are gone).
still_running() {  # PIDFILE
    local pid job parent p
    while read -r pid job parent; do
        for p in $pid $parent; do
            state=$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null)
            [ -n "$state" ] && [ "$state" != Z ] && echo "$p"
        done
    done <"$1"
}

# Start hanging ranks on three hosts, then do SIGNAL to mpiexec.
hang_and_signal() {  # SIGNAL
    pids=$work/pids
    local start
    start=$(date +%s%3N)
    "$MPIEXEC" "${netns[@]}" -hosts $H3 -n 6 "$LAUNCH_RANK" hang "$pids" >"$out" 2>"$err" \
        </dev/null &
    local mpiexec_pid=$!
    wait_for_ranks "$pids" 6
    kill -"$1" "$mpiexec_pid"
    wait "$mpiexec_pid"
    rc=$?
    elapsed_ms=$(($(date +%s%3N) - start))
}

kvs_output() {  # N
    echo "pmi_kvs_check: $1 ranks ok (universe $1, appnum 0, server)"
}

case $case_name in
kvs.[0-9]x[0-9]*)
    # HOSTSxPPN: every rank reads every other rank's keys after a fence.
    hosts_up
    shape=${case_name#kvs.}
    nhosts=${shape%x*} ppn=${shape#*x}
    hosts=$(seq -s, -f 'uzh%g' 0 $((nhosts - 1)))
    np=$((nhosts * ppn))
    run "${netns[@]}" -hosts "$hosts" -ppn "$ppn" "$PMI_KVS_CHECK" --expect-size "$np"
    expect_rc 0
    expect_stdout "$(kvs_output $np)"
    expect_stderr ""
    expect_faster_than 10
    ;;
placement)
    hosts_up
    # No slots: round-robin.
    run "${netns[@]}" -hosts $H3 -n 5 "$where"
    expect_rc 0
    expect_sorted_stdout "0 node=0 local=0/2 nodes=3 10.77.0.1
1 node=1 local=0/2 nodes=3 10.77.0.2
2 node=2 local=0/1 nodes=3 10.77.0.3
3 node=0 local=1/2 nodes=3 10.77.0.1
4 node=1 local=1/2 nodes=3 10.77.0.2"
    # -ppn: fill each host in order.
    run "${netns[@]}" -hosts $H3 -ppn 2 -n 5 "$where"
    expect_sorted_stdout "0 node=0 local=0/2 nodes=3 10.77.0.1
1 node=0 local=1/2 nodes=3 10.77.0.1
2 node=1 local=0/2 nodes=3 10.77.0.2
3 node=1 local=1/2 nodes=3 10.77.0.2
4 node=2 local=0/1 nodes=3 10.77.0.3"
    # More ranks than -ppn x hosts: round again.
    run "${netns[@]}" -hosts $H2 -ppn 2 -n 6 "$where"
    expect_sorted_stdout "0 node=0 local=0/4 nodes=2 10.77.0.1
1 node=0 local=1/4 nodes=2 10.77.0.1
2 node=1 local=0/2 nodes=2 10.77.0.2
3 node=1 local=1/2 nodes=2 10.77.0.2
4 node=0 local=2/4 nodes=2 10.77.0.1
5 node=0 local=3/4 nodes=2 10.77.0.1"
    # Slots, in the order the hosts are given; node ids follow that order.
    run "${netns[@]}" -hosts uzh2:2,uzh0 -n 4 "$where"
    expect_sorted_stdout "0 node=0 local=0/3 nodes=2 10.77.0.3
1 node=0 local=1/3 nodes=2 10.77.0.3
2 node=1 local=0/1 nodes=2 10.77.0.1
3 node=0 local=2/3 nodes=2 10.77.0.3"
    # Fewer ranks than hosts: unused hosts get no proxy.
    run "${netns[@]}" -hosts $H3 -n 2 "$where"
    expect_sorted_stdout "0 node=0 local=0/1 nodes=2 10.77.0.1
1 node=1 local=0/1 nodes=2 10.77.0.2"
    # Without -n: the slots (or -ppn per host).
    run "${netns[@]}" -hosts uzh0:2,uzh1 "$where"
    [ "$(wc -l <"$out")" -eq 3 ] || { fail "-hosts uzh0:2,uzh1 without -n"; show; }
    run "${netns[@]}" -H $H2 -npernode 3 "$where"
    [ "$(wc -l <"$out")" -eq 6 ] || { fail "-H, -npernode 3 without -n"; show; }
    # What MPICH's ranks read about placement.
    run "${netns[@]}" -hosts $H3 -n 5 "$LAUNCH_RANK" get PMI_process_mapping
    expect_stdout "PMI_process_mapping=(vector,(0,3,1))"
    run "${netns[@]}" -hosts $H2 -ppn 2 -n 6 "$LAUNCH_RANK" get PMI_process_mapping
    expect_stdout "PMI_process_mapping=(vector,(0,2,2))"
    run "${netns[@]}" -hosts uzh2:2,uzh0 -n 4 "$LAUNCH_RANK" get PMI_process_mapping
    expect_stdout "PMI_process_mapping=(vector,(0,1,2),(1,1,1))"
    ;;
hostfile)
    hosts_up
    cat >"$work/hosts" <<'EOF'
# two slots here, one more below
uzh1 slots=2   # trailing comment

uzh0:1
	uzh1
EOF
    run "${netns[@]}" -hostfile "$work/hosts" -n 5 "$where"
    expect_rc 0
    expect_sorted_stdout "0 node=0 local=0/4 nodes=2 10.77.0.2
1 node=0 local=1/4 nodes=2 10.77.0.2
2 node=0 local=2/4 nodes=2 10.77.0.2
3 node=1 local=0/1 nodes=2 10.77.0.1
4 node=0 local=3/4 nodes=2 10.77.0.2"
    run "${netns[@]}" -f "$work/hosts" "$where"
    expect_rc 0
    [ "$(wc -l <"$out")" -eq 4 ] || { fail "-f without -n: the slots"; show; }
    run "${netns[@]}" -machinefile "$work/hosts" -ppn 1 "$where"
    [ "$(wc -l <"$out")" -eq 2 ] || { fail "-machinefile with -ppn 1"; show; }
    ;;
hostfile_errors)
    bad() {  # LINE EXPECTED_MESSAGE
        printf '%s\n' "# header" "$1" >"$work/bad"
        run -hostfile "$work/bad" true
        expect_rc 2
        expect_stderr "mpiexec: $work/bad:2: $2"
    }
    bad "node1 slots=x" "'slots=x' is not 'slots=N'"
    bad "node1 slots=0" "'slots=0' is not 'slots=N'"
    bad "node1 cpus=2" "'cpus=2' is not 'slots=N'"
    bad "node1:2 slots=3" "both 'host:N' and 'slots=N'"
    bad "node1 slots=2 extra" "unexpected 'extra'"
    bad "node1:many" "'many' is not a number of slots"
    printf '# nothing\n\n' >"$work/empty"
    run -hostfile "$work/empty" true
    expect_rc 2
    expect_stderr "mpiexec: host file '$work/empty' names no host"
    run -hostfile /nonexistent/hosts true
    expect_rc 2
    expect_stderr "mpiexec: cannot read host file '/nonexistent/hosts': No such file or directory"
    ;;
options)
    run -hosts ,, true
    expect_rc 2
    expect_stderr "mpiexec: -hosts: ',,' names no host"
    run -hosts a:0 true
    expect_rc 2
    expect_stderr "mpiexec: -hosts: '0' is not a number of slots"
    run -hosts "a b" true
    expect_rc 2
    expect_stderr "mpiexec: -hosts: 'a b' is not a host name"
    run -hosts a -ppn 0 true
    expect_rc 2
    expect_stderr "mpiexec: -ppn: '0' is not a number of ranks per host (see mpiexec --help)"
    run -hosts a -launcher telnet true
    expect_rc 2
    expect_stderr "mpiexec: -launcher: 'telnet' is not one of ssh, rsh, fork (see mpiexec --help)"
    run -hosts a -launcher-exec " " true
    expect_rc 2
    expect_stderr "mpiexec: -launcher-exec: empty command (see mpiexec --help)"
    # Launcher options alone change nothing on one host.
    run -launcher ssh -n 2 "$LAUNCH_RANK" env UZURA_NODE_ID
    expect_rc 0
    expect_stdout "UZURA_NODE_ID=0"
    # A launcher that cannot be run.
    run -launcher-exec /nonexistent/launcher -hosts a,b -n 2 true
    expect_rc 127
    expect_stderr "mpiexec: cannot start the proxy on host a: cannot run '/nonexistent/launcher': No such file or directory"
    # The proxy is not for people.
    "$MPIEXEC" --proxy </dev/null >"$out" 2>"$err"
    rc=$?
    expect_rc 1
    ;;
fork)
    # -launcher fork: proxies on this host, no root or namespaces needed.
    run -launcher fork -hosts a,b,c -n 6 "$PMI_KVS_CHECK" --expect-size 6
    expect_rc 0
    expect_stdout "$(kvs_output 6)"
    run -launcher fork -hosts a,b -n 3 -l "$LAUNCH_RANK" env UZURA_NODE_ID UZURA_LOCAL_RANK UZURA_LOCAL_SIZE UZURA_NUM_NODES
    expect_rc 0
    expect_stdout "[0] UZURA_NODE_ID=0
[0] UZURA_LOCAL_RANK=0
[0] UZURA_LOCAL_SIZE=2
[0] UZURA_NUM_NODES=2"
    run -launcher fork -hosts a,b -n 4 "$LAUNCH_RANK" abort 3 9 "$work"
    expect_rc 9
    expect_stderr "mpiexec: rank 3 aborted the job with code 9: launch_rank gives up"
    expect_faster_than 3
    [ -z "$(pgrep -f -- "$work")" ] || fail "processes left: $(pgrep -af -- "$work")"
    ;;
tag_output)
    hosts_up
    run "${netns[@]}" -hosts $H2 -l -n 2 sh -c 'echo hello; echo oops >&2; printf "no newline"'
    expect_rc 0
    expect_sorted_stdout "[0] hello
[0] no newline
[1] hello
[1] no newline"
    [ "$(sort "$err")" == "$(printf '[0] oops\n[1] oops')" ] || { fail "tagged stderr"; show; }
    run "${netns[@]}" -hosts uzh1 --tag-output -n 1 sh -c 'head -c 20000 /dev/zero | tr "\0" x; echo; echo next'
    expect_rc 0
    expect_stdout "[0] $(head -c 20000 /dev/zero | tr '\0' x)
[0] next"
    ;;
output)
    # Without -l, bytes pass as they are, however much a remote rank writes.
    hosts_up
    run "${netns[@]}" -hosts $H2 -n 2 sh -c '[ "$PMI_RANK" = 1 ] && seq 1 200000; seq 1 3 >&2'
    expect_rc 0
    [ "$(cat "$out")" == "$(seq 1 200000)" ] || fail "stdout of rank 1 is not seq 1 200000"
    [ "$(sort "$err")" == "$(printf '1\n1\n2\n2\n3\n3')" ] || { fail "stderr"; cat "$err"; }
    ;;
stdin)
    hosts_up
    start=$(date +%s%3N)
    printf 'line1\nline2\n' | "$MPIEXEC" "${netns[@]}" -hosts uzh1,uzh0 -n 3 "$LAUNCH_RANK" stdin \
        >"$out" 2>"$err"
    rc=$?
    expect_rc 0
    expect_stdout "line1
line2"
    # More than the window of stdin in flight.
    seq 1 300000 | "$MPIEXEC" "${netns[@]}" -hosts uzh1,uzh0 -n 2 "$LAUNCH_RANK" stdin \
        >"$out" 2>"$err"
    rc=$?
    expect_rc 0
    [ "$(cat "$out")" == "$(seq 1 300000)" ] || { fail "rank 0 got other input"; tail -3 "$out"; }
    ;;
exit_code)
    hosts_up
    run "${netns[@]}" -hosts $H3 -n 6 "$LAUNCH_RANK" exit 4 3 "$work"
    expect_rc 3
    expect_stderr_re "mpiexec: rank 4 \(pid [0-9]+ on uzh1\) exited with code 3"
    expect_faster_than 5
    expect_hosts_clean
    ;;
killed_by_signal)
    hosts_up
    run "${netns[@]}" -hosts $H3 -n 6 "$LAUNCH_RANK" kill 5 "$work"
    expect_rc 137
    expect_stderr_re "mpiexec: rank 5 \(pid [0-9]+ on uzh2\) killed by signal 9 \(Killed\)"
    expect_faster_than 5
    expect_hosts_clean
    ;;
ranks_ignoring_sigterm)
    hosts_up
    run "${netns[@]}" -hosts $H3 -n 6 "$LAUNCH_RANK" stubborn 2 4 "$work"
    expect_rc 4
    expect_stderr_re "mpiexec: rank 2 \(pid [0-9]+ on uzh2\) exited with code 4"
    expect_faster_than 5
    expect_hosts_clean
    ;;
abort)
    hosts_up
    run "${netns[@]}" -hosts $H3 -n 6 "$LAUNCH_RANK" abort 5 7 "$work"
    expect_rc 7
    expect_stderr "mpiexec: rank 5 aborted the job with code 7: launch_rank gives up"
    expect_faster_than 3
    expect_hosts_clean
    ;;
no_finalize)
    hosts_up
    run "${netns[@]}" -hosts $H2 -n 4 "$LAUNCH_RANK" nofinalize 3 "$work"
    expect_rc 1
    expect_stderr_re "mpiexec: rank 3 \(pid [0-9]+ on uzh1\) exited without calling MPI_Finalize"
    run "${netns[@]}" -hosts $H2 -n 4 "$LAUNCH_RANK" early-finalize 3 "$work"
    expect_rc 1
    expect_stderr_re "mpiexec: ranks wait in a PMI barrier \(fence\) that rank 3 will never enter: it has (finalized|exited)"
    expect_faster_than 5
    expect_hosts_clean
    ;;
malformed_pmi)
    hosts_up
    run "${netns[@]}" -hosts $H2 -n 4 "$LAUNCH_RANK" garbage 3 "$work"
    expect_rc 1
    expect_stderr "mpiexec: uzh1: rank 3 sent a PMI line that has a field without '=': 'cmd=put key'"
    expect_faster_than 5
    expect_hosts_clean
    ;;
timeout)
    hosts_up
    run "${netns[@]}" -hosts $H3 -n 3 --timeout 1 "$LAUNCH_RANK" hang "$work/pids"
    expect_rc 124
    expect_stderr "mpiexec: job exceeded timeout of 1 s"
    expect_faster_than 4
    expect_hosts_clean "$work/pids"
    ;;
sigint)
    hosts_up
    hang_and_signal INT
    expect_rc 130
    expect_stderr "mpiexec: received signal 2 (Interrupt); ending the job"
    expect_faster_than 5
    expect_hosts_clean "$pids"
    ;;
mpiexec_killed)
    # SIGKILL leaves the front end no chance; the proxies get SIGTERM (their
    # parent-death signal), stop their ranks and remove the job's files.
    hosts_up
    hang_and_signal KILL
    expect_rc 137
    for _ in $(seq 60); do
        [ -z "$(still_running "$pids")" ] && break
        sleep 0.05
    done
    expect_hosts_clean "$pids"
    ;;
shm_cleanup)
    hosts_up
    run "${netns[@]}" -hosts $H3 -n 6 "$LAUNCH_RANK" shm 4 "$work"
    expect_rc 137
    job=$(sed -n 's/^job //p' "$out")
    [ -n "$job" ] || fail "rank 0 did not print the job id"
    if compgen -G "/dev/shm/uzura-$job-*" >/dev/null; then
        fail "left behind: $(ls /dev/shm/uzura-"$job"-*)"
    fi
    ;;
environment)
    # `env -i` makes the proxies start with an empty environment, as a
    # remote login might: the ranks get PATH, LD_LIBRARY_PATH and UZURA_*
    # from the front end, the -genv/-env/-x assignments, and nothing else.
    hosts_up
    clean=(-launcher-exec "env -i ip netns exec")
    export UZ_TEST_EXPORTED=exported UZ_TEST_LOCAL=only-here UZURA_TEST_SETTING=yes
    export LD_LIBRARY_PATH=/uz/test/lib
    names=(A B C UZ_TEST_EXPORTED UZ_TEST_LOCAL UZURA_TEST_SETTING LD_LIBRARY_PATH PMI_SIZE
           UZURA_NODE_ID UZURA_NUM_NODES)
    run "${clean[@]}" -hosts $H2 -n 2 -genv A 1 -x B=2 -x UZ_TEST_EXPORTED -env C "three words" \
        "$LAUNCH_RANK" env "${names[@]}"
    expect_rc 0
    expect_stdout "A=1
B=2
C=three words
UZ_TEST_EXPORTED=exported
UZ_TEST_LOCAL=(unset)
UZURA_TEST_SETTING=yes
LD_LIBRARY_PATH=/uz/test/lib
PMI_SIZE=2
UZURA_NODE_ID=0
UZURA_NUM_NODES=2"
    run "${clean[@]}" -hosts $H2 -n 2 -genvall "$LAUNCH_RANK" env UZ_TEST_LOCAL PATH
    expect_stdout "UZ_TEST_LOCAL=only-here
PATH=$PATH"
    # The program is found on the front end's PATH.
    PATH=$(dirname "$LAUNCH_RANK"):$PATH run "${clean[@]}" -hosts $H2 -n 2 launch_rank env PMI_RANK
    expect_rc 0
    expect_stdout "PMI_RANK=0"
    ;;
wdir)
    hosts_up
    mkdir "$work/sub"
    (cd "$work/sub" && run "${netns[@]}" -hosts $H2 -n 2 "$LAUNCH_RANK" pwd && expect_stdout "$work/sub" && exit $failures)
    failures=$((failures + $?))
    run "${netns[@]}" -hosts $H2 -n 2 -wdir /tmp "$LAUNCH_RANK" pwd
    expect_stdout "/tmp"
    (cd "$work" && run "${netns[@]}" -hosts $H2 -n 2 -wdir sub "$LAUNCH_RANK" pwd && expect_stdout "$work/sub" && exit $failures)
    failures=$((failures + $?))
    run "${netns[@]}" -hosts $H2 -n 2 -wdir /nonexistent-dir "$LAUNCH_RANK" pwd
    expect_rc 2
    expect_stderr_re "mpiexec: uzh[01]: cannot run in directory '/nonexistent-dir': No such file or directory"
    ;;
errors)
    hosts_up
    run "${netns[@]}" -hosts $H2 -n 2 /nonexistent/prog
    expect_rc 127
    expect_stderr_re "mpiexec: uzh[01]: cannot run '/nonexistent/prog': No such file or directory"
    # A host that cannot be reached: the launcher fails.
    run "${netns[@]}" -hosts uzh0,uzh-nowhere -n 2 "$LAUNCH_RANK" ok "$work"
    expect_rc 1
    grep -q "^mpiexec: cannot start the proxy on host uzh-nowhere: the launcher exited with code 255$" "$err" ||
        { fail "unreachable host"; show; }
    expect_faster_than 5
    expect_hosts_clean
    ;;
ssh)
    # The default launcher for real: sshd in uzh1 and uzh2 (on a port of
    # this run's own), mpiexec in uzh0, with a key made for the test.
    command -v ssh >/dev/null && [ -x /usr/sbin/sshd ] ||
        { echo "SKIPPED: needs ssh and /usr/sbin/sshd (apt-get install openssh-server)"; exit 77; }
    hosts_up
    port=$((20000 + $$ % 20000))
    # Not under $work: the sshd processes are not the job's.
    keys=$(mktemp -d /tmp/uzura-launch-ssh.XXXXXX)
    cleanup_hooks+=("rm -rf '$keys'")
    ssh-keygen -q -t ed25519 -N '' -f "$keys/key" && ssh-keygen -q -t ed25519 -N '' -f "$keys/hostkey" ||
        { fail "ssh-keygen"; finish; }
    cp "$keys/key.pub" "$keys/authorized_keys"
    mkdir -p /run/sshd
    for n in 1 2; do
        # -D: our child, so that we reap it (a daemon killed later would
        # stay a zombie where nobody reaps orphans).
        ip netns exec "uzh$n" /usr/sbin/sshd -D -o "HostKey=$keys/hostkey" -o "Port=$port" \
            -o "ListenAddress=10.77.0.$((n + 1))" -o "AuthorizedKeysFile=$keys/authorized_keys" \
            -o PermitRootLogin=prohibit-password -o PasswordAuthentication=no -o StrictModes=no \
            -o UsePAM=no -o UseDNS=no -o PidFile=none &
        cleanup_hooks=("kill $! 2>/dev/null; wait $! 2>/dev/null" "${cleanup_hooks[@]}")
        for _ in $(seq 100); do
            ip netns exec "uzh$n" ss -Hltn "sport = :$port" | grep -q . && break
            sleep 0.02
        done
    done
    ssh=(-launcher-exec "ssh -p $port -i $keys/key -o StrictHostKeyChecking=no
         -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes")
    run_in_uzh0() {
        local start=$(date +%s%3N)
        ip netns exec uzh0 "$MPIEXEC" "$@" >"$out" 2>"$err" </dev/null
        rc=$?
        elapsed_ms=$(($(date +%s%3N) - start))
    }
    run_in_uzh0 "${ssh[@]}" -hosts 10.77.0.2,10.77.0.3 -n 4 "$PMI_KVS_CHECK" --expect-size 4
    expect_rc 0
    expect_stdout "$(kvs_output 4)"
    run_in_uzh0 "${ssh[@]}" -hosts 10.77.0.2,10.77.0.3 -n 4 -l "$where"
    expect_sorted_stdout "[0] 0 node=0 local=0/2 nodes=2 10.77.0.2
[1] 1 node=1 local=0/2 nodes=2 10.77.0.3
[2] 2 node=0 local=1/2 nodes=2 10.77.0.2
[3] 3 node=1 local=1/2 nodes=2 10.77.0.3"
    run_in_uzh0 "${ssh[@]}" -hosts 10.77.0.2,10.77.0.3 -n 4 "$LAUNCH_RANK" abort 3 6 "$work"
    expect_rc 6
    # The remote login shell may say things of its own first (this
    # machine's ~/.bashrc runs pyenv, which once printed "cannot
    # rehash"): those are the user's, not ours.  Every line mpiexec and
    # its proxies write starts with "mpiexec:".
    if grep -v '^mpiexec:' "$err" >"$work/shell_noise"; then
        echo "note ($case_name): ignored what the remote shells wrote:"
        cat "$work/shell_noise"
        grep '^mpiexec:' "$err" >"$work/own" || :
        mv "$work/own" "$err"
    fi
    expect_stderr "mpiexec: rank 3 aborted the job with code 6: launch_rank gives up"
    # mpiexec killed outright: ssh goes with it, the proxies see their
    # stdin close and stop their ranks.
    pids=$work/pids
    ip netns exec uzh0 "$MPIEXEC" "${ssh[@]}" -hosts 10.77.0.2,10.77.0.3 -n 4 "$LAUNCH_RANK" hang \
        "$pids" >"$out" 2>"$err" </dev/null &
    mpiexec_pid=$!
    wait_for_ranks "$pids" 4
    kill -KILL $mpiexec_pid
    wait $mpiexec_pid
    for _ in $(seq 60); do
        [ -z "$(still_running "$pids")" ] && break
        sleep 0.05
    done
    expect_hosts_clean "$pids"
    ;;
mpi.[0-9]x[0-9]*)
    # An MPI program: every rank says where it is, a token goes round the
    # ranks (across hosts), an allreduce adds up the ranks.
    [ -n "${MPI_WHERE:-}" ] || { echo "SKIPPED: the MPI library is not built"; exit 77; }
    hosts_up
    shape=${case_name#mpi.}
    nhosts=${shape%x*} ppn=${shape#*x}
    hosts=$(seq -s, -f 'uzh%g' 0 $((nhosts - 1)))
    np=$((nhosts * ppn))
    run "${netns[@]}" -hosts "$hosts" -ppn "$ppn" --timeout 20 "$MPI_WHERE"
    expect_rc 0
    wanted=$(for ((r = 0; r < np; r++)); do
                 echo "rank $r of $np: node $((r / ppn)), local rank $((r % ppn)) of $ppn"
             done
             echo "ring ok, sum $((np * (np - 1) / 2))")
    expect_sorted_stdout "$(sort <<<"$wanted")"
    ;;
mpi_abort)
    [ -n "${MPI_WHERE:-}" ] || { echo "SKIPPED: the MPI library is not built"; exit 77; }
    hosts_up
    run "${netns[@]}" -hosts $H2 -n 4 --timeout 20 "$MPI_WHERE" abort 3 5 "$work"
    expect_rc 5
    grep -q "^mpiexec: rank 3 aborted the job with code 5" "$err" || { fail "abort message"; show; }
    expect_faster_than 4
    expect_hosts_clean
    ;;
*)
    echo "hosts_test.sh: unknown case '$case_name'"
    exit 2
    ;;
esac
finish
