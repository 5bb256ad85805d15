#!/usr/bin/env bash
# startup_verbose.sh — UZURA_VERBOSE's start-up report: one line per
# decision MPI_Init took (transports, the network endpoint, cross-memory
# attach or the pipelined fallback and why, eager limits, shared-memory
# collectives, waiting, thread level), from world rank 0 at level 1 and
# from every rank at level 2, and nothing without it.  The program
# (startup_verbose.c) moves 1 MiB between pairs of ranks and checks every
# byte, so the path the report names is also the one that works.
#
#   startup_verbose.sh MPIEXEC PROGRAM CMA_DENIED_SO CASE [MEMBARRIER_DENIED_SO]
set -u
mpiexec=$1 prog=$2 denied_so=$3 case_name=$4 membarrier_denied_so=${5:-}
for v in $(compgen -e | grep '^UZURA_' || true); do unset "$v"; done
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE MPIEXEC_TIMEOUT

work=$(mktemp -d /tmp/uzura-startup-verbose.XXXXXX)
trap 'rm -rf "$work"' EXIT
out=$work/out err=$work/err
failures=0
host=$(hostname)
online=$(getconf _NPROCESSORS_ONLN)
usable=$(nproc)

fail() {
    echo "FAIL ($case_name): $*"
    failures=$((failures + 1))
}

show() {
    echo "--- stdout:"; cat "$out"
    echo "--- stderr:"; cat "$err"
}

# job ENV... -- MPIEXEC-ARGS...: run the program, which must pass.
job() {
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$mpiexec" --timeout 60 "$@" >"$out" 2>"$err" </dev/null
    local rc=$?
    [ $rc -eq 0 ] && grep -q '^startup_verbose: passed' "$out" ||
        { fail "job failed (exit $rc): ${envs[*]} $*"; show; }
}

# The report line of RANK about WHAT (the text after "Uzura rank R: WHAT: ").
line() {  # RANK WHAT
    sed -n "s/^Uzura rank $1: $2: //p" "$err"
}

expect_line() {  # RANK WHAT TEXT
    local got
    got=$(line "$1" "$2")
    [ "$got" == "$3" ] || { fail "rank $1's '$2' line"; echo "--- wanted: $3"; echo "--- got:    $got"; show; }
}

# The lines every report has, for NP ranks all on this host (one job).
expect_one_host_report() {  # RANK NP THREAD_TEXT
    local r=$1 np=$2 ranks=ranks
    [ "$np" -eq 1 ] && ranks=rank
    expect_line "$r" job "$np $ranks on 1 host; $np on this host ($host), which has $online processors"
    if [ "$np" -eq 1 ]; then
        expect_line "$r" transports "self only: no other rank"
        expect_line "$r" "send protocol" "to itself always eager"
        expect_line "$r" collectives "message passing only, because no other rank shares memory with this one"
        [ -z "$(line "$r" "large messages on this host")" ] || fail "a large-message line with one rank"
    else
        local others=$((np - 1)) word=ranks
        [ $others -eq 1 ] && word=rank
        expect_line "$r" transports "self, shm to $others $word on this host"
        # 64 KiB with a core per rank; 16 KiB while ranks share cores.
        if [ "$np" -gt "$online" ]; then
            expect_line "$r" "send protocol" "eager up to 16384 bytes through shm (UZURA_EAGER_LIMIT=0, automatic: this host has more ranks than processors), rendezvous above; to itself always eager"
        else
            expect_line "$r" "send protocol" "eager up to 65536 bytes through shm (UZURA_EAGER_LIMIT=0, automatic: every rank has a processor), rendezvous above; to itself always eager"
        fi
        if [ "$np" -gt "$online" ]; then
            expect_line "$r" collectives "a shared-memory area for communicators within this host: barrier, allreduce, allgather, alltoall(v), reduce_scatter at any size, bcast, reduce, gather(v), scatter(v) above 256 bytes (UZURA_COLL_SHM_ROOTED_MIN), gather(v) and scatter(v) blocks beyond 65536 bytes (UZURA_COLL_SHM_MAX) copied once between the root's buffer and each rank's instead, and allgather, alltoall and reduce_scatter blocks from 16384 bytes (UZURA_COLL_PULL_MIN) read once from the others' buffers, because this host has more ranks ($np) than processors ($online)"
        else
            expect_line "$r" collectives "a shared-memory area for communicators within this host: barrier, allreduce, allgather, alltoall up to 65536 bytes (UZURA_COLL_SHM_MAX), reduce_scatter at any size; allgather, alltoall, reduce_scatter, scatter and scatterv blocks and allreduce vectors from 16384 bytes a rank (UZURA_COLL_PULL_MIN) read once by each rank from the others' buffers (the root's for scatter; with two ranks, scatter(v) blocks from 256 KiB by message passing); bcast, reduce, gather(v) and smaller scatter(v) blocks by message passing, because every rank has a processor ($np ranks, $online processors)"
        fi
        # Cross-memory attach works here or it does not; either way the
        # line says which and why.
        local large
        large=$(line "$r" "large messages on this host")
        [[ "$large" == "one copy by cross-memory attach (process_vm_readv works between the $np ranks on this host)" ||
           "$large" == "pipelined copy through the shared-memory rings, because cross-memory attach (process_vm_readv) is not permitted here: "* ]] ||
            { fail "rank $r's large-message line: '$large'"; show; }
    fi
    # How senders make sure a sleeper is woken: one-sided by membarrier(2)
    # where every rank could register for it, else a fence per record.
    local then="then sleep on a futex in shared memory until a peer rings it (wake-ups: $(fence_text "$r"))"
    [ "$np" -eq 1 ] && then="then keep yielding (no other rank to be woken by)"
    [ "$3" = multiple ] && then="then short sleeps (MPI_THREAD_MULTIPLE: another thread may complete the request without waking this one)"
    if [ "$np" -gt "$usable" ]; then
        expect_line "$r" waiting "poll 0 us, then yield the processor for 200 us, $then; no polling, because this host has more ranks than processors they may use (polling would take a peer's time slice)"
    else
        expect_line "$r" waiting "poll 50 us, then yield the processor for 2000 us, $then; polling first, because every rank on this host has a processor of its own"
    fi
    if [ "$3" = multiple ]; then
        expect_line "$r" "thread level" "MPI_THREAD_MULTIPLE (calls into the request layer take one lock)"
    else
        expect_line "$r" "thread level" "MPI_THREAD_SINGLE (no lock on the request layer)"
    fi
}

# The wake-up clause of rank $1's waiting line as this host allows it:
# membarrier(2) registration works here or it does not, and when not the
# line names the rank that could not register.
fence_text() {
    local refused
    refused=$(line "$1" waiting | sed -n 's/.*(wake-ups: \(every record fenced, because local rank [0-9]* (world rank [0-9]*) could not register for membarrier(2) (old kernel or seccomp)\)).*/\1/p')
    echo "${refused:-records published without a fence, a rank going to sleep issues membarrier(2) instead}"
}

case $case_name in
quiet)
    # Without UZURA_VERBOSE (and with 0) the library says nothing.
    for level in "" 0; do
        job ${level:+UZURA_VERBOSE=$level} -- -n 4 "$prog"
        [ ! -s "$err" ] || { fail "UZURA_VERBOSE='$level' printed on stderr"; show; }
    done
    ;;
rank0)
    # Level 1: rank 0 alone, the whole report, at 1 to 5 ranks (5 is more
    # than this machine's processors).
    for np in 1 2 4 5; do
        job UZURA_VERBOSE=1 -- -n $np "$prog"
        expect_one_host_report 0 $np single
        [ "$(grep -c '^Uzura rank ' "$err")" -eq "$(grep -c '^Uzura rank 0: ' "$err")" ] ||
            { fail "np $np: ranks other than 0 spoke at level 1"; show; }
        n=$(grep -c '^Uzura rank 0: ' "$err")
        want=$((np == 1 ? 6 : 7))
        [ "$n" -eq $want ] || { fail "np $np: rank 0 printed $n lines, expected $want"; show; }
    done
    ;;
every_rank)
    # Level 2: every rank its own report.
    job UZURA_VERBOSE=2 -- -n 3 "$prog"
    for r in 0 1 2; do
        expect_one_host_report $r 3 single
    done
    ;;
cma_off)
    # The fallback forced through its option.
    for np in 2 4; do
        job UZURA_VERBOSE=1 UZURA_SHM_CMA=off -- -n $np "$prog"
        expect_line 0 "large messages on this host" \
            "pipelined copy through the shared-memory rings, because UZURA_SHM_CMA=off"
    done
    job UZURA_VERBOSE=2 UZURA_SHM_CMA=off -- -n 3 "$prog"
    for r in 0 1 2; do
        expect_line $r "large messages on this host" \
            "pipelined copy through the shared-memory rings, because UZURA_SHM_CMA=off"
    done
    ;;
cma_denied)
    # process_vm_readv refused (as by a ptrace policy or seccomp): the
    # probe notices, the report says why, the data still arrives.
    case ${UZ_SANITIZE:-} in *address* | *thread*)
        # The sanitizer's runtime must come first and intercepts
        # process_vm_readv itself: the shim would never be called.
        echo "SKIPPED: the sanitizer's own process_vm_readv interceptor comes before any shim"; exit 77 ;;
    esac
    job UZURA_VERBOSE=2 LD_PRELOAD="$denied_so" -- -n 4 "$prog"
    for r in 0 1 2 3; do
        expect_line $r "large messages on this host" \
            "pipelined copy through the shared-memory rings, because cross-memory attach (process_vm_readv) is not permitted here: local rank 0 (world rank 0) could not read local rank 1's memory: Operation not permitted (ptrace policy, seccomp or container)"
    done
    # UZURA_SHM_CMA=on makes the same refusal an error, with the same why.
    LD_PRELOAD="$denied_so" UZURA_SHM_CMA=on "$mpiexec" --timeout 60 -n 2 "$prog" >"$out" 2>"$err" </dev/null
    rc=$?
    [ $rc -ne 0 ] || fail "UZURA_SHM_CMA=on with cross-memory attach refused: the job passed"
    grep -q "UZURA_SHM_CMA=on but process_vm_readv between this host's ranks is not permitted: local rank 0 (world rank 0) could not read local rank 1's memory: Operation not permitted" "$err" ||
        { fail "UZURA_SHM_CMA=on: no message naming the refusal"; show; }
    ;;
shm_off)
    # UZURA_SHM=0: the network between this host's ranks, and its endpoint.
    job UZURA_VERBOSE=1 UZURA_SHM=0 -- -n 2 "$prog"
    expect_line 0 transports "self, tcp to 1 rank (1 on this host, because UZURA_SHM=0)"
    grep -Eq "^Uzura rank 0: tcp listening on [0-9.]+:[0-9]+(,[0-9.]+:[0-9]+)* \(one connection per peer, opened on first use\)$" "$err" ||
        { fail "no tcp endpoint line"; show; }
    expect_line 0 "send protocol" "eager up to 524288 bytes through tcp (UZURA_NET_EAGER_LIMIT), rendezvous above; to itself always eager"
    [ -z "$(line 0 "large messages on this host")" ] || fail "a large-message line without shared memory"
    expect_line 0 collectives "message passing only, because no other rank shares memory with this one"
    job UZURA_VERBOSE=1 UZURA_SHM=0 UZURA_NET=udp -- -n 2 "$prog"
    expect_line 0 transports "self, udp to 1 rank (1 on this host, because UZURA_SHM=0)"
    grep -Eq "^Uzura rank 0: udp on port [0-9]+, path MTU [0-9]+, window 1024 datagrams; segmentation offload (on|off, because the kernel refused UDP_GRO: .+)$" "$err" ||
        { fail "no udp endpoint line"; show; }
    job UZURA_VERBOSE=1 UZURA_SHM=0 UZURA_NET=udp UZURA_UDP_GSO=0 -- -n 2 "$prog"
    grep -Eq "^Uzura rank 0: udp on port [0-9]+, path MTU [0-9]+, window 1024 datagrams; segmentation offload off, because UZURA_UDP_GSO=0$" "$err" ||
        { fail "UZURA_UDP_GSO=0 not reported"; show; }
    ;;
hosts)
    # Two "hosts" (proxies on this machine): shm within, tcp between.
    job UZURA_VERBOSE=2 -- -launcher fork -hosts a,b -n 4 "$prog"
    for r in 0 1 2 3; do
        expect_line $r job "4 ranks on 2 hosts; 2 on this host ($host), which has $online processors"
        expect_line $r transports "self, shm to 1 rank on this host, tcp to 2 ranks on other hosts (UZURA_NET=tcp)"
        expect_line $r "send protocol" "eager up to 65536 bytes through shm (UZURA_EAGER_LIMIT=0, automatic: every rank has a processor), eager up to 524288 bytes through tcp (UZURA_NET_EAGER_LIMIT), rendezvous above; to itself always eager"
        grep -q "^Uzura rank $r: tcp listening on " "$err" || { fail "rank $r: no tcp endpoint line"; show; }
        [[ "$(line $r waiting)" == *"then sleep in poll() on its sockets until a peer or a message wakes it (wake-ups: "*"); "* ]] ||
            { fail "rank $r: waiting line without the network: $(line $r waiting)"; show; }
    done
    ;;
fence_denied)
    # membarrier(2) refused in one rank (as by seccomp): every rank of the
    # host keeps the full fence, says why, and the data still arrives.
    case ${UZ_SANITIZE:-} in *address* | *thread*)
        # A preloaded shim would come before the sanitizer's runtime,
        # which must be first.
        echo "SKIPPED: a sanitizer's runtime must be loaded before any LD_PRELOAD shim"; exit 77 ;;
    esac
    job UZURA_VERBOSE=2 UZURA_WAIT_SPIN_US=7 UZURA_WAIT_YIELD_US=9 -- \
        -n 1 env LD_PRELOAD="$membarrier_denied_so" "$prog" : -n 2 "$prog"
    for r in 0 1 2; do
        expect_line $r waiting "poll 7 us, then yield the processor for 9 us, then sleep on a futex in shared memory until a peer rings it (wake-ups: every record fenced, because local rank 0 (world rank 0) could not register for membarrier(2) (old kernel or seccomp)); as UZURA_WAIT_SPIN_US / UZURA_WAIT_YIELD_US say"
    done
    ;;
thread_multiple)
    job UZURA_VERBOSE=1 -- -n 2 "$prog" multiple
    expect_one_host_report 0 2 multiple
    ;;
tunables)
    # The lines follow the tunables that decide them.
    job UZURA_VERBOSE=1 UZURA_EAGER_LIMIT=1000 UZURA_COLL_SHM_MAX=0 UZURA_WAIT_SPIN_US=7 UZURA_WAIT_YIELD_US=9 -- \
        -n 2 "$prog"
    expect_line 0 "send protocol" "eager up to 1000 bytes through shm (UZURA_EAGER_LIMIT), rendezvous above; to itself always eager"
    expect_line 0 collectives "message passing only, because UZURA_COLL_SHM_MAX=0"
    expect_line 0 waiting "poll 7 us, then yield the processor for 9 us, then sleep on a futex in shared memory until a peer rings it (wake-ups: $(fence_text 0)); as UZURA_WAIT_SPIN_US / UZURA_WAIT_YIELD_US say"
    # The full fence forced through its option.
    job UZURA_VERBOSE=2 UZURA_SHM_FENCE=full UZURA_WAIT_SPIN_US=7 UZURA_WAIT_YIELD_US=9 -- -n 3 "$prog"
    for r in 0 1 2; do
        expect_line $r waiting "poll 7 us, then yield the processor for 9 us, then sleep on a futex in shared memory until a peer rings it (wake-ups: every record fenced, because UZURA_SHM_FENCE=full); as UZURA_WAIT_SPIN_US / UZURA_WAIT_YIELD_US say"
    done
    ;;
singleton)
    # Started without mpiexec.
    UZURA_VERBOSE=1 "$prog" >"$out" 2>"$err" </dev/null || { fail "singleton failed"; show; }
    expect_one_host_report 0 1 single
    ;;
*)
    echo "startup_verbose.sh: unknown case '$case_name'"
    exit 2
    ;;
esac
[ $failures -eq 0 ] && echo "ok: $case_name"
exit $((failures > 0))
