#!/usr/bin/env bash
# net_eager.sh — which messages go eagerly to another host, checked from the
# counters UZURA_VERBOSE=2 prints, with every byte checked by net_eager.c:
#
#   1. UZURA_NET_EAGER_LIMIT is honoured exactly (below, at and above it),
#      also for sizes that fit one record of the transport;
#   2. eager messages at and above 128 KiB (read from the user's buffer by
#      udp) and above the record size arrive intact with the default limit;
#   3. udp only: a rendezvous message of exactly UZURA_UDP_RECORD bytes
#      travels as one DATA record (the record size counts payload);
#   4. udp only: (2) under 10% loss, 5% duplication, 20% reordering and
#      1500-byte datagrams, where a send that completed before its last
#      retransmission would deliver the bytes written after it.
#
# One host, shared memory off, so the two ranks talk over the transport.
#
#   net_eager.sh MPIEXEC NET_EAGER tcp|udp
set -u
mpiexec=$1 prog=$2 transport=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
export UZURA_SHM=0 UZURA_NET=$transport UZURA_VERBOSE=2
fail() { cat "$out"; echo "FAIL: $*"; exit 1; }

run() {  # ENV... -- SIZES...: run the job, keep its output in $out
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$mpiexec" -n 2 --timeout 120 "$prog" "$@" >"$out" 2>&1 || fail "job failed: ${envs[*]} sizes $*"
    grep -q '^PASS' "$out" || fail "data: ${envs[*]} sizes $*"
}

counter() {  # LINE PATTERN: the number after PATTERN in the counters that start with LINE
    grep "^Uzura rank $1" "$out" | grep -o "$2 [0-9]*" | head -1 | awk '{print $NF}'
}

# Rank 0 sends each size twice per round, three rounds (net_eager.c), and
# one message of its own for the closing MPI_Allreduce.
per_size=6

# 1. The limit, exactly.
run UZURA_NET_EAGER_LIMIT=100k -- 0 1000 65536 102400 102401 131072 300000
eager=$(counter "0: eager" "eager") rdv=$(counter "0: eager" "rendezvous")
[ "$eager" = $((4 * per_size + 1)) ] && [ "$rdv" = $((3 * per_size)) ] ||
    fail "limit 100k: rank 0 sent $eager eager and $rdv rendezvous, expected $((4 * per_size + 1)) and $((3 * per_size))"
echo "limit 100k: $eager eager (0 B to 100 KiB), $rdv rendezvous (above): as configured"

# 2. The default limit: everything here goes eagerly, above the record
#    size in pieces; on udp sent from the user's buffer (and copied into
#    the window after the kernel took it).
run UZURA_UDP_RECORD=256k -- 131072 262144 300000 524288
eager=$(counter "0: eager" "eager") rdv=$(counter "0: eager" "rendezvous")
[ "$eager" = $((4 * per_size + 1)) ] && [ "$rdv" = 0 ] || fail "default limit: $eager eager, $rdv rendezvous"
if [ "$transport" = udp ]; then
    held=$(grep "Uzura rank 0: udp:" "$out" | sed "s/.*sent from the user's buffer \([0-9]*\).*/\1/")
    [ "${held:-0}" -ge $((2 * per_size)) ] || fail "default limit: only ${held:-0} records read from the user's buffer"
    echo "default limit: all eager, $held records read from the user's buffer"
fi

if [ "$transport" = udp ]; then
    # 3. 256 KiB by rendezvous with 256 KiB records: one RTS and one DATA
    #    each (with a limit of 0 the MPI_Allreduce's messages go by
    #    rendezvous too: RTS and DATA of rank 0's, CTS for rank 1's).
    run UZURA_UDP_RECORD=256k UZURA_NET_EAGER_LIMIT=0 -- 262144
    records=$(counter "0: udp" "records")
    [ "$records" = $((2 * per_size + 3)) ] ||
        fail "256 KiB rendezvous: rank 0 sent $records records, expected $((2 * per_size + 3)) (RTS + one DATA each)"
    echo "256 KiB rendezvous with 256 KiB records: $records records (RTS and one DATA per message)"

    # 4. Eager from the user's buffer under faults: what is resent after
    #    the send completed (and the test overwrote the buffer) must be
    #    the bytes of the message, from the window.
    run UZURA_UDP_MTU=1500 UZURA_UDP_FAULTS=loss=0.1,dup=0.05,reorder=0.2,seed=3 -- 3000 65536 131072 262144 524288
    resent=$(counter "0: udp" "resent")
    [ "${resent:-0}" -gt 0 ] || fail "faults: nothing was retransmitted"
    echo "under faults: intact, $resent segments retransmitted"
fi
echo PASS
