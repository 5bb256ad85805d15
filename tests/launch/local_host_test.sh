#!/usr/bin/env bash
# Tests of host lists that name this machine (mpiexec -host localhost,
# -host $(hostname), -host 127.0.0.1, a host file naming it): its ranks are
# forked by mpiexec itself, never through the remote shell.  One case per
# ctest; no root, namespaces or sshd needed.
#
# Every run has on its PATH an `ssh` that fails loudly and logs how it was
# called, so that any attempt to reach this host through ssh shows.  Other
# hosts are faked with `-launcher-exec $fake`: a launcher that logs the host
# it is asked for and runs the proxy here with UZ_FAKE_REMOTE=<host> in its
# environment, which the ranks it starts inherit.
#
#   local_host_test.sh CASE   with MPIEXEC, LAUNCH_RANK, PMI_KVS_CHECK and,
#                             for the mpi case, MPI_WHERE set
set -u
case_name=$1
: "${MPIEXEC:?}" "${LAUNCH_RANK:?}" "${PMI_KVS_CHECK:?}"
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE MPIEXEC_TIMEOUT UZ_FAKE_REMOTE
for v in $(compgen -e | grep '^UZURA_' || true); do unset "$v"; done

here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"

mkdir "$work/bin"
cat >"$work/bin/ssh" <<EOF
#!/bin/sh
echo "ssh \$*" >>"$work/ssh.log"
echo "fake ssh: refusing to connect to \$*" >&2
exit 255
EOF
chmod +x "$work/bin/ssh"
: >"$work/ssh.log"
export PATH=$work/bin:$PATH

fake=$work/fake_remote
cat >"$fake" <<EOF
#!/bin/sh
echo "\$1" >>"$work/launcher.log"
host=\$1
shift
exec env UZ_FAKE_REMOTE="\$host" "\$@"
EOF
chmod +x "$fake"
: >"$work/launcher.log"

# One line per rank: where it runs, whether a launcher was involved
# (via=<fake host> or via=here) and whether a proxy stands between it and
# the mpiexec we ran (proxy=yes/no).
where=$work/where.sh
cat >"$where" <<'EOF'
#!/bin/sh
case "$(tr '\0' ' ' <"/proc/$PPID/cmdline")" in
*--proxy*) proxy=yes ;;
*) proxy=no ;;
esac
echo "$PMI_RANK node=$UZURA_NODE_ID local=$UZURA_LOCAL_RANK/$UZURA_LOCAL_SIZE nodes=$UZURA_NUM_NODES via=${UZ_FAKE_REMOTE:-here} proxy=$proxy"
EOF
chmod +x "$where"

# What `where` prints for N ranks all on this host, started directly.
local_lines() {  # N
    local r
    for ((r = 0; r < $1; r++)); do
        echo "$r node=0 local=$r/$1 nodes=1 via=here proxy=no"
    done
}

expect_no_ssh() {
    [ ! -s "$work/ssh.log" ] || { fail "ssh was run: $(cat "$work/ssh.log")"; : >"$work/ssh.log"; }
}

expect_launched() {  # HOSTS (one per line, sorted; "" for none)
    [ "$(sort "$work/launcher.log")" == "$1" ] ||
        fail "the launcher was run for: $(sort "$work/launcher.log" | tr '\n' ' '), expected: $(tr '\n' ' ' <<<"$1")"
    : >"$work/launcher.log"
}

# The job on this host, as without a host list: 4 ranks, one node, no
# proxy, no ssh.
expect_local_job() {  # NAME...: each a spelling of this host for -host
    local name
    for name in "$@"; do
        run -host "$name" -n 4 "$where"
        expect_rc 0
        expect_stderr ""
        expect_sorted_stdout "$(local_lines 4)"
        expect_no_ssh
        [ $failures -eq 0 ] || { echo "(with -host $name)"; return; }
    done
}

# This machine's first address on an interface other than loopback.
interface_address() {  # 4|6
    if command -v ip >/dev/null; then
        ip -o "-$1" addr show scope global 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }'
    fi
}

case $case_name in
names)
    short=$(hostname)
    short=${short%%.*}
    expect_local_job localhost LocalHost localhost. "$(hostname)" "$short"
    fqdn=$(hostname -f 2>/dev/null)
    if [ -n "$fqdn" ]; then
        expect_local_job "$fqdn"
    fi
    # The PMI key-value space of a local job through -host.
    run -host localhost -n 4 "$PMI_KVS_CHECK" --expect-size 4
    expect_rc 0
    cpus=$(getconf _NPROCESSORS_ONLN)       # MPI_UNIVERSE_SIZE: at least the host's processors
    expect_stdout "pmi_kvs_check: 4 ranks ok (universe $((cpus > 4 ? cpus : 4)), appnum 0, server)"
    expect_no_ssh
    # Without -n: the host's slots, as with several hosts.
    run -hosts localhost:3 "$where"
    expect_rc 0
    expect_sorted_stdout "$(local_lines 3)"
    run -H localhost "$where"
    expect_sorted_stdout "$(local_lines 1)"
    expect_no_ssh
    ;;
addresses)
    expect_local_job 127.0.0.1 127.0.1.1 127.3.2.1
    v4=$(interface_address 4)
    if [ -n "$v4" ]; then
        expect_local_job "$v4"
    else
        echo "note ($case_name): no global IPv4 address on an interface; not checked"
    fi
    if [ -e /proc/net/if_inet6 ] && grep -q '^0\{31\}1 ' /proc/net/if_inet6; then
        expect_local_job "[::1]" ::1 "[::ffff:127.0.0.1]"
        run -hosts "[::1]:3" "$where"
        expect_rc 0
        expect_sorted_stdout "$(local_lines 3)"
        v6=$(interface_address 6)
        [ -n "$v6" ] && expect_local_job "[$v6]"
    else
        echo "note ($case_name): no IPv6 loopback; ::1 not checked"
    fi
    expect_no_ssh
    ;;
hostfile)
    # Every name of this host is one host: the slots add up.
    cat >"$work/hosts" <<EOF
# this machine, three ways
localhost slots=2
$(hostname):1
127.0.0.1
EOF
    run -hostfile "$work/hosts" "$where"
    expect_rc 0
    expect_stderr ""
    expect_sorted_stdout "$(local_lines 4)"
    run -f "$work/hosts" -n 6 "$where"
    expect_rc 0
    expect_sorted_stdout "$(local_lines 6)"
    printf '[::1] slots=2\n' >"$work/hosts6"
    if grep -q '^0\{31\}1 ' /proc/net/if_inet6 2>/dev/null; then
        run -machinefile "$work/hosts6" "$where"
        expect_rc 0
        expect_sorted_stdout "$(local_lines 2)"
    fi
    expect_no_ssh
    ;;
hostfile_errors)
    bad() {  # LINE EXPECTED_MESSAGE
        printf '%s\n' "# header" "$1" >"$work/bad"
        run -hostfile "$work/bad" true
        expect_rc 2
        expect_stderr "mpiexec: $work/bad:2: $2"
    }
    bad "[::1]:2 slots=3" "both 'host:N' and 'slots=N'"
    bad "[::1" "'[::1' is not a host name"
    bad "[::1]x" "'[::1]x' is not a host name"
    bad "[node1]" "'[node1]' is not a host name"
    bad "1::2::3" "'1::2::3' is not a host name"
    bad "[::1]:x" "'x' is not a number of slots"
    run -hosts "[::1]:0" true
    expect_rc 2
    expect_stderr "mpiexec: -hosts: '0' is not a number of slots"
    ;;
mixed)
    # This host's proxy is forked by mpiexec; only the other host goes
    # through the launcher.
    run -launcher-exec "$fake" -hosts localhost:2,far:2 -n 4 "$where"
    expect_rc 0
    expect_stderr ""
    expect_sorted_stdout "0 node=0 local=0/2 nodes=2 via=here proxy=yes
1 node=0 local=1/2 nodes=2 via=here proxy=yes
2 node=1 local=0/2 nodes=2 via=far proxy=yes
3 node=1 local=1/2 nodes=2 via=far proxy=yes"
    expect_launched "far"
    # Names of this host anywhere in the list are one host, in the place
    # of the first of them, whose slots add up.
    run -launcher-exec "$fake" -hosts far,127.0.0.1,away,localhost -n 4 "$where"
    expect_rc 0
    expect_sorted_stdout "0 node=0 local=0/1 nodes=3 via=far proxy=yes
1 node=1 local=0/2 nodes=3 via=here proxy=yes
2 node=1 local=1/2 nodes=3 via=here proxy=yes
3 node=2 local=0/1 nodes=3 via=away proxy=yes"
    expect_launched "away
far"
    run -launcher-exec "$fake" -hosts "$(hostname),far" -n 4 "$PMI_KVS_CHECK" --expect-size 4
    expect_rc 0
    expect_stdout "pmi_kvs_check: 4 ranks ok (universe 4, appnum 0, server)"
    expect_launched "far"
    expect_no_ssh
    ;;
ssh)
    # The default launcher, ssh, is run for the other host only (and fails
    # there, this being a fake ssh); never for this one.
    run -hosts "$(hostname),far" -n 2 "$LAUNCH_RANK" ok "$work"
    expect_rc 1
    grep -q "^mpiexec: cannot start the proxy on host far: the launcher exited with code 255$" "$err" ||
        { fail "the launcher's failure for far"; show; }
    [ "$(cat "$work/ssh.log")" == "ssh -x -o BatchMode=yes far $MPIEXEC --proxy" ] ||
        fail "ssh was run as: $(cat "$work/ssh.log")"
    : >"$work/ssh.log"
    [ -z "$(pgrep -f -- "$work")" ] || fail "processes left: $(pgrep -af -- "$work")"
    # And not at all when every host is this one.
    run -hosts "localhost,$(hostname),127.0.0.1" -n 3 "$where"
    expect_rc 0
    expect_sorted_stdout "$(local_lines 3)"
    expect_no_ssh
    ;;
ppn)
    # As Hydra: without hosts the host list is this host.
    run -ppn 3 "$where"
    expect_rc 0
    expect_stderr ""
    expect_sorted_stdout "$(local_lines 3)"
    run -ppn 2 -n 5 "$where"
    expect_rc 0
    expect_sorted_stdout "$(local_lines 5)"
    run -npernode 2 -host localhost -n 4 "$where"
    expect_rc 0
    expect_sorted_stdout "$(local_lines 4)"
    # -ppn N overrides the slots; hosts are filled in order, round again.
    run -launcher-exec "$fake" -hosts localhost:5,far -ppn 2 -n 6 "$where"
    expect_rc 0
    expect_sorted_stdout "0 node=0 local=0/4 nodes=2 via=here proxy=yes
1 node=0 local=1/4 nodes=2 via=here proxy=yes
2 node=1 local=0/2 nodes=2 via=far proxy=yes
3 node=1 local=1/2 nodes=2 via=far proxy=yes
4 node=0 local=2/4 nodes=2 via=here proxy=yes
5 node=0 local=3/4 nodes=2 via=here proxy=yes"
    run -launcher-exec "$fake" -hosts localhost,far -ppn 2 "$where"
    expect_rc 0
    [ "$(wc -l <"$out")" -eq 4 ] || { fail "-hosts localhost,far -ppn 2 without -n: 4 ranks"; show; }
    expect_launched "far
far"
    expect_no_ssh
    ;;
mpi)
    # An MPI program across this host's forked proxy and a "remote" one.
    [ -n "${MPI_WHERE:-}" ] || { echo "SKIPPED: the MPI library is not built"; exit 77; }
    run -host localhost -n 4 --timeout 20 "$MPI_WHERE"
    expect_rc 0
    expect_sorted_stdout "rank 0 of 4: node 0, local rank 0 of 4
rank 1 of 4: node 0, local rank 1 of 4
rank 2 of 4: node 0, local rank 2 of 4
rank 3 of 4: node 0, local rank 3 of 4
ring ok, sum 6"
    run -launcher-exec "$fake" -hosts "127.0.0.1:2,far:2" -n 4 --timeout 20 "$MPI_WHERE"
    expect_rc 0
    expect_sorted_stdout "rank 0 of 4: node 0, local rank 0 of 2
rank 1 of 4: node 0, local rank 1 of 2
rank 2 of 4: node 1, local rank 0 of 2
rank 3 of 4: node 1, local rank 1 of 2
ring ok, sum 6"
    expect_launched "far"
    expect_no_ssh
    ;;
*)
    echo "local_host_test.sh: unknown case '$case_name'"
    exit 2
    ;;
esac
finish
