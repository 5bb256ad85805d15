#!/usr/bin/env python3
"""check_layers.py — every #include "..." of src/ against the layer table, src/layers.txt.

layers.txt lines read `layer: seen1 seen2 ...`: files under src/<layer>/ may
include "<seen>/..." for a listed layer and "<layer>/..." for their own.
The include roots the build gives each layer (src/CMakeLists.txt) hold the
transitive closure of that table, so the compiler alone lets core include a
transport header it only reaches through pt2pt; this check holds every file
to the direct table.  It reports an include that

  * escapes the include roots ("..", or an absolute path);
  * names a layer its file's layer does not list;
  * names a folder of src/ that layers.txt does not list (and every folder
    of src/ with .c files that layers.txt does not list);
  * names no folder of src/ at all (it would resolve against the including
    file's own folder, behind the include roots' back);
  * is a bare name ("uz_mpi_impl.h") outside src/binding/.

src/binding/fortran/ is skipped: its headers are included by bare name from
its own build.  Angle-bracket includes are not looked at.

  check_layers.py SRC_DIR

Prints `path:line: <layer> includes "<header>": <reason>` for each violation,
then `N files checked, M violations`; exits 1 on any violation.
"""

import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]*)"')
# Its headers are included by bare name from its own CMakeLists; not a layer.
SKIPPED = ("binding/fortran/",)
# Only the bindings include their generated headers by bare name.
BARE_NAMES_ALLOWED = ("binding",)


def read_layers(path):
    """Return ({layer: set(seen)}, [violation...]) from layers.txt."""
    table, order, problems = {}, [], []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                continue
            # src/CMakeLists.txt takes only lines matching this as layers
            # and ignores the rest: a line it would skip must not count here.
            m = re.match(r"([a-z0-9_]+):(.*)", line)
            if not m:
                problems.append(f"{path}:{n}: not `layer: seen...`, so the build ignores it")
                continue
            table[m.group(1)] = set(m.group(2).split())
            order.append((n, m.group(1)))
    # A typo in a seen list would silently forbid a legal include.
    for n, name in order:
        for seen in sorted(table[name] - table.keys()):
            problems.append(f"{path}:{n}: {name} sees {seen}, which is not a layer")
    return table, problems


def source_files(src):
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith((".c", ".h")):
                full = os.path.join(dirpath, name)
                rel = os.path.relpath(full, src).replace(os.sep, "/")
                if not rel.startswith(SKIPPED):
                    yield full, rel


def judge(layer, header, table, folders):
    """The reason `#include "header"` in LAYER breaks the layering, or None."""
    if header.startswith("/") or ".." in header.split("/"):
        return "escapes the include roots"
    if "/" not in header:
        if layer in BARE_NAMES_ALLOWED:
            return None
        return "a bare name; headers are included by layer path"
    first = header.split("/", 1)[0]
    if first in table:
        if layer is None or first == layer or first in table[layer]:
            return None
        sees = " ".join(sorted(table[layer])) or "no other layer"
        return f"{layer} may not include {first}/ (layers.txt: {layer} sees {sees})"
    if first in folders:
        return f"{first}/ is not a layer in layers.txt"
    return f"{first}/ is not a folder of src/"


def main(argv):
    if len(argv) != 2:
        print("usage: check_layers.py SRC_DIR", file=sys.stderr)
        return 2
    src = argv[1]
    table, violations = read_layers(os.path.join(src, "layers.txt"))
    folders = {d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d))}

    # A folder of code nobody registered gets no include root and no row.
    for folder in sorted(folders - table.keys()):
        has_c = any(f.endswith(".c") for _, _, files in os.walk(os.path.join(src, folder)) for f in files)
        if has_c:
            violations.append(f"{src}/{folder}/: has .c files but is not a layer in layers.txt")

    checked = 0
    for full, rel in source_files(src):
        checked += 1
        first = rel.split("/", 1)[0]
        # Files of an unregistered folder (reported above) have no row to
        # judge against, so only the rules that need none apply to them.
        layer = first if first in table else None
        with open(full, encoding="utf-8", errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                reason = judge(layer, m.group(1), table, folders)
                if reason:
                    violations.append(f'{full}:{n}: {layer or first} includes "{m.group(1)}": {reason}')

    for v in violations:
        print(v)
    print(f"{checked} files checked, {len(violations)} violations")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
