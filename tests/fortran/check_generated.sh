#!/usr/bin/env bash
# Fails when a generated Fortran file (src/binding/fortran/gen/) is not what
# tools/gen/gen_fortran.py makes from the standard's data and include/mpi.h:
# a constant added to mpi.h without `make gen`, or a hand edit.  Needs
# pympistandard (tools/peers/install.sh tools installs it).
set -uo pipefail
root=$1
peers=${UZURA_PEERS_DIR:-$HOME/.cache/uzura/peers}
for py in "$peers/tools/bin/python" python3; do
    if "$py" -c 'import pympistandard' 2>/dev/null; then
        exec "$py" "$root/tools/gen/gen_fortran.py" --check --root "$root"
    fi
done
echo "SKIPPED: pympistandard is not installed (run tools/peers/install.sh tools)"
exit 77
