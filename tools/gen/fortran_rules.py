"""fortran_rules.py — the facts about the Fortran bindings that the standard's
data does not carry, in one place.

gen_fortran.py derives almost every binding from a parameter's kind and
direction (a COMMUNICATOR in is converted with MPI_Comm_f2c, a LOGICAL out is
stored as gfortran's .TRUE./.FALSE., a STRING in is trimmed of trailing
blanks...).  The exceptions are listed here.
"""

import re

# Procedures whose conversion "core" (uzf_<Name>) is written by hand in
# src/binding/fortran/glue/: callbacks that C calls back into Fortran,
# attribute values (Fortran stores integers where C stores pointers),
# strings whose length the caller passes, info keys and values (blanks
# stripped at both ends, a value left alone when its key is missing),
# arrays of strings, and the
# Fortran-only procedures.  The generator still writes their prototypes and
# their mpif.h / use mpi / use mpi_f08 entry points.
HAND_WRITTEN = {
    "MPI_Attr_get", "MPI_Attr_put",
    "MPI_Comm_get_attr", "MPI_Comm_set_attr",
    "MPI_Type_get_attr", "MPI_Type_set_attr",
    "MPI_Win_get_attr", "MPI_Win_set_attr",
    "MPI_Keyval_create", "MPI_Comm_create_keyval", "MPI_Type_create_keyval",
    "MPI_Win_create_keyval",
    "MPI_Comm_create_errhandler", "MPI_File_create_errhandler",
    "MPI_Win_create_errhandler", "MPI_Session_create_errhandler",
    "MPI_Op_create", "MPI_Op_create_c", "MPI_Op_free",
    "MPI_Grequest_start",
    "MPI_Register_datarep", "MPI_Register_datarep_c",
    "MPI_Comm_spawn", "MPI_Comm_spawn_multiple",
    "MPI_Info_get_string", "MPI_Session_get_nth_pset",
    "MPI_Info_set", "MPI_Info_get", "MPI_Info_delete", "MPI_Info_get_valuelen",
    "MPI_Sizeof", "MPI_F_sync_reg",
}

# Output indices that Fortran counts from 1 (C from 0).
ONE_BASED = re.compile(r"^MPI_(Waitany|Testany|Waitsome|Testsome|Request_get_status_(any|some))$")

# Lengths of handle arrays declared "(*)" by the standard: a C expression
# over the converted arguments (<name>_c is a converted handle).
HANDLE_ARRAY_LENGTH = {
    ("Alltoallw", "sendtypes"): "uzf_comm_peers(comm_c)",
    ("Alltoallw", "recvtypes"): "uzf_comm_peers(comm_c)",
    ("Neighbor_alltoallw", "sendtypes"): "uzf_neighbor_degree(comm_c, 1)",
    ("Neighbor_alltoallw", "recvtypes"): "uzf_neighbor_degree(comm_c, 0)",
}


def handle_array_length(proc, param):
    base = proc.short.removesuffix("_c").removesuffix("_init")
    if base in ("Ialltoallw", "Ineighbor_alltoallw"):
        base = base[1:].capitalize()
    return HANDLE_ARRAY_LENGTH.get((base, param.name))


# Sizes of the C buffers for output strings whose length the standard does
# not name (the others say MPI_MAX_OBJECT_NAME, valuelen, ...).
OUT_STRING_LENGTH = {
    ("MPI_File_get_view", "datarep"): "MPI_MAX_DATAREP_STRING",
    ("MPI_Info_get_nthkey", "key"): "MPI_MAX_INFO_KEY",
}

# A choice buffer and the count and datatype that describe it: in
# mpi_f08, a non-contiguous array section passed there is described to C by
# a derived datatype made from its descriptor.  Buffers not listed must be
# contiguous (or are only an address, see ADDRESS_ONLY).
BUFFER_DESCRIPTION = {
    "buf": ("count", "datatype"),
    "sendbuf": ("sendcount", "sendtype"),
    "recvbuf": ("recvcount", "recvtype"),
    "inoutbuf": ("count", "datatype"),
    "inbuf": ("incount", "datatype"),
    "origin_addr": ("origin_count", "origin_datatype"),
    "result_addr": ("result_count", "result_datatype"),
}
# When the names above are missing, a buffer may share the procedure's
# plain count and datatype (MPI_Reduce's sendbuf and recvbuf).
BUFFER_DESCRIPTION_FALLBACK = ("count", "datatype")

# Buffers whose address is all that matters: a non-contiguous section is
# fine (its first element's address is used).
ADDRESS_ONLY = {
    ("MPI_Get_address", "location"), ("MPI_F_sync_reg", "buf"), ("MPI_Sizeof", "x"),
    ("MPI_Free_mem", "base"), ("MPI_Win_detach", "base"),
}

# Named constants of mpi.h that Fortran does not get (C-only layout facts,
# the tool interface) and Fortran-only ones it gets in addition.
C_ONLY_CONSTANT = re.compile(r"^(MPI_F_|MPI_T_|UZURA_|MPI_ABI_)")
FORTRAN_CONSTANTS = [
    # name, Fortran type, value
    ("MPI_STATUS_SIZE", "INTEGER", "8"),
    ("MPI_SOURCE", "INTEGER", "1"),
    ("MPI_TAG", "INTEGER", "2"),
    ("MPI_ERROR", "INTEGER", "3"),
    ("MPI_ADDRESS_KIND", "INTEGER", "8"),
    ("MPI_OFFSET_KIND", "INTEGER", "8"),
    ("MPI_COUNT_KIND", "INTEGER", "8"),
    ("MPI_INTEGER_KIND", "INTEGER", "4"),
]
# Per interface: does every choice buffer of a nonblocking call accept any
# array section (MPI_SUBARRAYS_SUPPORTED), and does ASYNCHRONOUS protect
# buffers of nonblocking calls (MPI_ASYNC_PROTECTS_NONBLOCKING)?
SUBARRAYS_SUPPORTED = {"mpif": ".FALSE.", "mpi": ".FALSE.", "f08": ".FALSE."}
ASYNC_PROTECTS_NONBLOCKING = {"mpif": ".FALSE.", "mpi": ".FALSE.", "f08": ".FALSE."}

# The sentinels Fortran passes by address: (Fortran name, common block, type,
# dimensions for mpif.h / use mpi, f08 type, f08 dimensions).  The C glue
# defines each common block and compares addresses against it.
SENTINELS = [
    ("MPI_BOTTOM", "MPI_FORTRAN_BOTTOM", "INTEGER", "", "INTEGER", ""),
    ("MPI_IN_PLACE", "MPI_FORTRAN_IN_PLACE", "INTEGER", "", "INTEGER", ""),
    ("MPI_BUFFER_AUTOMATIC", "MPI_FORTRAN_BUFFER_AUTOMATIC", "INTEGER", "", "INTEGER", ""),
    ("MPI_STATUS_IGNORE", "MPI_FORTRAN_STATUS_IGNORE", "INTEGER", "(8)", "TYPE(MPI_Status)", ""),
    ("MPI_STATUSES_IGNORE", "MPI_FORTRAN_STATUSES_IGNORE", "INTEGER", "(8,1)",
     "TYPE(MPI_Status)", "(1)"),
    ("MPI_ERRCODES_IGNORE", "MPI_FORTRAN_ERRCODES_IGNORE", "INTEGER", "(1)", "INTEGER", "(1)"),
    ("MPI_UNWEIGHTED", "MPI_FORTRAN_UNWEIGHTED", "INTEGER", "(1)", "INTEGER", "(1)"),
    ("MPI_WEIGHTS_EMPTY", "MPI_FORTRAN_WEIGHTS_EMPTY", "INTEGER", "(1)", "INTEGER", "(1)"),
    ("MPI_ARGV_NULL", "MPI_FORTRAN_ARGV_NULL", "CHARACTER*1", "(1)", "CHARACTER(LEN=1)", "(1)"),
    ("MPI_ARGVS_NULL", "MPI_FORTRAN_ARGVS_NULL", "CHARACTER*1", "(1,1)", "CHARACTER(LEN=1)",
     "(1,1)"),
]

# Fortran procedures that return a value instead of taking IERROR, with the
# type mpif.h declares for them.
FUNCTIONS = {
    "MPI_Wtime": "DOUBLE PRECISION",
    "MPI_Wtick": "DOUBLE PRECISION",
    "MPI_Aint_add": "INTEGER(KIND=MPI_ADDRESS_KIND)",
    "MPI_Aint_diff": "INTEGER(KIND=MPI_ADDRESS_KIND)",
}

# C glue files, one per family (as the C bindings are spread), so that the
# two-core build compiles them in parallel.
def family_of(proc_short):
    first = proc_short.split("_")[0]
    if first in ("Cart", "Cartdim", "Graph", "Graphdims", "Dist", "Topo", "Dims",
                 "Neighbor", "Ineighbor"):
        return "topo"
    if first in ("Comm", "Intercomm", "Group", "Attr", "Keyval"):
        return "comm"
    if first in ("Type", "Pack", "Unpack", "Get", "Sizeof"):
        return "datatype"
    if first in ("Win", "Put", "Rput", "Get_accumulate", "Rget_accumulate", "Accumulate",
                 "Raccumulate", "Rget", "Fetch", "Compare", "Alloc", "Free"):
        return "rma"
    if first in ("File", "Register"):
        return "io"
    if first in ("Info", "Session", "Errhandler", "Error", "Add", "Remove", "Abi", "Init",
                 "Initialized", "Finalize", "Finalized", "Abort", "Query", "Is", "Wtime",
                 "Wtick", "Aint", "Pcontrol", "Open", "Close", "Lookup", "Publish",
                 "Unpublish", "F"):
        return "runtime"
    if re.match(r"^I?(Barrier|Bcast|Gather|Scatter|Allgather|Alltoall|Reduce|Allreduce|Scan|"
                r"Exscan|Gatherv|Scatterv|Allgatherv|Alltoallv|Alltoallw)", first) or first == "Op":
        return "coll"
    return "pt2pt"
