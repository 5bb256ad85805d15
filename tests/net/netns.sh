#!/usr/bin/env bash
# netns.sh — network namespaces that stand in for hosts in tests.
#
#   netns.sh up N [MTU]   namespaces uzh0 .. uzh{N-1}; uzh<i> has lo up and one
#                         interface veth0 with address 10.77.0.<i+1>/24, whose
#                         peer uzv<i> is a port of the bridge uzbr0 in the root
#                         namespace (so every host reaches every other one).
#                         MTU (default 1500) is set on every veth and the bridge.
#   netns.sh down         release this caller's hold; the namespaces, veths and
#                         the bridge go once no live process holds them
#   netns.sh down --force remove them whoever holds them
#   netns.sh status       what exists and who holds it
#
# Idempotent and safe to run concurrently (ctest -j, several build trees):
# every change happens under flock(1) on /tmp/uzura-netns.lock.  `up` records
# its caller ($UZURA_NETNS_HOLDER, default the parent process) as a holder in
# /tmp/uzura-netns.holders; `down` removes that holder and tears everything
# down only when no recorded holder is still alive, so one test finishing
# never pulls the hosts from under another.  A holder that died without
# `down` is forgotten at the next `up` or `down`.
#
# When namespaces cannot be made (not root, no ip(8), no veth or bridge
# support) it prints "SKIPPED: <reason>" and exits 77, the status ctest
# treats as skipped.
set -u

lock=/tmp/uzura-netns.lock
holders=/tmp/uzura-netns.holders
bridge=uzbr0
prefix=10.77.0

skip() {
    echo "SKIPPED: $*"
    exit 77
}

usage() {
    echo "usage: netns.sh up N [MTU] | down [--force] | status" >&2
    exit 2
}

preconditions() {
    [ "$(id -u)" -eq 0 ] || skip "network namespaces need root (uid $(id -u))"
    command -v ip >/dev/null || skip "ip(8) from iproute2 is not installed"
    command -v flock >/dev/null || skip "flock(1) from util-linux is not installed"
}

# Holders still alive (pruning the dead ones from the file).
live_holders() {
    [ -f "$holders" ] || return 0
    local pid alive=()
    while read -r pid; do
        [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && alive+=("$pid")
    done <"$holders"
    printf '%s\n' "${alive[@]}" | sort -u | grep . >"$holders.new"
    mv "$holders.new" "$holders"
    cat "$holders"
}

host_up() {  # INDEX MTU
    local i=$1 mtu=$2 ns=uzh$1 root_end=uzv$1
    ip netns list | grep -qw "^$ns" || ip netns add "$ns" || return 1
    if ! ip link show "$root_end" >/dev/null 2>&1; then
        ip link add "$root_end" mtu "$mtu" type veth peer name veth0 mtu "$mtu" netns "$ns" ||
            return 1
    fi
    ip link set "$root_end" mtu "$mtu" master "$bridge" up || return 1
    ip -n "$ns" link set lo up || return 1
    ip -n "$ns" link set veth0 mtu "$mtu" up || return 1
    ip -n "$ns" addr replace "$prefix.$((i + 1))/24" dev veth0 || return 1
}

up() {  # N MTU
    local n=$1 mtu=$2
    if ! ip link show "$bridge" >/dev/null 2>&1; then
        ip link add "$bridge" type bridge 2>/dev/null ||
            skip "cannot create a bridge (no permission or no bridge support)"
    fi
    # With br_netfilter loaded, bridged frames would traverse the root
    # namespace's iptables (where e.g. Docker drops forwarded traffic).
    ip link set "$bridge" type bridge nf_call_iptables 0 nf_call_ip6tables 0 \
        nf_call_arptables 0 2>/dev/null
    ip link set "$bridge" mtu "$mtu" up || skip "cannot bring up bridge $bridge"
    for ((i = 0; i < n; i++)); do
        host_up "$i" "$mtu" || skip "cannot set up namespace uzh$i (veth or netns support missing?)"
    done
    # No IPv6 addresses: duplicate-address detection would make them
    # appear late, and nothing here uses them.
    for ((i = 0; i < n; i++)); do
        ip netns exec "uzh$i" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null
    done
    echo "${UZURA_NETNS_HOLDER:-$PPID}" >>"$holders"
}

teardown() {
    local ns
    for ns in $(ip netns list | awk '/^uzh[0-9]+/ { print $1 }'); do
        ip netns del "$ns"
    done
    # Deleting a namespace removes its veth0 and with it the peer; be sure.
    for dev in $(ip -o link show | awk -F': ' '$2 ~ /^uzv[0-9]+@/ { sub(/@.*/, "", $2); print $2 }'); do
        ip link del "$dev" 2>/dev/null
    done
    ip link del "$bridge" 2>/dev/null
    rm -f "$holders"
}

down() {  # [--force]
    local me=${UZURA_NETNS_HOLDER:-$PPID}
    if [ -f "$holders" ]; then
        grep -vx "$me" "$holders" >"$holders.new"
        mv "$holders.new" "$holders"
    fi
    if [ "${1:-}" == --force ] || [ -z "$(live_holders)" ]; then
        teardown
    fi
}

status() {
    ip netns list | grep '^uzh' || echo "no uzh* namespaces"
    ip -br link show "$bridge" 2>/dev/null
    echo "holders alive: $(live_holders | tr '\n' ' ')"
}

command=${1:-}
case $command in
up)
    n=${2:-}
    mtu=${3:-1500}
    [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 200 ] || usage
    [[ "$mtu" =~ ^[0-9]+$ ]] && [ "$mtu" -ge 576 ] && [ "$mtu" -le 65535 ] || usage
    preconditions
    exec 9>>"$lock"
    flock 9
    live_holders >/dev/null
    up "$n" "$mtu"
    ;;
down)
    preconditions
    exec 9>>"$lock"
    flock 9
    down "${2:-}"
    ;;
status)
    preconditions
    exec 9>>"$lock"
    flock 9
    status
    ;;
*)
    usage
    ;;
esac
