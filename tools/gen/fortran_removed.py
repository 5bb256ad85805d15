"""fortran_removed.py — the Fortran forms of the MPI-1 procedures MPI-3.0
removed, which Uzura keeps for old programs (the C ones: mpi_api.REMOVED_MPI1).

The standard's data no longer has them, so their MPI-1 bindings are written
here: every address, displacement, stride and extent is a default INTEGER
(which is why they were removed: it cannot hold a 64-bit address).  `use mpi`
declares all of them and mpif.h the one with a choice buffer (MPI_ADDRESS),
as for the other procedures; mpi_f08, which came after the removal, has none.
Their entry points (mpi_address_, pmpi_address_, ...) are written by hand in
src/binding/fortran/glue/removed_mpi1.c.
"""

# (name, [(dummy, type)]); "choice" is a buffer of any type, "(*)" an array.
REMOVED = [
    ("MPI_ADDRESS", [("LOCATION", "choice"), ("ADDRESS", "INTEGER")]),
    ("MPI_ERRHANDLER_CREATE", [("FUNCTION", "EXTERNAL"), ("ERRHANDLER", "INTEGER")]),
    ("MPI_ERRHANDLER_GET", [("COMM", "INTEGER"), ("ERRHANDLER", "INTEGER")]),
    ("MPI_ERRHANDLER_SET", [("COMM", "INTEGER"), ("ERRHANDLER", "INTEGER")]),
    ("MPI_TYPE_EXTENT", [("DATATYPE", "INTEGER"), ("EXTENT", "INTEGER")]),
    ("MPI_TYPE_HINDEXED", [("COUNT", "INTEGER"), ("ARRAY_OF_BLOCKLENGTHS(*)", "INTEGER"),
                           ("ARRAY_OF_DISPLACEMENTS(*)", "INTEGER"), ("OLDTYPE", "INTEGER"),
                           ("NEWTYPE", "INTEGER")]),
    ("MPI_TYPE_HVECTOR", [("COUNT", "INTEGER"), ("BLOCKLENGTH", "INTEGER"), ("STRIDE", "INTEGER"),
                          ("OLDTYPE", "INTEGER"), ("NEWTYPE", "INTEGER")]),
    ("MPI_TYPE_LB", [("DATATYPE", "INTEGER"), ("DISPLACEMENT", "INTEGER")]),
    ("MPI_TYPE_STRUCT", [("COUNT", "INTEGER"), ("ARRAY_OF_BLOCKLENGTHS(*)", "INTEGER"),
                         ("ARRAY_OF_DISPLACEMENTS(*)", "INTEGER"), ("ARRAY_OF_TYPES(*)", "INTEGER"),
                         ("NEWTYPE", "INTEGER")]),
    ("MPI_TYPE_UB", [("DATATYPE", "INTEGER"), ("DISPLACEMENT", "INTEGER")]),
]


def _dummy(decl):
    return decl.split("(")[0]


def module_interfaces():
    """Interface bodies for `use mpi` (free form)."""
    lines = []
    for name, params in REMOVED:
        dummies = [_dummy(d) for d, _ in params] + ["IERROR"]
        lines += [f"      SUBROUTINE {name}({', '.join(dummies)})", "      IMPORT", "      IMPLICIT NONE"]
        ints = [d for d, t in params if t == "INTEGER"] + ["IERROR"]
        for d, t in params:
            if t == "choice":
                lines += [f"!GCC$ ATTRIBUTES NO_ARG_CHECK :: {d}", f"      TYPE(*), DIMENSION(*) :: {d}"]
            elif t == "EXTERNAL":
                lines.append(f"      EXTERNAL {d}")
        lines.append(f"      INTEGER :: {', '.join(ints)}")
        lines.append("      END SUBROUTINE")
    return lines


def mpif_interfaces():
    """Interface bodies for mpif.h (fixed form, short dummies): only the
    procedures with choice buffers, as mpif.h declares the others none."""
    lines = []
    for name, params in REMOVED:
        if not any(t == "choice" for _, t in params):
            continue
        letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:len(params) + 1]
        lines += [f"      SUBROUTINE {name}({','.join(letters)})", "      IMPLICIT NONE"]
        for (d, t), x in zip(params, letters):
            if t == "choice":
                lines += [f"!GCC$ ATTRIBUTES NO_ARG_CHECK :: {x}", f"      TYPE(*), DIMENSION(*) :: {x}"]
            else:
                lines.append(f"      {t} {x}")
        lines += [f"      INTEGER {letters[-1]}", "      END SUBROUTINE"]
    return lines
