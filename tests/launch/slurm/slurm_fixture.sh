#!/usr/bin/env bash
# slurm_fixture.sh — a private Slurm (munged, slurmctld, slurmd) for the
# launch tests, started as root in a directory of its own and stopped
# without a trace.
#
#   slurm_fixture.sh start DIR [OWNER [NODES]]  start, wait until every node is idle
#   slurm_fixture.sh stop DIR                   stop every daemon, remove DIR
#   slurm_fixture.sh run DIR CMD...             CMD with SLURM_CONF set for DIR (and,
#                                               with several nodes, in node 0's namespace)
#
# Nothing is shared with a system Slurm or munge: the key, socket, state,
# spool, logs and ports are all in DIR.  OWNER is a pid ("parent": the
# caller, e.g. ctest): a watcher stops the daemons as soon as it is gone
# (ctest killed before its cleanup test ran), so nothing is left running.
#
# NODES (default 1): with 1, one node on 127.0.0.1.  With more, each node
# is a network namespace of tests/net/netns.sh (uzh<i>, 10.77.0.<i+1>):
# slurmctld and node 0's slurmd run in uzh0, node i's slurmd in uzh<i>, each
# entered with nsenter --net only (ip netns exec would remount /sys and hide
# the cgroup file system slurmd insists on).  The slurmds share /tmp, where
# Slurm's PMIx plugin makes a directory named after the step alone, so each
# slurmd gets a mount namespace of its own in which DIR/pmix is its own
# directory (mpi.conf: PMIxCliTmpDirBase=DIR/pmix).
#
# start prints "SKIPPED: <reason>" and exits 77 when slurm-wlm or munge is
# missing, when not root, when namespaces cannot be made, or when the
# daemons cannot start (their log tail is printed).
set -u
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|run DIR ..." >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
netns=$here/../../net/netns.sh

skip() { echo "SKIPPED: $*"; exit 77; }

pid_of() { [ -s "$dir/$1.pid" ] && cat "$dir/$1.pid"; }

nodes() { cat "$dir/nodes" 2>/dev/null || echo 1; }

# Run a command on node i: as it is on one node, else through nsenter.
on_node() {
    local i=$1
    shift
    if [ "$(nodes)" = 1 ]; then "$@"; else nsenter --net=/run/netns/uzh$i "$@"; fi
}

# The same, in place of this shell (so that a signal to us reaches it).
exec_on_node() {
    local i=$1
    shift
    if [ "$(nodes)" = 1 ]; then exec "$@"; else exec nsenter --net=/run/netns/uzh$i "$@"; fi
}

# A port pair nobody listens on: two consecutive free ports from 17000 up.
free_ports() {
    local used p
    used=$(ss -Htan 2>/dev/null | awk '{print $4}' | sed 's/.*://' | sort -u)
    for ((p = 17000 + RANDOM % 2000; p < 30000; p += 2)); do
        if ! grep -qx "$p" <<<"$used" && ! grep -qx "$((p + 1))" <<<"$used"; then
            echo "$p"; return 0
        fi
    done
    return 1
}

write_conf() {
    local port=$1 n=$2 cpus host ctl_addr names i
    cpus=$(nproc)
    host=$(hostname -s)
    ctl_addr=127.0.0.1
    [ "$n" -gt 1 ] && ctl_addr=10.77.0.1
    cat >"$dir/slurm.conf" <<CONF
# Written by tests/launch/slurm/slurm_fixture.sh; removed with $dir.
ClusterName=uz$(printf %s "$dir" | md5sum | cut -c1-8)
SlurmctldHost=$host($ctl_addr)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=2
MinJobAge=10
CONF
    if [ "$n" = 1 ]; then
        echo "NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN" >>"$dir/slurm.conf"
        names=$host
    else
        names=""
        for ((i = 0; i < n; i++)); do
            echo "NodeName=n$i NodeAddr=10.77.0.$((i + 1)) NodeHostname=$host CPUs=$cpus State=UNKNOWN" \
                >>"$dir/slurm.conf"
            names=$names${names:+,}n$i
        done
    fi
    echo "PartitionName=uz Nodes=$names Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES" \
        >>"$dir/slurm.conf"
    echo "PMIxCliTmpDirBase=$dir/pmix" >"$dir/mpi.conf"
}

# Jobs of this private cluster only (a test killed half-way leaves its step).
cancel_jobs() {
    [ -s "$dir/slurm.conf" ] && [ -n "$(pid_of slurmctld)" ] || return 0
    on_node 0 env SLURM_CONF="$dir/slurm.conf" scancel --partition=uz --quiet 2>/dev/null
    for _ in $(seq 50); do
        [ -z "$(on_node 0 env SLURM_CONF="$dir/slurm.conf" squeue -h -o %i 2>/dev/null)" ] &&
            return 0
        sleep 0.1
    done
}

daemon_pids() {
    local f
    for f in "$dir"/slurmd-*.pid "$dir/slurmctld.pid" "$dir/munged.pid"; do
        [ -s "$f" ] && cat "$f"
    done
}

stop_all() {
    local pid alive n
    n=$(nodes)
    cancel_jobs
    for pid in $(daemon_pids); do kill -TERM "$pid" 2>/dev/null; done
    for _ in $(seq 50); do
        alive=0
        for pid in $(daemon_pids); do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for pid in $(daemon_pids); do kill -KILL "$pid" 2>/dev/null; done
    [ "$n" -gt 1 ] && [ -s "$dir/netns.holder" ] &&
        UZURA_NETNS_HOLDER=$(cat "$dir/netns.holder") bash "$netns" down >/dev/null 2>&1
    rm -rf "$dir"
}

fail_start() {
    local logs
    logs=$(ls "$dir"/*.log 2>/dev/null)
    [ -n "$logs" ] && tail -n 5 $logs
    stop_all
    skip "$*"
}

start_munge() {
    mungekey --create --keyfile="$dir/munge.key" >/dev/null 2>&1 ||
        fail_start "mungekey cannot create a key"
    chmod 600 "$dir/munge.key"
    munged --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
        --seed-file="$dir/munged.seed" --force </dev/null >/dev/null 2>&1 ||
        fail_start "munged does not start"
}

# slurmd of node i, in a mount namespace where DIR/pmix is its own.
start_slurmd() {
    local i=$1 name=$2
    mkdir -p "$dir/pmix" "$dir/pmix-$name"
    on_node "$i" unshare --mount --propagation private sh -c \
        'mount --bind "$1/pmix-$2" "$1/pmix" && exec slurmd -f "$1/slurm.conf" -N "$2"' \
        sh "$dir" "$name" </dev/null >/dev/null 2>&1
}

wait_idle() {
    local n=$1 state=""
    for _ in $(seq 150); do
        state=$(on_node 0 env SLURM_CONF="$dir/slurm.conf" sinfo -h -o %t 2>/dev/null | sort -u)
        [ "$state" = idle ] && return 0
        sleep 0.2
    done
    fail_start "the Slurm nodes did not become idle (state '$state')"
}

start_all() {
    local n=$1 owner=$2 prog port i name
    [ "$(id -u)" = 0 ] || skip "the Slurm fixture needs root (slurmd runs as root)"
    for prog in munged mungekey slurmctld slurmd srun sinfo scancel squeue unshare nsenter; do
        command -v "$prog" >/dev/null || skip "$prog not installed (apt-get install slurm-wlm munge)"
    done
    rm -rf "$dir"
    mkdir -p "$dir/state" || skip "cannot create $dir"
    chmod 700 "$dir"
    echo "$n" >"$dir/nodes"
    if [ "$n" -gt 1 ]; then
        # The namespaces stay while the owner (or, by hand, our caller) lives.
        echo "${owner:-$PPID}" >"$dir/netns.holder"
        UZURA_NETNS_HOLDER=$(cat "$dir/netns.holder") bash "$netns" up "$n" >"$dir/netns.out" 2>&1
        case $? in
        0) ;;
        77) rm -rf "$dir"; skip "no network namespaces for $n Slurm nodes: $(tail -n 1 "$dir/netns.out" 2>/dev/null)" ;;
        *) cat "$dir/netns.out"; rm -rf "$dir"; skip "tests/net/netns.sh up $n failed" ;;
        esac
    fi
    start_munge
    port=$(free_ports) || fail_start "no free ports for slurmctld/slurmd"
    write_conf "$port" "$n"
    on_node 0 slurmctld -f "$dir/slurm.conf" -i </dev/null >/dev/null 2>&1 ||
        fail_start "slurmctld does not start"
    for ((i = 0; i < n; i++)); do
        name=$(hostname -s)
        [ "$n" -gt 1 ] && name=n$i
        start_slurmd "$i" "$name" || fail_start "slurmd $name does not start"
    done
    wait_idle "$n"
}

# Stop everything once the process that started the fixture is gone.
watch_owner() {
    local owner=$1
    (
        trap '' HUP INT
        while kill -0 "$owner" 2>/dev/null && [ -d "$dir" ]; do sleep 2; done
        [ -d "$dir" ] && stop_all
    ) </dev/null >/dev/null 2>&1 &
}

case $cmd in
start)
    owner=${3:-}
    [ "$owner" = parent ] && owner=$PPID
    nodes_wanted=${4:-1}
    [[ $nodes_wanted =~ ^[1-9][0-9]*$ ]] || { echo "$0: NODES must be a number" >&2; exit 2; }
    start_all "$nodes_wanted" "$owner"
    [ -n "$owner" ] && watch_owner "$owner"
    echo "slurm fixture: $nodes_wanted node(s) idle, SLURM_CONF=$dir/slurm.conf"
    ;;
stop)
    [ -d "$dir" ] && stop_all
    exit 0
    ;;
run)
    shift 2
    [ -s "$dir/slurm.conf" ] || { echo "$0: no Slurm fixture in $dir" >&2; exit 2; }
    export SLURM_CONF=$dir/slurm.conf
    exec_on_node 0 "$@"
    ;;
*)
    echo "usage: $0 start|stop|run DIR ..." >&2; exit 2 ;;
esac
