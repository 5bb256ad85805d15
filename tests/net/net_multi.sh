#!/usr/bin/env bash
# net_multi.sh — several network transports open at once (UZURA_NET as a
# list; the rule is in src/pt2pt/net_choice.c): a pair of ranks uses the
# first network of the lower rank's list that the other rank lists too,
# and a rank opens only the networks some pair chose.
#
#   split   shared memory off, ranks 0,1 (0-3 at 8 ranks) list "udp,tcp",
#           the others "tcp": the first pair talks udp, every other pair
#           tcp; rank 0 opens both, rank 2 only tcp;
#   orders  even ranks "udp,tcp", odd ranks "tcp,udp": the lower rank's
#           order decides, so every rank opens both and uses each;
#   both    every rank "udp,tcp": every pair udp, tcp never opened;
#   hosts   two hosts (proxies on this machine), "udp,tcp": shm within a
#           host, udp between;
#   bogus   a name no transport has: MPI_Init fails, naming it.
#
# The programs are the request layer's and the collectives' own tests, so
# every byte, status and count is checked on the mixed paths; the start-up
# report (UZURA_VERBOSE=2) shows which transport reaches how many ranks,
# and the counters printed at MPI_Finalize that each network carried data.
#
#   net_multi.sh MPIEXEC CASE PT2PT_MODES PT2PT_LARGE PT2PT_PROBE COLL_CHECK
set -u
mpiexec=$1 case_name=$2 modes=$3 large=$4 probe=$5 coll=$6
for v in $(compgen -e | grep '^UZURA_' || true); do unset "$v"; done
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE MPIEXEC_TIMEOUT

work=$(mktemp -d /tmp/uzura-net-multi.XXXXXX)
trap 'rm -rf "$work"' EXIT
out=$work/out err=$work/err
failures=0

fail() {
    echo "FAIL ($case_name): $*"
    failures=$((failures + 1))
}

show() {
    echo "--- stdout:"; cat "$out"
    echo "--- stderr:"; cat "$err"
}

# run NP LISTS PROGRAM [MPIEXEC-ARGS...]: run PROGRAM at NP ranks, rank r
# with UZURA_NET set to word r mod (number of words) of LISTS; it must pass.
# shellcheck disable=SC2016
pick_list='n=$(echo $UZURA_LISTS | wc -w); k=$((PMI_RANK % n + 1));
UZURA_NET=$(echo $UZURA_LISTS | cut -d" " -f$k); export UZURA_NET; unset UZURA_LISTS; exec "$@"'
run() {
    local np=$1 lists=$2 prog=$3
    shift 3
    env UZURA_VERBOSE=2 UZURA_LISTS="$lists" "$mpiexec" --timeout 120 "$@" -n "$np" \
        /bin/sh -c "$pick_list" sh "$prog" >"$out" 2>"$err" </dev/null
    local rc=$?
    [ $rc -eq 0 ] && grep -q ': passed' "$out" || { fail "$(basename "$prog") at $np ranks failed (exit $rc)"; show; }
}

line() {  # RANK WHAT: the report line of RANK about WHAT
    sed -n "s/^Uzura rank $1: $2: //p" "$err"
}

expect_line() {  # RANK WHAT TEXT
    local got
    got=$(line "$1" "$2")
    [ "$got" == "$3" ] || { fail "rank $1's '$2' line"; echo "--- wanted: $3"; echo "--- got:    $got"; show; }
}

opened() {  # RANK TRANSPORT: did RANK open TRANSPORT (its endpoint line)?
    case $2 in
    tcp) grep -q "^Uzura rank $1: tcp listening on " "$err" ;;
    udp) grep -q "^Uzura rank $1: udp on port " "$err" ;;
    esac
}

expect_open() {  # RANK "tcp udp" "": which networks RANK opened and which not
    local t
    for t in $2; do opened "$1" "$t" || { fail "rank $1 did not open $t"; show; }; done
    for t in $3; do ! opened "$1" "$t" || { fail "rank $1 opened $t, which no pair of it uses"; show; }; done
}

udp_sent() {  # RANK: udp data segments RANK sent (0 when it printed none)
    local n
    n=$(grep "^Uzura rank $1: udp: data sent" "$err" | sed 's/.*udp: data sent \([0-9]*\).*/\1/')
    echo "${n:-0}"
}

tcp_conns() {  # RANK: tcp connections RANK opened or accepted
    grep "^Uzura rank $1: tcp connections opened" "$err" |
        sed 's/.*opened \([0-9]*\), accepted \([0-9]*\),.*/\1 \2/' | awk '{print $1 + $2} END {if (!NR) print 0}'
}

case $case_name in
split)
    for prog in "$modes" "$large" "$coll"; do
        run 4 "udp,tcp udp,tcp tcp tcp" "$prog" -env UZURA_SHM 0
    done
    expect_line 0 transports "self, udp to 1 rank, tcp to 2 ranks (3 on this host, because UZURA_SHM=0)"
    expect_line 1 transports "self, udp to 1 rank, tcp to 2 ranks (3 on this host, because UZURA_SHM=0)"
    expect_line 2 transports "self, tcp to 3 ranks (3 on this host, because UZURA_SHM=0)"
    expect_line 0 "send protocol" "eager up to 524288 bytes through udp (UZURA_NET_EAGER_LIMIT), eager up to 524288 bytes through tcp (UZURA_NET_EAGER_LIMIT), rendezvous above; to itself always eager"
    expect_open 0 "udp tcp" ""
    expect_open 2 "tcp" "udp"
    [ "$(udp_sent 0)" -gt 0 ] || { fail "rank 0 sent nothing over udp"; show; }
    [ "$(tcp_conns 0)" -gt 0 ] || { fail "rank 0 made no tcp connection"; show; }
    [ "$(tcp_conns 2)" -gt 0 ] || { fail "rank 2 made no tcp connection"; show; }
    # 8 ranks: 0-3 "udp,tcp", 4-7 "tcp".
    run 8 "udp,tcp udp,tcp udp,tcp udp,tcp tcp tcp tcp tcp" "$probe" -env UZURA_SHM 0
    run 8 "udp,tcp udp,tcp udp,tcp udp,tcp tcp tcp tcp tcp" "$coll" -env UZURA_SHM 0
    expect_line 3 transports "self, udp to 3 ranks, tcp to 4 ranks (7 on this host, because UZURA_SHM=0)"
    expect_line 5 transports "self, tcp to 7 ranks (7 on this host, because UZURA_SHM=0)"
    ;;
orders)
    run 4 "udp,tcp tcp,udp" "$modes" -env UZURA_SHM 0
    # Pairs with 0 or 2 as the lower rank use udp, with 1 tcp: rank 0 talks
    # udp only; rank 3 udp to 0 and 2, tcp to 1.  A rank's networks are
    # reported in its own order of preference.
    expect_line 0 transports "self, udp to 3 ranks (3 on this host, because UZURA_SHM=0)"
    expect_line 1 transports "self, tcp to 2 ranks, udp to 1 rank (3 on this host, because UZURA_SHM=0)"
    expect_line 2 transports "self, udp to 2 ranks, tcp to 1 rank (3 on this host, because UZURA_SHM=0)"
    expect_line 3 transports "self, tcp to 1 rank, udp to 2 ranks (3 on this host, because UZURA_SHM=0)"
    expect_open 0 "udp" "tcp"
    expect_open 1 "tcp udp" ""
    expect_open 3 "tcp udp" ""
    ;;
both)
    run 4 "udp,tcp" "$modes" -env UZURA_SHM 0
    for r in 0 1 2 3; do
        expect_line $r transports "self, udp to 3 ranks (3 on this host, because UZURA_SHM=0)"
        expect_open $r "udp" "tcp"
        [ "$(udp_sent $r)" -gt 0 ] || { fail "rank $r sent nothing over udp"; show; }
    done
    ;;
hosts)
    run 4 "udp,tcp" "$large" -launcher fork -hosts a,b
    run 4 "udp,tcp" "$coll" -launcher fork -hosts a,b
    for r in 0 1 2 3; do
        expect_line $r transports "self, shm to 1 rank on this host, udp to 2 ranks on other hosts (UZURA_NET=udp,tcp)"
        expect_open $r "udp" "tcp"
    done
    ;;
bogus)
    UZURA_NET=tcp,carrier-pigeon "$mpiexec" --timeout 60 -n 2 "$probe" >"$out" 2>"$err" </dev/null
    rc=$?
    [ $rc -ne 0 ] || fail "UZURA_NET=tcp,carrier-pigeon: the job passed"
    grep -q 'UZURA_NET=tcp,carrier-pigeon: "carrier-pigeon" is not a network transport of this build (it has tcp, udp' "$err" ||
        { fail "no message naming the unknown transport"; show; }
    UZURA_NET= "$mpiexec" --timeout 60 -n 2 "$probe" >"$out" 2>"$err" </dev/null
    [ $? -ne 0 ] || fail "UZURA_NET empty: the job passed"
    grep -q 'UZURA_NET is empty' "$err" || { fail "no message for an empty UZURA_NET"; show; }
    ;;
*)
    echo "unknown case $case_name"
    exit 2
    ;;
esac

[ $failures -eq 0 ] && echo "net_multi $case_name: passed" || echo "net_multi $case_name: $failures failures"
[ $failures -eq 0 ]
