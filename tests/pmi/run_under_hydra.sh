#!/usr/bin/env bash
# Runs pmi_kvs_check under MPICH's Hydra (the peer installed by
# tools/peers/install.sh) and checks its output exactly: the PMI client must
# work against a process manager that is not our own.
#
#   run_under_hydra.sh PMI_KVS_CHECK NP [hydra options...]
# Exits 77 (ctest: skipped) when the peer mpiexec is not installed.
set -u
check=$1 np=$2
shift 2
hydra=${UZURA_PEERS_DIR:-$HOME/.cache/uzura/peers}/mpich/bin/mpiexec.hydra
if [ ! -x "$hydra" ]; then
    echo "SKIPPED: MPICH's Hydra not found at $hydra (run tools/peers/install.sh mpich)"
    exit 77
fi
# Our own launcher's variables must not leak in if the tests run under it.
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE
out=$(timeout 60 "$hydra" "$@" -n "$np" "$check" --expect-size "$np" 2>&1)
rc=$?
want="pmi_kvs_check: $np ranks ok (universe $np, appnum 0, server)"
if [ $rc -ne 0 ] || [ "$out" != "$want" ]; then
    echo "FAIL: hydra $* -n $np exited $rc"
    echo "--- got:"; echo "$out"
    echo "--- wanted:"; echo "$want"
    exit 1
fi
echo "ok: $out"
