#!/usr/bin/env bash
# spawn_under_hydra.sh — MPI_Comm_spawn and spawn_multiple with MPICH's
# Hydra as the process manager (its PMI-1 server takes our mcmd=spawn
# blocks): the children start, connect back and compute with their parents.
#
#   spawn_under_hydra.sh DYNPROC_SPAWN NP
# Exits 77 (ctest: skipped) when the peer MPICH is not installed.
set -u
prog=$1 np=$2
hydra=${UZURA_PEERS_DIR:-$HOME/.cache/uzura/peers}/mpich/bin/mpiexec.hydra
if [ ! -x "$hydra" ]; then
    echo "SKIPPED: MPICH's Hydra not found at $hydra (run tools/peers/install.sh mpich)"
    exit 77
fi
# Our own launcher's variables must not leak in if the tests run under it.
unset PMI_FD PMI_PORT PMI_ID PMI_RANK PMI_SIZE
out=$(DYNPROC_SPAWN_GOOD_ONLY=1 timeout 120 "$hydra" -n "$np" "$prog" 2>&1)
rc=$?
echo "$out"
for want in "child: passed (0 failures, 3 ranks)" "childA: passed (0 failures, 3 ranks)" \
            "dynproc_spawn: passed (0 failures, $np ranks)"; do
    if ! grep -qxF "$want" <<<"$out"; then
        echo "FAIL: hydra -n $np exited $rc; missing line: $want"
        exit 1
    fi
done
[ $rc -eq 0 ] || { echo "FAIL: hydra -n $np exited $rc"; exit 1; }
echo "ok: spawn under Hydra at np $np"
