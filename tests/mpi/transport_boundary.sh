#!/usr/bin/env bash
# transport_boundary.sh — the boundary between the request layer and the
# transports, as writing-a-transport.md states it:
#
#   - no transport includes a header of the request layer or above
#     (src/pt2pt/, src/coll/, src/rma/, src/io/, src/binding/);
#   - collectives reach no transport's own headers (only the interface,
#     transport/transport.h, through the request layer);
#   - no .c file of the request layer, the collectives or the transports
#     declares something of another file with an `extern` or a prototype of
#     its own instead of including the header that declares it;
#   - every folder under src/transport/ other than net/ (what networks
#     share) is a transport with a line in transport_list.h, and every
#     line names a folder.
#
#   transport_boundary.sh SOURCE_DIR
set -u
src=$1/src
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

bad=$(grep -rnE '#include "(pt2pt|coll|rma|io|binding)/' "$src/transport" || true)
[ -z "$bad" ] || fail "a transport includes a header from above it:"$'\n'"$bad"

bad=$(grep -rnE '#include "transport/' "$src/coll" | grep -v '"transport/transport.h"' || true)
[ -z "$bad" ] || fail "collectives include a transport's own header:"$'\n'"$bad"

# `extern` declarations, and prototypes at file scope (a line ending in ");"
# that starts with a type and is not static), in .c files.
bad=$(grep -nE '^extern |^(int|void|long|size_t|unsigned|const|struct [a-z_]+ \*?) ?[a-z_]+\(.*\);' \
      "$src"/pt2pt/*.c "$src"/coll/*.c "$src"/transport/*.c "$src"/transport/*/*.c || true)
[ -z "$bad" ] || fail "declarations of other files' symbols in .c files:"$'\n'"$bad"

list=$src/transport/transport_list.h
listed=$(sed -n 's/^UZ_TRANSPORT(\([a-z0-9_]*\),.*/\1/p' "$list")
for dir in "$src"/transport/*/; do
    name=$(basename "$dir")
    [ "$name" = net ] && continue
    grep -qx "$name" <<<"$listed" || fail "src/transport/$name/ has no line in transport_list.h"
    grep -rq "const struct uz_transport_ops uz_${name}_transport = {" "$dir" ||
        fail "src/transport/$name/ defines no uz_${name}_transport"
done
for name in $listed; do
    [ -d "$src/transport/$name" ] || fail "transport_list.h names $name, which has no folder"
done

[ $failures -eq 0 ] && echo "transport_boundary: passed ($(wc -w <<<"$listed") transports)"
[ $failures -eq 0 ]
