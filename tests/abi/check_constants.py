#!/usr/bin/env python3
"""check_constants.py — Uzura's mpi.h against MPICH's standard-ABI header, value by value.

Collects every macro, enum constant and typedef name of both headers, has the
C compiler print each constant's value and size (and the sizes and field
offsets of the ABI's types) once under each header, and compares:

  * a constant both define must have the same value and size;
  * a type both define must have the same size (MPI_Status: same offsets);
  * every name MPICH's ABI header defines must exist in Uzura's
    (MPIX_* extensions excepted).

Names only Uzura defines are listed for information.  Exits 77 (SKIPPED)
when MPICH (tools/peers/install.sh mpich) is not installed.

  check_constants.py --source-dir DIR [--cc CC]
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from header_scan import Header  # noqa: E402

# Types whose layout the ABI fixes, and the fields of MPI_Status.
ABI_TYPES = ["MPI_Status", "MPI_Aint", "MPI_Count", "MPI_Offset", "MPI_Fint", "MPI_F08_status"]
STATUS_FIELDS = ["MPI_SOURCE", "MPI_TAG", "MPI_ERROR", "MPI_internal"]


def peers_dir():
    return Path(os.environ.get("UZURA_PEERS_DIR", Path.home() / ".cache/uzura/peers"))


def headers(source_dir, cc):
    mpich_inc = peers_dir() / "mpich" / "include"
    if not (mpich_inc / "mpi_abi.h").is_file():
        print(f"SKIPPED: MPICH's mpi_abi.h not found in {mpich_inc} "
              "(install it with tools/peers/install.sh mpich)")
        sys.exit(77)
    uzura = Header("Uzura", "mpi.h", [f"{source_dir}/include", f"{source_dir}/src/binding/gen"], cc)
    mpich = Header("MPICH", "mpi_abi.h", [str(mpich_inc)], cc)
    return uzura.scan(), mpich.scan()


def probe_program(h, names, types):
    """C source printing `name value size` for each constant, `sizeof(T) n` for types."""
    lines = ["#include <stddef.h>", "#include <stdint.h>", "#include <stdio.h>",
             f"#include <{h.include}>", "int main(void)", "{"]
    for n in sorted(names):
        lines.append(f'    printf("%s %lld %zu\\n", "{n}", (long long)(intptr_t)({n}), sizeof({n}));')
    for t in types:
        lines.append(f'    printf("sizeof(%s) - %zu\\n", "{t}", sizeof({t}));')
        if t == "MPI_Status":
            for f in STATUS_FIELDS:
                lines.append(f'    printf("offsetof(MPI_Status.{f}) - %zu\\n", offsetof(MPI_Status, {f}));')
    lines += ["    return 0;", "}"]
    return "\n".join(lines) + "\n"


def evaluate(h, names, types):
    """Compile and run the probe; returns {name: (value, size)}."""
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = Path(tmp, "probe.c"), Path(tmp, "probe")
        src.write_text(probe_program(h, names, types))
        cmd = [h.cc, "-w", "-o", str(exe), str(src)] + [f"-I{d}" for d in h.include_dirs]
        res = subprocess.run(cmd, capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(f"{h.label}: the probe program does not compile:\n{res.stderr}")
        out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    values = {}
    for line in out.splitlines():
        name, value, size = line.split(" ")
        values[name] = (value, size)
    return values


def show(value):
    v, size = value
    if v == "-":                    # a type's size or a field's offset
        return size
    return f"{v} (0x{int(v) & 0xffffffffffffffff:x}, {size} bytes)"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--cc", default="cc")
    args = ap.parse_args()

    uzura, mpich = headers(args.source_dir, args.cc)
    u_types = [t for t in ABI_TYPES if t in uzura.typedefs]
    m_types = [t for t in ABI_TYPES if t in mpich.typedefs]
    u_vals = evaluate(uzura, uzura.constants(), u_types)
    m_vals = evaluate(mpich, mpich.constants(), m_types)

    mismatches = [(n, u_vals[n], m_vals[n]) for n in sorted(set(u_vals) & set(m_vals))
                  if u_vals[n] != m_vals[n]]
    m_names = mpich.constants() | set(mpich.typedefs) | mpich.fn_macros
    u_names = uzura.constants() | set(uzura.typedefs) | uzura.fn_macros
    missing = sorted(n for n in m_names - u_names if not n.startswith("MPIX_"))
    only_uzura = sorted(u_names - m_names)
    common = set(u_vals) & set(m_vals)

    print(f"Uzura: {len(uzura.constants())} constants, {len(uzura.typedefs)} types; "
          f"MPICH mpi_abi.h: {len(mpich.constants())} constants, {len(mpich.typedefs)} types; "
          f"{len(common)} values compared")
    if only_uzura:
        print(f"\ninfo: {len(only_uzura)} names only Uzura defines: {' '.join(only_uzura)}")
    ignored = sorted(n for n in m_names - u_names if n.startswith("MPIX_"))
    if ignored:
        print(f"\ninfo: {len(ignored)} MPICH extensions not checked: {' '.join(ignored)}")
    if mismatches:
        width = max(len(n) for n, _, _ in mismatches)
        print(f"\nFAIL: {len(mismatches)} values differ:")
        print(f"  {'name':<{width}}  {'Uzura':<36}  MPICH")
        for n, u, m in mismatches:
            print(f"  {n:<{width}}  {show(u):<36}  {show(m)}")
    if missing:
        print(f"\nFAIL: {len(missing)} names MPICH's ABI header defines are missing from Uzura's mpi.h:")
        for n in missing:
            print(f"  {n}")
    if mismatches or missing:
        return 1
    print("\nok: every constant and type both headers define agrees")
    return 0


if __name__ == "__main__":
    sys.exit(main())
