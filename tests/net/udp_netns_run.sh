#!/usr/bin/env bash
# udp_netns_run.sh — run an MPI test program across network namespaces
# (netns.sh: uzh0 .. uzh<H-1>, one address each on a shared bridge), PPN
# ranks per namespace, over the udp transport (UZURA_UDP_* from the
# environment pass through, e.g. UZURA_UDP_FAULTS).  Ranks in one namespace
# use shared memory between them, as on a real host.
#
#   udp_netns_run.sh HOSTS PPN MPIEXEC PROGRAM [ARGS...]
#
# Exits 77 (skipped, with the reason) when namespaces cannot be made or
# mpiexec cannot start ranks on several hosts.
set -u
hosts=$1 ppn=$2 mpiexec=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
netns() { UZURA_NETNS_HOLDER=$$ "$here/netns.sh" "$@"; }

"$mpiexec" --help 2>&1 | grep -q -- '-launcher-exec' ||
    { echo "SKIPPED: this mpiexec cannot start ranks on several hosts"; exit 77; }
netns up "$hosts" ${UZURA_NETNS_MTU:-} || exit $?
trap 'netns down >/dev/null' EXIT
list=$(seq -s, -f 'uzh%g' 0 $((hosts - 1)))
env UZURA_NET=udp "$mpiexec" --launcher-exec 'ip netns exec' -hosts "$list" -ppn "$ppn" \
    -n $((hosts * ppn)) --timeout ${UZ_TEST_TIMEOUT:-600} "$@"
