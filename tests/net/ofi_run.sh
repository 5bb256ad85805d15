#!/usr/bin/env bash
# ofi_run.sh — run an MPI test program over the ofi transport (libfabric)
# with one provider, either on this host with shared memory off (every
# peer through the provider) or across network namespaces as hosts
# (netns.sh: uzh0 .. uzh<H-1>, PPN ranks each, shared memory within one).
#
#   ofi_run.sh PROVIDER loop NP    MPIEXEC PROGRAM [ARGS...]
#   ofi_run.sh PROVIDER netns HOSTS PPN MPIEXEC PROGRAM [ARGS...]
#   ofi_run.sh PROVIDER env COMMAND [ARGS...]   (a script that runs its own jobs)
#
# PROVIDER as UZURA_OFI_PROVIDER takes it ("tcp;ofi_rxm", "udp;ofi_rxd"),
# or with + for ; (ctest splits arguments at ;).
# Exits 77 with "SKIPPED: <reason>" when this build has no ofi, libfabric
# or the provider is missing here, or namespaces cannot be made.
set -u
prov=${1//+/;} mode=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)

[ "${UZ_OFI_BUILT:-1}" = 1 ] || { echo "SKIPPED: built without libfabric's headers (rdma/fabric.h)"; exit 77; }
ldconfig -p 2>/dev/null | grep -q 'libfabric\.so\.1 ' || [ -n "${LD_LIBRARY_PATH:-}" ] ||
    { echo "SKIPPED: libfabric.so.1 is not installed"; exit 77; }
if command -v fi_info >/dev/null; then
    fi_info -p "$prov" -t FI_EP_RDM >/dev/null 2>&1 ||
        { echo "SKIPPED: libfabric has no provider \"$prov\" here (fi_info -l)"; exit 77; }
fi
export UZURA_NET=ofi UZURA_OFI_PROVIDER="$prov"

[ "$mode" = env ] && exec "$@"
if [ "$mode" = loop ]; then
    np=$1 mpiexec=$2
    shift 2
    exec env UZURA_SHM=0 "$mpiexec" -n "$np" --timeout ${UZ_TEST_TIMEOUT:-600} "$@"
fi

hosts=$1 ppn=$2 mpiexec=$3
shift 3
netns() { UZURA_NETNS_HOLDER=$$ "$here/netns.sh" "$@"; }
"$mpiexec" --help 2>&1 | grep -q -- '-launcher-exec' ||
    { echo "SKIPPED: this mpiexec cannot start ranks on several hosts"; exit 77; }
netns up "$hosts" || exit $?
trap 'netns down >/dev/null' EXIT
list=$(seq -s, -f 'uzh%g' 0 $((hosts - 1)))
"$mpiexec" --launcher-exec 'ip netns exec' -hosts "$list" -ppn "$ppn" \
    -n $((hosts * ppn)) --timeout ${UZ_TEST_TIMEOUT:-600} "$@"
