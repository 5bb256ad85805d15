#!/usr/bin/env python3
"""check_prototypes.py — Uzura's procedures against MPICH's standard-ABI header, signature by signature.

Every MPI_* and PMPI_* procedure that MPICH's mpi_abi.h declares must be
declared by Uzura's mpi.h (Uzura may declare more, e.g. the c2f/f2c
conversions), with the same return type and parameter types once names,
const and spacing are ignored and T[] is read as T*.  The callback typedefs
(MPI_User_function, ...) are compared the same way, and handle typedefs must
name the same incomplete struct.  MPIX_* extensions are not compared.
Exits 77 (SKIPPED) when MPICH is not installed.

  check_prototypes.py --source-dir DIR [--cc CC]
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_constants import headers  # noqa: E402
from header_scan import _prototype, normalize_type  # noqa: E402


def signature(ret, params):
    return f"{ret} ({', '.join(params)})"


def typedef_shape(stmt, name):
    """A typedef reduced to what the ABI fixes: a function signature, a handle's
    struct tag, or None for the rest (their sizes are checked by abi.constants)."""
    m = re.match(r"typedef (.+?)\(\s*\*?\s*" + name + r"\s*\)\s*\((.*)\)$", stmt)
    if m:
        proto = _prototype(f"{m.group(1)} {name}({m.group(2)})")
        return "function " + signature(*proto[1:])
    m = re.match(r"typedef struct (\w+)\s*\*\s*" + name + "$", stmt)
    if m:
        return f"pointer to struct {m.group(1)}"
    m = re.match(r"typedef (\w+_function) " + name + "$", stmt)
    if m:                   # MPI_Comm_errhandler_fn and the like
        return f"alias of {m.group(1)}"
    return None


def compare_procedures(uzura, mpich):
    wanted = {n for n in mpich.prototypes if not n.startswith(("MPIX_", "PMPIX_"))}
    missing = sorted(wanted - set(uzura.prototypes))
    differ = []
    for name in sorted(wanted & set(uzura.prototypes)):
        u, m = uzura.prototypes[name], mpich.prototypes[name]
        if u != m:
            differ.append((name, signature(*u), signature(*m)))
    return len(wanted), missing, differ


def compare_typedefs(uzura, mpich):
    differ, compared = [], 0
    for name in sorted(set(mpich.typedefs) & set(uzura.typedefs)):
        m = typedef_shape(mpich.typedefs[name], name)
        if m is None:
            continue
        compared += 1
        u = typedef_shape(uzura.typedefs[name], name)
        if u != m:
            differ.append((name, u or normalize_type(uzura.typedefs[name]), m))
    return compared, differ


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--cc", default="cc")
    args = ap.parse_args()

    uzura, mpich = headers(args.source_dir, args.cc)
    nprocs, missing, differ = compare_procedures(uzura, mpich)
    ntypes, tdiffer = compare_typedefs(uzura, mpich)
    extra = sorted(set(uzura.prototypes) - set(mpich.prototypes))

    print(f"MPICH mpi_abi.h declares {nprocs} MPI_/PMPI_ procedures; Uzura's mpi.h "
          f"{len(uzura.prototypes)}; {ntypes} callback/handle typedefs compared")
    if extra:
        print(f"\ninfo: {len(extra)} procedures only Uzura declares: {' '.join(extra)}")
    for title, rows in (("procedures", differ), ("typedefs", tdiffer)):
        if rows:
            print(f"\nFAIL: {len(rows)} {title} differ:")
            for name, u, m in rows:
                print(f"  {name}\n    Uzura: {u}\n    MPICH: {m}")
    if missing:
        print(f"\nFAIL: {len(missing)} procedures MPICH declares are missing from Uzura's mpi.h:")
        for n in missing:
            print(f"  {n}")
    if differ or tdiffer or missing:
        return 1
    print("\nok: every procedure and callback type MPICH's ABI header declares matches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
