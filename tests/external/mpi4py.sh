#!/usr/bin/env bash
# mpi4py.sh — build mpi4py from its PyPI sdist against Uzura and run
# mpi4py's own test suite (test/main.py) under Uzura's mpiexec at N = 1, 2
# and 4, then `python -m mpi4py.bench helloworld` and `ringtest` at N = 4.
#
#   tests/external/mpi4py.sh [--build-dir DIR] [--np "1 2 4"] [--prepare]
#                            [--write-docs] [--keep-going]
#
#   --build-dir DIR  Uzura's build tree (default $UZ_BUILD_DIR, else ./build)
#   --np LIST        the process counts to run (default "1 2 4")
#   --prepare        only build and cache mpi4py (what .ci/run does ahead)
#   --write-docs     also write docs/conformance.md from this run
#
# mpi4py is built once per (mpi4py version, Uzura mpi.h) into a venv under
# ${UZURA_CACHE:-~/.cache/uzura}/mpi4py, by the installed Uzura's mpicc.
# Because mpi.h is the MPI standard ABI, the same build runs on any later
# Uzura library: the tests put this build tree's lib/ first in
# LD_LIBRARY_PATH (which overrides the extension's RUNPATH), so they
# always test the library just built.
#
# Exclusions are by chapter only, for chapters docs/api-coverage.md lists
# as not implemented yet; they are in mpi4py_excludes.txt beside this file,
# each with its chapter.  When PyPI cannot be reached (and nothing is
# cached) the script prints "SKIPPED: <reason>" and exits 77.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=${UZ_SOURCE_DIR:-$(cd "$here/../.." && pwd)}
build=${UZ_BUILD_DIR:-$src/build}
nps="1 2 4"
prepare_only=0
write_docs=0
while [ $# -gt 0 ]; do
    case $1 in
        --build-dir) build=$2; shift 2 ;;
        --np) nps=$2; shift 2 ;;
        --prepare) prepare_only=1; shift ;;
        --write-docs) write_docs=1; shift ;;
        -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
        *) echo "mpi4py.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
build=$(cd "$build" 2>/dev/null && pwd) || { echo "mpi4py.sh: no build tree at $build" >&2; exit 2; }
[ -x "$build/bin/mpiexec" ] || { echo "SKIPPED: $build/bin/mpiexec is not built"; exit 77; }

spec='mpi4py>=4.1,<4.2'
cache=${UZURA_CACHE:-$HOME/.cache/uzura}/mpi4py
work=$build/tests/external/mpi4py
mkdir -p "$cache" "$work"
start=$SECONDS
say() { printf '[mpi4py %4ds] %s\n' $((SECONDS - start)) "$*"; }
skip() { echo "SKIPPED: $*"; exit 77; }

# ------------------------------------------------------------- the venv
# Its pip does the downloads too: Debian's python3 may come without pip.
venv=$cache/venv
key_of() { echo "mpi4py $1, mpi.h $(sha256sum "$src/include/mpi.h" | cut -c1-16), $(python3 -V 2>&1)"; }
if [ ! -x "$venv/bin/pip" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >"$work/venv.log" 2>&1 ||
        skip "cannot create a Python venv (Debian: apt-get install python3-venv)"
fi
pip=("$venv/bin/pip" --disable-pip-version-check)

# ------------------------------------------------------------ the sdist
# The newest cached sdist of the series, else one from PyPI.
find_sdist() { ls -1 "$cache"/mpi4py-4.1.*.tar.gz 2>/dev/null | sort -V | tail -n1; }
pypi_check() {
    local index=${PIP_INDEX_URL:-https://pypi.org/simple}
    "$venv/bin/python" - "$index" <<'PY' 2>&1
import sys, urllib.request
try:
    urllib.request.urlopen(sys.argv[1].rstrip("/") + "/mpi4py/", timeout=15).read(1)
except Exception as e:
    print(f"{sys.argv[1]}: {e}")
    sys.exit(1)
PY
}
sdist=$(find_sdist)
if [ -z "$sdist" ]; then
    why=$(pypi_check) || skip "PyPI is not reachable ($why)"
    say "downloading the $spec sdist from PyPI"
    if ! "${pip[@]}" download --quiet --no-deps --no-binary mpi4py -d "$cache" "$spec" \
            >"$work/download.log" 2>&1; then
        tail -n 5 "$work/download.log"
        skip "could not download $spec from PyPI (see $work/download.log)"
    fi
    sdist=$(find_sdist)
    [ -n "$sdist" ] || skip "pip download gave no mpi4py 4.1 sdist"
fi
version=$(basename "$sdist" .tar.gz); version=${version#mpi4py-}
tree=$cache/mpi4py-$version
if [ ! -f "$tree/test/main.py" ]; then
    rm -rf "$tree" && tar -xzf "$sdist" -C "$cache" || { echo "cannot unpack $sdist" >&2; exit 1; }
fi

# ---------------------------------------------------- the build (cached)
key=$(key_of "$version")
if [ "$(cat "$venv/.uzura-key" 2>/dev/null)" != "$key" ]; then
    why=$(pypi_check) || skip "PyPI is not reachable to build mpi4py ($why)"
    say "building mpi4py $version against Uzura (several minutes; cached afterwards)"
    prefix=$work/prefix
    rm -rf "$prefix" "$venv/.uzura-key"
    cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
        { cat "$work/install.log"; echo "cmake --install failed" >&2; exit 1; }
    # No wheel cache: a wheel built against another mpi.h must not be reused.
    if ! MPICC=$prefix/bin/mpicc "${pip[@]}" install --no-cache-dir --force-reinstall \
            --no-binary mpi4py "$sdist" >"$work/build.log" 2>&1; then
        tail -n 30 "$work/build.log"
        echo "FAIL: building mpi4py against Uzura failed (see $work/build.log)"
        exit 1
    fi
    echo "$key" >"$venv/.uzura-key"
    say "mpi4py $version built"
fi
[ "$prepare_only" = 1 ] && { say "prepared: $venv"; exit 0; }

# ---------------------------------------------------------------- runs
export LD_LIBRARY_PATH=$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$build/bin:$PATH
py=$venv/bin/python
mpiexec=$build/bin/mpiexec
# mpi4py's suite tests Python objects, not the MPI library's speed; a
# rank that waits longer than this is hung.
run_timeout=${UZ_MPI4PY_TIMEOUT:-600}

excl_args=()
while IFS='|' read -r kind what _chapter _reason; do
    kind=$(echo "$kind" | xargs); what=$(echo "$what" | xargs)
    case $kind in
        module) excl_args+=(-e "^${what}\\.py\$") ;;
        test) excl_args+=(-x "$what") ;;
    esac
done < <(grep -vE '^\s*(#|$)' "$here/mpi4py_excludes.txt")

status=0
results=$work/results.txt
: >"$results"
for n in $nps; do
    say "mpiexec -n $n python test/main.py"
    rm -f "$work"/n$n.rank*.log
    t0=$SECONDS
    # Each rank writes its own log, so that the summaries do not interleave.
    "$mpiexec" -n "$n" --timeout "$run_timeout" \
        sh -c 'exec "$0" "$@" >"'"$work"'/n'"$n"'.rank$PMI_RANK.log" 2>&1' \
        "$py" "$tree/test/main.py" -v "${excl_args[@]}"
    rc=$?
    secs=$((SECONDS - t0))
    line=$(python3 "$here/mpi4py_summary.py" count "$n" "$rc" "$secs" "$work"/n$n.rank*.log)
    echo "$line" >>"$results"
    python3 "$here/mpi4py_summary.py" show "$line"
    case $line in *"result=ok "*) ;; *) status=1; python3 "$here/mpi4py_summary.py" failures "$work"/n$n.rank*.log ;; esac
done

# -------------------------------------------------------------- benches
for bench in helloworld ringtest; do
    out=$work/bench-$bench.log
    if "$mpiexec" -n 4 --timeout 120 "$py" -m mpi4py.bench $bench >"$out" 2>&1 &&
            python3 "$here/mpi4py_summary.py" bench "$bench" "$out"; then
        echo "bench $bench: ok ($(head -n1 "$out"))"
        echo "bench $bench ok" >>"$results"
    else
        echo "bench $bench: FAIL"; cat "$out"
        echo "bench $bench FAIL" >>"$results"
        status=1
    fi
done

python3 "$here/mpi4py_summary.py" total "$results" "$version" $((SECONDS - start))
if [ "$write_docs" = 1 ]; then
    # How many tests each exclusion leaves out: mpi4py loads them in one
    # process (a singleton MPI job).
    (cd "$tree/test" && timeout 120 "$py" "$here/mpi4py_summary.py" count-excluded . \
        "$here/mpi4py_excludes.txt" >"$work/excluded.txt" 2>"$work/excluded.log")
    python3 "$here/mpi4py_summary.py" docs "$results" "$version" "$here/mpi4py_excludes.txt" \
        "$work/excluded.txt" >"$src/docs/conformance.md"
    say "wrote $src/docs/conformance.md"
fi
exit $status
