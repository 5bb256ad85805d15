"""mpi_api.py — the MPI procedures as the generators see them.

Loads the MPI Forum's machine-readable API (the `pympistandard` package) and
turns each ISO C procedure, and its large-count ("_c") twin, into a small
record: name, return type, and parameters with their kind, direction, C
declaration and shape; and adds the MPI-1 procedures MPI-3.0 removed
(REMOVED_MPI1), which Uzura keeps as extensions.  Generators for C (and later Fortran) work from these
records, never from pympistandard directly, so errata in the data are fixed
in one place (ERRATA below).
"""

from dataclasses import dataclass, field, replace
from typing import List, Optional

PYMPISTANDARD_VERSION = "0.2.0"

# Declarations the standard's data gets wrong, by procedure and parameter.
ERRATA = {
    # The data says "char argv[]"; the standard (and every mpi.h) has char *argv[].
    ("MPI_Info_create_env", "argv"): "char *argv[]",
}


# Array parameters that may be given a special constant instead of an array
# (MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY are small non-null pointers): declared
# as pointers, because GCC warns when a "[]" parameter receives one.
POINTER_NOT_ARRAY = {"sourceweights", "destweights", "weights"}

# Arguments the standard makes significant only at the root that the data
# does not mark so: non-root processes commonly pass NULL there.
ROOT_ONLY = {
    ("MPI_Comm_accept", "port_name"), ("MPI_Comm_connect", "port_name"),
    ("MPI_Comm_spawn", "command"), ("MPI_Comm_spawn", "argv"), ("MPI_Comm_spawn", "maxprocs"),
    ("MPI_Comm_spawn_multiple", "count"), ("MPI_Comm_spawn_multiple", "array_of_commands"),
    ("MPI_Comm_spawn_multiple", "array_of_argv"), ("MPI_Comm_spawn_multiple", "array_of_maxprocs"),
    ("MPI_Comm_spawn_multiple", "array_of_info"),
}


@dataclass
class Param:
    name: str
    kind: str              # the standard's kind, e.g. COMMUNICATOR, POLYXFER_NUM_ELEM_NNI
    direction: str         # in, out, inout
    decl: str              # full C declaration, e.g. "const int sendcounts[]"
    ctype: str             # declaration without the name, e.g. "const int *"
    pointer_level: int     # '*'s in the type (arrays excluded)
    is_array: bool         # declared with [] (or a length in the standard)
    is_varargs: bool = False
    root_only: bool = False  # significant only at the root of a collective

    @property
    def is_scalar(self) -> bool:
        return not self.is_array and not self.is_varargs


@dataclass
class Proc:
    name: str                   # "MPI_Send", "MPI_Send_c"
    return_type: str            # "int", "double", "MPI_Comm", ...
    return_kind: str            # ERROR_CODE, WALL_TIME, ...
    params: List[Param]
    small: Optional["Proc"] = None  # for a _c procedure, its int-count twin
    big: Optional["Proc"] = None    # for an int-count procedure, its _c twin
    deprecated: bool = False
    removed_for: Optional[str] = None   # an MPI-1 procedure MPI-3.0 removed: its replacement

    @property
    def short(self) -> str:     # "Send", "Send_c", "T_cvar_read"
        return self.name[len("MPI_"):]

    @property
    def returns_error_code(self) -> bool:
        return self.return_type == "int" and self.return_kind in ("ERROR_CODE", "ERROR_CLASS")

    def prototype(self, name: Optional[str] = None) -> str:
        args = ", ".join(p.decl for p in self.params) or "void"
        return f"{self.return_type} {name or self.name}({args})"


def _param(proc_name, p) -> Param:
    ps = p._parseset
    kind = ps["kind"]
    if kind == "VARARGS":
        return Param("...", kind, "in", "...", "...", 0, False, True)
    name = ps["name"]
    decl = ERRATA.get((proc_name, name)) or str(p)
    # Split "const MPI_Count* counts[]" into type, name and array suffix, and
    # put the stars next to the name as the rest of the project writes them.
    head, _, tail = decl.rpartition(name)
    arrays = tail.strip()
    stars = head.count("*")
    base = " ".join(head.replace("*", " ").split())
    decl = f"{base} {'*' * stars}{name}{arrays}"
    if name in POINTER_NOT_ARRAY and arrays == "[]":
        decl = f"{base} {'*' * (stars + 1)}{name}"
    ctype = f"{base} {'*' * stars}".strip() if not arrays else f"{base} {'*' * (stars + 1)}"
    return Param(name, kind, ps["param_direction"], decl, ctype, stars, bool(arrays),
                 root_only=bool(ps.get("root_only")) or (proc_name, name) in ROOT_ONLY)


def _render(proc_name, iso) -> Proc:
    text = str(iso)
    ret = text[: text.index(" ")]
    params = [_param(proc_name, p) for p in iso.parameters]
    return Proc(name=iso.name, return_type=ret, return_kind=iso._parseset["return_kind"], params=params)


# The MPI-1 procedures MPI-3.0 removed that MPICH still provides, so that old
# programs build: (name, replacement, the replacement's parameters it keeps,
# renamed).  The standard's data no longer has them; each is its replacement
# with another name (and, for Type_extent/lb/ub, one of its outputs).  Their
# arrays are declared const like the replacement's, which accepts every
# argument the MPI-1 prototypes did.
REMOVED_MPI1 = [
    ("MPI_Address", "MPI_Get_address", None),
    ("MPI_Errhandler_create", "MPI_Comm_create_errhandler", None),
    ("MPI_Errhandler_get", "MPI_Comm_get_errhandler", None),
    ("MPI_Errhandler_set", "MPI_Comm_set_errhandler", None),
    ("MPI_Type_extent", "MPI_Type_get_extent", {"datatype": "datatype", "extent": "extent"}),
    ("MPI_Type_hindexed", "MPI_Type_create_hindexed", None),
    ("MPI_Type_hvector", "MPI_Type_create_hvector", None),
    ("MPI_Type_lb", "MPI_Type_get_extent", {"datatype": "datatype", "lb": "displacement"}),
    ("MPI_Type_struct", "MPI_Type_create_struct", None),
    ("MPI_Type_ub", "MPI_Type_get_extent", {"datatype": "datatype", "extent": "displacement"}),
]


def _removed(name, template: Proc, keep) -> Proc:
    params = []
    for p in template.params:
        if keep is not None and p.name not in keep:
            continue
        new = keep[p.name] if keep is not None else p.name
        head, _, tail = p.decl.rpartition(p.name)
        params.append(replace(p, name=new, decl=head + new + tail))
    return Proc(name=name, return_type=template.return_type, return_kind=template.return_kind,
                params=params, removed_for=template.name)


def load() -> List[Proc]:
    """Every C procedure of the standard, int-count and large-count, sorted."""
    import pympistandard as std

    if std.__version__ != PYMPISTANDARD_VERSION:
        raise SystemExit(
            f"pympistandard {std.__version__} found; the generated files are made "
            f"with {PYMPISTANDARD_VERSION} (pip install pympistandard=={PYMPISTANDARD_VERSION})")
    std.use_api_version(1)
    procs = []
    for p in std.all_iso_c_procedures():
        attrs = p._parseset["attributes"]
        if attrs["callback"] or attrs.get("predefined_function"):
            continue
        small = _render(p.express.iso_c.name, p.express.iso_c)
        small.deprecated = bool(attrs.get("deprecated"))
        procs.append(small)
        if p.has_embiggenment():
            big = _render(p.express.embiggen.iso_c.name, p.express.embiggen.iso_c)
            big.deprecated = small.deprecated
            big.small, small.big = small, big
            procs.append(big)
    by_name = {pr.name: pr for pr in procs}
    procs += [_removed(name, by_name[repl], keep) for name, repl, keep in REMOVED_MPI1]
    procs.sort(key=lambda pr: pr.name)
    return procs
