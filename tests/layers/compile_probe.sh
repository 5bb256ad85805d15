#!/usr/bin/env bash
# compile_probe.sh — the layers' include roots stop an upward #include at
# compile time, not only in check_layers.py's eyes.
#
# Each probe_<name>.c includes one header and is compiled (-fsyntax-only)
# the way src/CMakeLists.txt compiles its layer: that layer's root under
# build/layer_include/, include/ and the public prototypes folder.  The
# upward probes must fail with "No such file" for the header they name; the
# legal ones must compile, so that the upward ones are seen to fail for
# their include and nothing else.  The roots are made at configure time, so
# nothing has to be built.
#
#   compile_probe.sh CC LAYER_INCLUDE_DIR INCLUDE_DIR
set -u
if [ $# -ne 3 ]; then
    echo "usage: compile_probe.sh CC LAYER_INCLUDE_DIR INCLUDE_DIR" >&2
    exit 2
fi
cc=$1 roots=$2 include=$3
here=$(cd "$(dirname "$0")" && pwd)
failures=0

# probe LAYER NAME HEADER fail|pass
probe() {
    local layer=$1 name=$2 header=$3 want=$4 out rc
    local src=$here/probe_$name.c
    if [ ! -d "$roots/$layer" ]; then
        echo "FAIL: $name: no include root $roots/$layer (was the build configured?)"
        failures=$((failures + 1)); return
    fi
    # A forbidden header that no longer exists would fail anywhere: such a
    # probe proves nothing about the roots, so it must be updated.
    if [ "$want" = fail ] && [ ! -e "$roots/${header%%/*}/$header" ]; then
        echo "FAIL: $name: $header is not in ${header%%/*}'s own root; update probe_$name.c"
        failures=$((failures + 1)); return
    fi
    out=$("$cc" -fsyntax-only -D_GNU_SOURCE -I"$roots/$layer" -I"$include" -I"$roots/public" \
          "$src" 2>&1)
    rc=$?
    if [ "$want" = fail ]; then
        if [ $rc -ne 0 ] && grep -q "$header.*No such file" <<<"$out"; then
            echo "PASS: $name: $layer cannot include \"$header\""
        else
            echo "FAIL: $name: $layer's root should not reach \"$header\" (exit $rc):"
            echo "$out"
            failures=$((failures + 1))
        fi
    else
        if [ $rc -eq 0 ]; then
            echo "PASS: $name: $layer includes \"$header\""
        else
            echo "FAIL: $name: $layer should compile with \"$header\" (exit $rc):"
            echo "$out"
            failures=$((failures + 1))
        fi
    fi
}

probe transport transport_up   pt2pt/request.h       fail
probe base      base_core      core/comm.h           fail
probe base      base_pt2pt     pt2pt/pt2pt.h         fail
probe transport transport_own  transport/transport.h pass
probe pt2pt     pt2pt_own      pt2pt/pt2pt.h         pass

[ $failures -eq 0 ] || { echo "$failures probes failed"; exit 1; }
echo "all probes behaved"
