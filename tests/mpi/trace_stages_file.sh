#!/usr/bin/env bash
# trace_stages_file.sh — UZURA_TRACE_FILE: each rank of trace_stages (in
# "file" mode, reading nothing itself) writes its stage stamps at
# MPI_Finalize, and every message of the ping-pong is there once per stage.
#
#   trace_stages_file.sh MPIEXEC PROGRAM
set -u
mpiexec=$1 prog=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
UZURA_TRACE=stages UZURA_TRACE_FILE="$dir/stamps" "$mpiexec" -n 2 --timeout 60 "$prog" file || exit 1
fails=0
for rank in 0 1; do
    f=$dir/stamps.$rank
    [ -f "$f" ] || { echo "FAIL: no $f"; exit 1; }
    # 20 small and 4 large messages each way (tags 4201, 4202): every stage once per message.
    for stage in send_entry send_enqueued send_complete recv_entry arrival match copy recv_complete; do
        for tag in 4201:20 4202:4; do
            n=$(awk -v s="$stage" -v t="${tag%:*}" '$1 == s && $3 == t' "$f" | wc -l)
            if [ "$n" != "${tag#*:}" ]; then
                echo "FAIL rank $rank: $n '$stage' stamps of tag ${tag%:*}, expected ${tag#*:}"; fails=$((fails + 1))
            fi
        done
    done
done
[ "$fails" = 0 ] && echo "ok: $(cat "$dir"/stamps.* | grep -vc '^#') stamps in two files"
exit "$fails"
