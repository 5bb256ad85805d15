# udp_job.sh — sourced by the udp test scripts that read the transport's
# counters: runs a program on 2 ranks over udp with UZURA_VERBOSE=2 (the
# counters printed at MPI_Finalize), on one host through loopback
# ("loop") or on two network namespaces, one rank each ("netns"), shows
# its output and exits 77 when the job was skipped or 1 when it failed.
# Leaves the output in the file $out for the caller to check.
#
#   udp_job MODE TIMEOUT MPIEXEC PROGRAM [ARGS...]
# UZURA_UDP_* exported by the caller reach the ranks in both modes.

udp_job() {
    local mode=$1 timeout=$2 mpiexec=$3 rc
    shift 3
    out=$(mktemp)
    trap 'rm -f "$out"' EXIT
    export UZURA_VERBOSE=2
    if [ "$mode" = netns ]; then
        "$(dirname "${BASH_SOURCE[0]}")/udp_netns_run.sh" 2 1 "$mpiexec" "$@" >"$out" 2>&1
    else
        UZURA_SHM=0 UZURA_NET=udp "$mpiexec" -n 2 --timeout "$timeout" "$@" >"$out" 2>&1
    fi
    rc=$?
    cat "$out"
    [ $rc -eq 77 ] && exit 77
    [ $rc -eq 0 ] || { echo "FAIL: the job failed ($rc)"; exit 1; }
}
