"""fortran_api.py — the MPI procedures as the Fortran generator sees them.

Loads the MPI Forum's machine-readable API (pympistandard) once more, this
time for its Fortran expressions, and pairs every Fortran parameter with the
C parameter of the same name (from mpi_api, so that the C errata apply here
too).  A procedure appears once for `mpif.h` / `use mpi` (the "f90" form,
int counts only) and once or twice for `use mpi_f08` (the int-count form and,
when the standard has one, the large-count form whose C twin is MPI_X_c).

Nothing here knows how the glue is written; that is gen_fortran.py's and
fortran_rules.py's business.
"""

from dataclasses import dataclass, field
from typing import Dict, List, Optional

import mpi_api

HANDLE_KINDS = {
    "COMMUNICATOR": "Comm", "DATATYPE": "Type", "GROUP": "Group", "OPERATION": "Op",
    "INFO": "Info", "ERRHANDLER": "Errhandler", "WINDOW": "Win", "FILE": "File",
    "SESSION": "Session", "REQUEST": "Request", "MESSAGE": "Message",
}
# C type of each handle kind (MPI_Type_f2c returns an MPI_Datatype, and so on).
HANDLE_CTYPE = {
    "COMMUNICATOR": "MPI_Comm", "DATATYPE": "MPI_Datatype", "GROUP": "MPI_Group",
    "OPERATION": "MPI_Op", "INFO": "MPI_Info", "ERRHANDLER": "MPI_Errhandler",
    "WINDOW": "MPI_Win", "FILE": "MPI_File", "SESSION": "MPI_Session",
    "REQUEST": "MPI_Request", "MESSAGE": "MPI_Message",
}

BUFFER_KINDS = {"BUFFER", "C_BUFFER2", "C_BUFFER3"}
STRING_KINDS = {"STRING", "STRING_ARRAY", "STRING_2DARRAY"}
PROC_KINDS = {"FUNCTION", "FUNCTION_SMALL", "POLYFUNCTION"}


@dataclass
class FParam:
    name: str                   # lower case, as the standard spells it
    kind: str
    direction: str              # in, out, inout
    length: object              # None, "*", a parameter name, an expression or a list
    optional: bool
    f90_type: str               # "INTEGER", "<type>", "CHARACTER*(*)", "EXTERNAL", ...
    f90_decl: str               # "BUF(*)", "STATUS(MPI_STATUS_SIZE)"
    f08_desc: Optional[str]     # "TYPE(*), DIMENSION(..), INTENT(IN)" (None: not in f08)
    f08_decl: Optional[str]     # "buf", "array_of_requests(count)"
    func_type: str              # for procedure arguments: the callback's name
    c: Optional[mpi_api.Param]  # the C parameter of the same name (None: Fortran only)

    @property
    def is_array(self) -> bool:
        return self.length is not None and self.kind not in ("STRING",)


@dataclass
class FProc:
    name: str                       # "MPI_Send", "MPI_Send_c" (the C name of the twin)
    params: List[FParam]            # without ierror
    has_ierror: bool
    return_kind: str                # ERROR_CODE, WALL_TIME, ...
    c: Optional[mpi_api.Proc]       # the C procedure (None: Fortran only, e.g. MPI_Sizeof)
    f90: bool = False               # in mpif.h / use mpi
    f08: bool = False               # in use mpi_f08
    large: bool = False             # the large-count (f08 only) form
    not_with_mpif: bool = False
    cptr_overload: bool = False     # use mpi also has MPI_X_CPTR with a TYPE(C_PTR) baseptr
    deprecated: bool = False
    f08_return: Optional[str] = None
    f90_return: Optional[str] = None
    big: Optional["FProc"] = None   # the large-count twin of an int-count procedure

    @property
    def short(self) -> str:
        return self.name[len("MPI_"):]

    @property
    def returns_value(self) -> bool:
        return self.return_kind not in ("ERROR_CODE", "NOTHING")


def _fparam(raw, f90p, f08p, cparams) -> FParam:
    name = raw["name"]
    return FParam(
        name=name, kind=raw["kind"], direction=raw["param_direction"], length=raw["length"],
        optional=bool(raw["optional"]),
        f90_type=f90p.type if f90p is not None else "",
        f90_decl=str(f90p) if f90p is not None else name.upper(),
        f08_desc=f08p.descriptor if f08p is not None else None,
        f08_decl=str(f08p) if f08p is not None else None,
        func_type=raw["func_type"],
        c=cparams.get(name))


def _build(std_proc, cproc, large: bool) -> FProc:
    ps = std_proc._parseset
    expr = std_proc.express
    f90 = expr.f90 if not large else None
    f08 = (expr.embiggen.f08 if large else expr.f08)
    f90_by_name = {p._parseset["name"]: p for p in (f90.parameters if f90 is not None else ())}
    f08_by_name = {p._parseset["name"]: p for p in (f08.parameters if f08 is not None else ())}
    cparams = {p.name: p for p in (cproc.params if cproc is not None else [])}
    params, has_ierror = [], False
    for raw in ps["parameters"]:
        if raw["kind"] == "VARARGS":
            continue
        if raw["large_only"] and not large:
            continue
        if raw["name"] not in f90_by_name and raw["name"] not in f08_by_name:
            continue                                    # C only (argc, argv)
        if raw["name"] == "ierror" and raw["kind"] == "ERROR_CODE":
            has_ierror = True
            continue
        params.append(_fparam(raw, f90_by_name.get(raw["name"]), f08_by_name.get(raw["name"]), cparams))
    attrs = ps["attributes"]
    name = ps["name"] + ("_c" if large else "")
    return FProc(
        name=name, params=params, has_ierror=has_ierror, return_kind=ps["return_kind"],
        c=cproc, f90=f90 is not None, f08=f08 is not None, large=large,
        not_with_mpif=bool(attrs.get("not_with_mpif")),
        cptr_overload=attrs.get("f90_index_overload") is not None,
        deprecated=bool(attrs.get("deprecated")),
        f08_return=f08.return_type if f08 is not None else None,
        f90_return=f90.return_type if f90 is not None else None)


def load() -> List[FProc]:
    """Every procedure with a Fortran expression, int-count forms sorted by
    name, each with its large-count twin (f08 only) in .big."""
    import pympistandard as std

    cprocs: Dict[str, mpi_api.Proc] = {p.name: p for p in mpi_api.load()}   # also loads std
    out = []
    for p in std.PROCEDURES.values():
        expr = p.express
        if expr.f90 is None and expr.f08 is None:
            continue
        ps = p._parseset
        small = _build(p, cprocs.get(ps["name"]), large=False)
        if p.has_embiggenment() and expr.embiggen.f08 is not None:
            small.big = _build(p, cprocs.get(ps["name"] + "_c"), large=True)
        out.append(small)
    out.sort(key=lambda fp: fp.name)
    return out


@dataclass
class Callback:
    name: str                   # "MPI_User_function", "MPI_User_function_c"
    f08_text: str               # the abstract interface body, from the standard


def callbacks() -> List[Callback]:
    """The callback prototypes that mpi_f08 declares as abstract interfaces."""
    import pympistandard as std

    out = []
    for cb in std.CALLBACKS.values():
        for large in (False, True):
            try:
                f08 = cb.express.embiggen.f08 if large else cb.express.f08
            except Exception:        # noqa: BLE001 — pympistandard raises for absent forms
                f08 = None
            if f08 is None:
                continue
            name = cb._parseset["name"] + ("_c" if large else "")
            out.append(Callback(name, str(f08)))
    out.sort(key=lambda c: c.name)
    return out


def predefined_functions():
    """(name, callback it implements, f08 text, f90 text) for MPI_COMM_DUP_FN and friends."""
    import pympistandard as std

    out = []
    for pf in std.PREDEFINED_FUNCTIONS.values():
        ps = pf._parseset
        try:
            f08 = pf.express.f08
        except Exception:            # noqa: BLE001
            f08 = None
        try:
            f90 = pf.express.f90
        except Exception:            # noqa: BLE001
            f90 = None
        out.append((ps["name"].upper(), ps["attributes"]["predefined_function"],
                    str(f08) if f08 is not None else None, str(f90) if f90 is not None else None))
    out.sort()
    return out
