#!/usr/bin/env bash
# Fails when a generated file (src/binding/gen/, docs/api-coverage.md) is
# not what tools/gen/gen_c_bindings.py makes from the current sources: an
# implementation added without regenerating, or a hand edit.  Needs
# pympistandard (tools/peers/install.sh tools installs it).
set -uo pipefail
root=$1
peers=${UZURA_PEERS_DIR:-$HOME/.cache/uzura/peers}
for py in "$peers/tools/bin/python" python3; do
    if "$py" -c 'import pympistandard' 2>/dev/null; then
        exec "$py" "$root/tools/gen/gen_c_bindings.py" --check --root "$root"
    fi
done
echo "SKIPPED: pympistandard is not installed (run tools/peers/install.sh tools)"
exit 77
