#!/bin/bash
# two_jobs.sh — start two independent mpiexec jobs that meet through a port
# (dynproc_ports.c): the server with <np server> ranks, the client with
# <np client>; both must succeed.  Each mpiexec has a timeout, so a hang
# fails the test instead of stalling it.
#   two_jobs.sh <program> <np server> <np client> [netns]
# With "netns" each job runs in a network namespace of its own
# (tests/net/netns.sh: two "hosts" on a bridge), so the jobs meet and talk
# across a network, never over loopback.
set -u
prog=$1 nps=$2 npc=$3 where=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/uz-dynproc.XXXXXX")
in_server=() in_client=()
if [ "$where" = netns ]; then
    netns() { UZURA_NETNS_HOLDER=$$ "$here/../net/netns.sh" "$@"; }
    netns up 2 || { rc=$?; rm -rf "$dir"; exit $rc; }
    trap 'netns down >/dev/null; rm -rf "$dir"' EXIT
    in_server=(ip netns exec uzh0) in_client=(ip netns exec uzh1)
else
    trap 'rm -rf "$dir"' EXIT
fi
file=$dir/port
"${in_server[@]}" "$MPIEXEC" -n "$nps" --timeout 90 "$prog" server "$file" "$npc" "${where:-host}" >"$dir/server.out" 2>&1 &
server=$!
"${in_client[@]}" "$MPIEXEC" -n "$npc" --timeout 90 "$prog" client "$file" "$nps" "${where:-host}" >"$dir/client.out" 2>&1
crc=$?
wait "$server"
src=$?
echo "--- server (np $nps, exit $src)"; cat "$dir/server.out"
echo "--- client (np $npc, exit $crc)"; cat "$dir/client.out"
[ "$src" -eq 0 ] && [ "$crc" -eq 0 ]
