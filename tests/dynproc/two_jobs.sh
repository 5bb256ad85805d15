#!/bin/bash
# two_jobs.sh — start two independent mpiexec jobs that meet through a port
# (dynproc_ports.c): the server with <np server> ranks, the client with
# <np client>; both must succeed.  Each mpiexec has a timeout, so a hang
# fails the test instead of stalling it.
#   two_jobs.sh <program> <np server> <np client>
set -u
prog=$1 nps=$2 npc=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/uz-dynproc.XXXXXX")
trap 'rm -rf "$dir"' EXIT
file=$dir/port
"$MPIEXEC" -n "$nps" --timeout 90 "$prog" server "$file" "$npc" >"$dir/server.out" 2>&1 &
server=$!
"$MPIEXEC" -n "$npc" --timeout 90 "$prog" client "$file" "$nps" >"$dir/client.out" 2>&1
crc=$?
wait "$server"
src=$?
echo "--- server (np $nps, exit $src)"; cat "$dir/server.out"
echo "--- client (np $npc, exit $crc)"; cat "$dir/client.out"
[ "$src" -eq 0 ] && [ "$crc" -eq 0 ]
