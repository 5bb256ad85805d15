"""buffer_rules.py — what the generated C entry points check about buffers.

A buffer argument comes with the count and the datatype that describe it: a
triple (buf, count, datatype), or in the v and w collectives a count (and a
datatype) per process.  For every triple that is significant on the calling
process the entry point checks:

  * a NULL buffer with count > 0 and a datatype of nonzero size whose true
    lower bound is 0 is MPI_ERR_BUFFER.  MPI_BOTTOM is NULL in the standard
    ABI, and a derived datatype holding absolute addresses has a nonzero
    true lower bound, so MPI_BOTTOM with such a type stays legal (MPICH's
    MPIR_ERRTEST_USERBUFFER rule).  In the v and w collectives each
    process's data starts at its displacement, which may itself be an
    absolute address with MPI_BOTTOM: there the data's own start (the
    displacement, scaled, plus the true lower bound) must be 0;
  * MPI_IN_PLACE where the standard does not allow it (as a receive buffer,
    on an intercommunicator, away from the root, in point-to-point) is
    MPI_ERR_BUFFER, with count > 0 as in MPICH;
  * on intracommunicators, a send buffer that is the receive buffer instead
    of MPI_IN_PLACE is MPI_ERR_BUFFER: in reductions (sendbuf == recvbuf,
    count > 0), and, as MPICH does, where the send buffer is this process's
    own block of a gather's receive buffer (or a scatter's receive buffer
    its block of the send buffer) or alltoall's same buffer.

And the datatype of a non-collective triple is checked only when its count
is > 0, as MPICH does: MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL,
...) is legal there, and the implementation gets MPI_BYTE for an invalid
datatype that moves nothing.  Collective datatypes are checked wherever they
are significant.
"""

import re
from dataclasses import dataclass
from typing import List, Optional

# Collectives by base name (no I prefix, _init or _c suffix).
COLLECTIVES = {"Allgather", "Allgatherv", "Allreduce", "Alltoall", "Alltoallv", "Alltoallw", "Barrier",
               "Bcast", "Exscan", "Gather", "Gatherv", "Reduce", "Reduce_scatter", "Reduce_scatter_block",
               "Scan", "Scatter", "Scatterv", "Neighbor_allgather", "Neighbor_allgatherv",
               "Neighbor_alltoall", "Neighbor_alltoallv", "Neighbor_alltoallw"}
BASE_RE = re.compile(r"^MPI_(?:I(?=[a-z]))?(\w+?)(?:_init)?(?:_c)?$")
ROOTED = {"Bcast", "Gather", "Gatherv", "Reduce", "Scatter", "Scatterv"}
REDUCTIONS = {"Allreduce", "Reduce", "Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan"}

# Where MPI_IN_PLACE may stand for a buffer (MPI-4.1 chapter 6), as the C
# condition under which it may, and the note the error message gives.
_ANY_INTRA = ("!comm_obj->is_inter", " on an intercommunicator")
_ROOT_INTRA = ("!comm_obj->is_inter && comm_obj->rank == root",
               " except at the root of an intracommunicator")
IN_PLACE = {
    ("Allgather", "sendbuf"): _ANY_INTRA, ("Allgatherv", "sendbuf"): _ANY_INTRA,
    ("Alltoall", "sendbuf"): _ANY_INTRA, ("Alltoallv", "sendbuf"): _ANY_INTRA,
    ("Alltoallw", "sendbuf"): _ANY_INTRA, ("Allreduce", "sendbuf"): _ANY_INTRA,
    ("Reduce_scatter", "sendbuf"): _ANY_INTRA, ("Reduce_scatter_block", "sendbuf"): _ANY_INTRA,
    ("Scan", "sendbuf"): _ANY_INTRA, ("Exscan", "sendbuf"): _ANY_INTRA,
    ("Gather", "sendbuf"): _ROOT_INTRA, ("Gatherv", "sendbuf"): _ROOT_INTRA,
    ("Reduce", "sendbuf"): _ROOT_INTRA,
    ("Scatter", "recvbuf"): _ROOT_INTRA, ("Scatterv", "recvbuf"): _ROOT_INTRA,
}

COUNT_KIND = re.compile(r"^(POLY)?(XFER|DTYPE)_NUM_ELEM(_NNI)?$")


def coll_base(proc) -> Optional[str]:
    """"Allgather" for MPI_Iallgather_init_c; None for a non-collective."""
    m = BASE_RE.match(proc.name)
    base = m.group(1)[0].upper() + m.group(1)[1:] if m else None
    return base if base in COLLECTIVES else None


def in_place_allowed(proc, buf_name):
    """(C condition, note) under which buf_name may be MPI_IN_PLACE, or None."""
    base = coll_base(proc)
    return IN_PLACE.get((base, buf_name)) if base else None


@dataclass
class Triple:
    buf: object             # the buffer Param
    count: object           # its count Param (scalar or per-process array)
    dtype: object           # its datatype Param (scalar or per-process array)
    displs: object = None   # the per-process displacements of the v and w collectives


def triples(proc) -> List[Triple]:
    """Each typed buffer with its count and datatype.  Buffers that share
    them (a reduction's sendbuf and recvbuf) come one after the other."""
    params = [p for p in proc.params if not p.is_varargs]
    out = []
    i = 0
    while i < len(params):
        if params[i].kind != "BUFFER":
            i += 1
            continue
        group = [params[i]]
        j = i + 1
        while j < len(params) and params[j].kind == "BUFFER":
            group.append(params[j])
            j += 1
        count = dtype = displs = None
        k = j
        while k < len(params) and params[k].kind != "BUFFER":
            if count is None and COUNT_KIND.match(params[k].kind):
                count = params[k]
            elif count is not None and params[k].kind.endswith("DISPLACEMENT") and params[k].is_array:
                displs = params[k]
            elif count is not None and params[k].kind == "DATATYPE":
                dtype = params[k]
                break
            k += 1
        if count is not None and dtype is not None:
            out.extend(Triple(b, count, dtype, displs) for b in group)
        i = j
    return out


def p2p_dtype_counts(proc):
    """{datatype name: count name} for non-collective triples whose datatype
    is checked only when the count is > 0 (MPICH's USERBUFFER-simple)."""
    if coll_base(proc) or re.match(r"^MPI_(Pack|Unpack|Reduce_local)", proc.name):
        return {}
    return {t.dtype.name: t.count.name for t in triples(proc)
            if t.count.is_scalar and t.dtype.is_scalar}


def _quote(s):
    return f'"{s}"' if s is not None else "NULL"


def _significance(proc, t, names):
    """C condition under which triple t matters on this process (None: always)."""
    base = coll_base(proc)
    guards = []
    if base in ROOTED:
        guards.append("root != MPI_PROC_NULL")
        if t.buf.root_only:
            guards.append("uz_at_root(comm_obj, root)")
        elif (base, t.buf.name) in (("Gather", "sendbuf"), ("Gatherv", "sendbuf"), ("Reduce", "sendbuf"),
                                     ("Scatter", "recvbuf"), ("Scatterv", "recvbuf")):
            guards.append("root != MPI_ROOT")   # the root side of an intercommunicator
    allowed = in_place_allowed(proc, t.buf.name)
    if allowed:
        guards.append(f"!({t.buf.name} == MPI_IN_PLACE && {allowed[0]})")
    if len(guards) > 1:
        guards = [f"({g})" for g in guards]
    return " && ".join(guards) or None


def _peers(proc, t):
    """C expression for the number of entries of a per-process array."""
    base = coll_base(proc)
    if base.startswith("Neighbor_"):
        return f"uz_neighbor_degree(comm_obj, {0 if 'recv' in t.count.name else 1})"
    return "uz_coll_peers(comm_obj)"


def buffer_checks(proc):
    """(guard or None, C expression returning an error code) for every buffer
    check of the procedure, in order."""
    names = {p.name for p in proc.params}
    base = coll_base(proc)
    checks = []
    for t in triples(proc):
        guard = _significance(proc, t, names)
        allowed = in_place_allowed(proc, t.buf.name)
        note = _quote(allowed[1] if allowed else None)
        b, c, d = t.buf.name, t.count.name, t.dtype.name
        if base == "Reduce_scatter":
            if b == "recvbuf":
                expr = f"uz_check_buffer(recvbuf, recvcounts[comm_obj->rank], datatype_obj, \"recvbuf\", {note})"
            else:   # sendbuf: recvcounts of the local group, as MPICH counts it
                expr = (f"uz_check_buffer_vw(sendbuf, comm_obj->size, recvcounts, sizeof(*recvcounts), NULL, 0, "
                        f"datatype_obj, NULL, \"sendbuf\", {note})")
        elif t.count.is_scalar and t.dtype.is_scalar:
            expr = f"uz_check_buffer({b}, {c}, {d}_obj, \"{b}\", {note})"
        else:
            # Each process's data is at buf + displacement (in extents of
            # the one datatype, or in bytes with a datatype per process).
            dp = t.displs.name if t.displs else None
            disp = f"{dp}, sizeof(*{dp})" if dp else "NULL, 0"
            types = "NULL" if t.dtype.is_scalar else d
            obj = f"{d}_obj" if t.dtype.is_scalar else "NULL"
            expr = (f"uz_check_buffer_vw({b}, {_peers(proc, t)}, {c}, sizeof(*{c}), {disp}, {obj}, {types}, "
                    f"\"{b}\", {note})")
        checks.append((guard, expr))
    checks.extend(_alias_checks(proc, base, names))
    return checks


def _alias_checks(proc, base, names):
    """Send and receive buffers that are the same memory instead of
    MPI_IN_PLACE (intracommunicators only, as in MPICH)."""
    if proc.name.startswith("MPI_Reduce_local"):
        return [(None, "uz_check_alias(inbuf, inoutbuf, count, \"inbuf\", \"inoutbuf\")")]
    if base in REDUCTIONS:
        guard = "!comm_obj->is_inter && sendbuf != MPI_IN_PLACE"
        if base == "Reduce":
            guard += " && comm_obj->rank == root"
        if base == "Reduce_scatter":
            fn = "uz_counts_max_c" if "MPI_Count" in _param(proc, "recvcounts").ctype else "uz_counts_max"
            count = f"{fn}(recvcounts, comm_obj->size)"
        else:
            count = "recvcount" if "recvcount" in names else "count"
        return [(guard, f"uz_check_alias(sendbuf, recvbuf, {count}, \"sendbuf\", \"recvbuf\")")]
    # A process's own block: sendbuf in a gather's recvbuf, recvbuf in a
    # scatter's sendbuf (same datatype and nonzero counts, as MPICH checks).
    intra = "!comm_obj->is_inter"
    if base in ("Gather", "Allgather", "Gatherv", "Allgatherv"):
        rooted = " && comm_obj->rank == root" if base.startswith("G") else ""
        if base.endswith("v"):
            disp, n = "(MPI_Aint)displs[comm_obj->rank]", "recvcounts[comm_obj->rank]"
        else:
            disp, n = "(MPI_Aint)comm_obj->rank * (MPI_Aint)recvcount", "recvcount"
        guard = f"{intra}{rooted} && sendbuf != MPI_IN_PLACE && sendtype == recvtype"
        return [(guard, f"uz_check_block_alias(recvbuf, {disp}, recvtype_obj, sendbuf, "
                        f"sendcount > 0 && {n} > 0, \"recvbuf\", \"sendbuf\")")]
    if base in ("Scatter", "Scatterv"):
        if base.endswith("v"):
            disp, n = "(MPI_Aint)displs[comm_obj->rank]", "sendcounts[comm_obj->rank]"
        else:
            disp, n = "(MPI_Aint)comm_obj->rank * (MPI_Aint)sendcount", "sendcount"
        guard = f"{intra} && comm_obj->rank == root && recvbuf != MPI_IN_PLACE && sendtype == recvtype"
        return [(guard, f"uz_check_block_alias(sendbuf, {disp}, sendtype_obj, recvbuf, "
                        f"recvcount > 0 && {n} > 0, \"sendbuf\", \"recvbuf\")")]
    if base == "Alltoall":
        guard = f"{intra} && sendbuf != MPI_IN_PLACE && sendtype == recvtype && sendcount == recvcount"
        return [(guard, "uz_check_alias(sendbuf, recvbuf, sendcount, \"sendbuf\", \"recvbuf\")")]
    return []


def _param(proc, name):
    return next(p for p in proc.params if p.name == name)
