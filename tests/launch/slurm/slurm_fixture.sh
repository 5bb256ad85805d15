#!/usr/bin/env bash
# slurm_fixture.sh — a private one-node Slurm (munged, slurmctld, slurmd) for
# the launch tests, started as root in a directory of its own and stopped
# without a trace.
#
#   slurm_fixture.sh start DIR [WATCH_PID]   start, wait until the node is idle
#                                            (WATCH_PID "parent": our parent, ctest)
#   slurm_fixture.sh stop DIR                stop every daemon, remove DIR
#   slurm_fixture.sh run DIR CMD...          CMD with SLURM_CONF set for DIR
#
# Nothing is shared with a system Slurm or munge: the key, socket, state,
# spool, logs and ports are all in DIR.  When WATCH_PID is given, a watcher
# stops the daemons as soon as that process is gone (ctest killed before its
# cleanup test ran), so nothing is ever left running.  start prints
# "SKIPPED: <reason>" and exits 77 when slurm-wlm or munge is missing, when
# not root, or when the daemons cannot start (their log tail is printed).
set -u
cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop|run DIR ..." >&2; exit 2; }

skip() { echo "SKIPPED: $*"; exit 77; }

pid_of() { [ -s "$dir/$1.pid" ] && cat "$dir/$1.pid"; }

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
    local port=$1 cpus host
    cpus=$(nproc)
    host=$(hostname -s)
    cat >"$dir/slurm.conf" <<CONF
# Written by tests/launch/slurm/slurm_fixture.sh; removed with $dir.
ClusterName=uzura
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
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
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=uz Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
}

# Jobs of this private cluster only (a test killed half-way leaves its step).
cancel_jobs() {
    local conf=$dir/slurm.conf
    [ -s "$conf" ] && [ -n "$(pid_of slurmctld)" ] || return 0
    SLURM_CONF=$conf scancel --partition=uz --quiet 2>/dev/null
    for _ in $(seq 50); do
        [ -z "$(SLURM_CONF=$conf squeue -h -o %i 2>/dev/null)" ] && return 0
        sleep 0.1
    done
}

stop_all() {
    local name pid
    cancel_jobs
    for name in slurmd slurmctld munged; do
        pid=$(pid_of "$name") || continue
        kill -TERM "$pid" 2>/dev/null
    done
    for _ in $(seq 50); do
        local alive=0
        for name in slurmd slurmctld munged; do
            pid=$(pid_of "$name") && kill -0 "$pid" 2>/dev/null && alive=1
        done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for name in slurmd slurmctld munged; do
        pid=$(pid_of "$name") && kill -KILL "$pid" 2>/dev/null
    done
    rm -rf "$dir"
}

start_all() {
    [ "$(id -u)" = 0 ] || skip "the Slurm fixture needs root (slurmd runs as root)"
    local prog
    for prog in munged mungekey slurmctld slurmd srun sinfo; do
        command -v "$prog" >/dev/null || skip "$prog not installed (apt-get install slurm-wlm munge)"
    done
    rm -rf "$dir"
    mkdir -p "$dir/state" "$dir/spool" || skip "cannot create $dir"
    chmod 700 "$dir"
    mungekey --create --keyfile="$dir/munge.key" >/dev/null 2>&1 ||
        skip "mungekey cannot create a key"
    chmod 600 "$dir/munge.key"
    munged --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" \
        --seed-file="$dir/munged.seed" --force </dev/null >/dev/null 2>&1 ||
        { tail -5 "$dir/munged.log" 2>/dev/null; stop_all; skip "munged does not start"; }
    local port
    port=$(free_ports) || { stop_all; skip "no free ports for slurmctld/slurmd"; }
    write_conf "$port"
    slurmctld -f "$dir/slurm.conf" -i </dev/null >/dev/null 2>&1 ||
        { tail -5 "$dir/slurmctld.log"; stop_all; skip "slurmctld does not start"; }
    slurmd -f "$dir/slurm.conf" </dev/null >/dev/null 2>&1 ||
        { tail -5 "$dir/slurmd.log"; stop_all; skip "slurmd does not start"; }
    local state=""
    for _ in $(seq 150); do
        state=$(SLURM_CONF=$dir/slurm.conf sinfo -h -o %t 2>/dev/null)
        [ "$state" = idle ] && break
        sleep 0.2
    done
    if [ "$state" != idle ]; then
        tail -5 "$dir/slurmctld.log" "$dir/slurmd.log"
        stop_all
        skip "the Slurm node did not become idle (state '$state')"
    fi
}

# Stop everything once the process that started the fixture is gone.
watch_owner() {
    local owner=$1
    (
        trap '' HUP INT
        while kill -0 "$owner" 2>/dev/null && [ -d "$dir" ]; do sleep 2; done
        [ -d "$dir" ] && stop_all
    ) </dev/null >/dev/null 2>&1 &
    echo $! >"$dir/watcher.pid"
}

case $cmd in
start)
    start_all
    owner=${3:-}
    [ "$owner" = parent ] && owner=$PPID
    [ -n "$owner" ] && watch_owner "$owner"
    echo "slurm fixture: node $(hostname -s) idle, SLURM_CONF=$dir/slurm.conf"
    ;;
stop)
    [ -d "$dir" ] && stop_all
    exit 0
    ;;
run)
    shift 2
    SLURM_CONF=$dir/slurm.conf exec "$@"
    ;;
*)
    echo "usage: $0 start|stop|run DIR ..." >&2; exit 2 ;;
esac
