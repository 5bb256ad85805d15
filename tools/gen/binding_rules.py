"""binding_rules.py — what the generated C entry points check, per procedure.

Most checks follow from a parameter's kind in the standard's data (a
COMMUNICATOR must be a valid communicator, a count must not be negative).
The few facts the data does not carry are written down here: which calls
may run before MPI_Init, which receive-side arguments accept wildcards, and
which procedures raise their own errors because the object they belong to is
only known inside (a request's communicator).
"""

import re

import buffer_rules

# Procedures that take and return plain values: no checks, no error handler,
# no "is MPI running" test (the standard allows them at any time).
RAW = re.compile(
    r"^MPI_(\w+_(c2f|f2c|toint|fromint)|Status_(c2f|f2c|c2f08|f082c|f082f|f2f08)"
    r"|Wtime|Wtick|Aint_add|Aint_diff)$")

# Procedures that may be called before MPI_Init and after MPI_Finalize
# (MPI-4.1 §11.2.1 and the tool, info, session and ABI interfaces).
BEFORE_INIT = re.compile(
    r"^MPI_(Init|Init_thread|Initialized|Finalized|Get_version|Get_library_version"
    r"|Info_\w+|Error_class|Error_string|Add_error_\w+|Remove_error_\w+"
    r"|Session_\w+|Group_from_session_pset|T_\w+|Abi_\w+|Errhandler_free)(_c)?$")

# Receive-side arguments that accept MPI_ANY_SOURCE / MPI_ANY_TAG.  Not
# MPI_Precv_init: partitioned receives name their source and tag (MPI 4.1
# §4.2, "wildcards for source and tag are not allowed").
RECV_LIKE = re.compile(r"^MPI_(Probe|Iprobe|Mprobe|Improbe|Recv|Irecv|Recv_init)(_c)?$")
SENDRECV_LIKE = re.compile(r"^MPI_(Sendrecv|Isendrecv)(_replace)?(_c)?$")


def any_source_allowed(proc, param) -> bool:
    return (param.name == "source" and
            (RECV_LIKE.match(proc.name) or SENDRECV_LIKE.match(proc.name)) is not None)


# A status is plain storage: MPI_Status_set_source/tag record whatever value
# the caller has (MPI_ANY_TAG, MPI_PROC_NULL, ... are what mpi4py's empty
# status holds), so their value arguments are not checked.
STATUS_SETTER = re.compile(r"^MPI_Status_set_\w+$")


def value_checked(proc, param) -> bool:
    return STATUS_SETTER.match(proc.name) is None


def any_tag_allowed(proc, param) -> bool:
    if RECV_LIKE.match(proc.name) and param.name == "tag":
        return True
    return SENDRECV_LIKE.match(proc.name) is not None and param.name == "recvtag"


# Procedures whose errors belong to an object found only inside the call
# (the communicator of a request or message): the implementation raises
# through that object's handler itself and the entry point just returns.
SELF_RAISING = re.compile(
    r"^MPI_(Wait|Waitall|Waitany|Waitsome|Test|Testall|Testany|Testsome"
    r"|Request_get_status\w*|Request_free|Start|Startall|Cancel|Mrecv|Imrecv"
    r"|Grequest_complete|Parrived|Pready\w*|Buffer_flush|Buffer_iflush"
    r"|Session_init|Session_finalize)(_c)?$")

# Info arguments that must be a real info object (elsewhere MPI_INFO_NULL
# means "no hints").
def info_null_allowed(proc, param) -> bool:
    return not proc.name.startswith("MPI_Info_")


# Error handler arguments that may be MPI_ERRHANDLER_NULL.
def errhandler_null_allowed(proc, param) -> bool:
    return proc.name in ("MPI_Comm_create_from_group", "MPI_Intercomm_create_from_groups",
                         "MPI_Session_init", "MPI_Win_create_from_group")


# Handle arguments that may be the null handle, which reaches the
# implementation as a NULL object, and the null handle's name.
NULL_HANDLE_NAMES = {"INFO": "MPI_INFO_NULL", "ERRHANDLER": "MPI_ERRHANDLER_NULL",
                     "COMMUNICATOR": "MPI_COMM_NULL", "DATATYPE": "MPI_DATATYPE_NULL",
                     "WINDOW": "MPI_WIN_NULL", "FILE": "MPI_FILE_NULL"}

# Name queries answer for the null handle too (its name is the constant's,
# as MPICH and Open MPI do and mpi4py's tests expect).
NAME_OF_NULL = {("MPI_Comm_get_name", "comm"), ("MPI_Type_get_name", "datatype"),
                ("MPI_Win_get_name", "win")}


def handle_null_allowed(proc, param) -> bool:
    if param.kind == "INFO":
        return info_null_allowed(proc, param)
    if param.kind == "ERRHANDLER":
        return errhandler_null_allowed(proc, param)
    if (proc.name, param.name) in NAME_OF_NULL:
        return True
    # MPI_FILE_NULL holds the default error handler of files (MPI-4.1 §9.3).
    if (proc.name, param.name) in (("MPI_File_set_errhandler", "file"), ("MPI_File_get_errhandler", "file")):
        return True
    # The peer communicator of MPI_Intercomm_create matters only at the
    # local leader (MPI-4.1 §7.6.2).
    return (proc.name, param.name) == ("MPI_Intercomm_create", "peer_comm")


# Kinds that name an output a caller must provide storage for; a NULL there
# is MPI_ERR_ARG.  (Buffers, statuses and attribute values may be NULL.)
OUTPUT_KINDS_MAY_BE_NULL = {
    "BUFFER", "C_BUFFER", "C_BUFFER2", "C_BUFFER3", "C_BUFFER4", "STATUS",
    "ATTRIBUTE_VAL", "ATTRIBUTE_VAL_10", "EXTRA_STATE", "EXTRA_STATE2",
    "LOGICAL_OPTIONAL", "LOGICAL_VOID", "F08_STATUS", "F90_STATUS",
    "ERROR_CODE", "WEIGHT",
}

# Output arguments that may be NULL in particular procedures.
NULL_OK_PARAMS = {
    ("MPI_Info_get_string", "value"),       # with *buflen == 0 only the length is asked for
    ("MPI_Session_get_nth_pset", "pset_name"),  # likewise with *pset_len == 0
    ("MPI_Init", "argc"), ("MPI_Init", "argv"),             # MPI_Init(NULL, NULL)
    ("MPI_Init_thread", "argc"), ("MPI_Init_thread", "argv"),
}


def significance_guard(proc, param):
    """A C condition under which the argument matters, or None when it
    always does.  Arguments that the standard makes significant only at the
    root, and the send (receive) count and type where the send (receive)
    buffer may be and is MPI_IN_PLACE, are neither converted nor checked
    otherwise: ranks commonly pass anything there.  (Where MPI_IN_PLACE is
    not allowed, the buffer check rejects it: buffer_rules.py.)"""
    names = {p.name for p in proc.params}
    guards = []
    if param.root_only and "root" in names and "comm" in names:
        guards.append("uz_at_root(comm_obj, root)")
    for side in ("send", "recv"):
        if param.name in (side + "count", side + "type") and side + "buf" in names:
            allowed = buffer_rules.in_place_allowed(proc, side + "buf")
            if allowed:
                guards.append(f"!({side}buf == MPI_IN_PLACE && {allowed[0]})")
    return " && ".join(guards) or None

# Scalar input kinds that must not be negative, and the class of the error.
NONNEGATIVE_KINDS = {
    "POLYXFER_NUM_ELEM_NNI": "count",
    "POLYDTYPE_NUM_ELEM_NNI": "count",
    "XFER_NUM_ELEM_NNI": "count",
    "ARRAY_LENGTH_NNI": "arg",
    "POLYNUM_BYTES_NNI": "arg",
}
POSITIVE_KINDS = {"ARRAY_LENGTH_PI"}

# Handle kinds: (internal type, getter, error class, description).
HANDLE_KINDS = {
    "COMMUNICATOR": ("uz_comm", "uz_comm_get", "MPI_ERR_COMM", "communicator"),
    "DATATYPE": ("uz_datatype", "uz_datatype_get", "MPI_ERR_TYPE", "datatype"),
    "GROUP": ("uz_group", "uz_group_get", "MPI_ERR_GROUP", "group"),
    "OPERATION": ("uz_op", "uz_op_get", "MPI_ERR_OP", "operation"),
    "INFO": ("uz_info", "uz_info_get", "MPI_ERR_INFO", "info object"),
    "ERRHANDLER": ("uz_errhandler", "uz_errhandler_get", "MPI_ERR_ERRHANDLER", "error handler"),
    "WINDOW": ("uz_win", "uz_win_get", "MPI_ERR_WIN", "window"),
    "FILE": ("uz_file", "uz_file_get", "MPI_ERR_FILE", "file"),
    "SESSION": ("uz_session", "uz_session_get", "MPI_ERR_SESSION", "session"),
}

# The object whose error handler an error goes to, by kind, in order of
# preference, with the raise function.
ERROR_OBJECT_KINDS = {
    "COMMUNICATOR": "uz_err_raise_comm",
    "WINDOW": "uz_err_raise_win",
    "FILE": "uz_err_raise_file",
    "SESSION": "uz_err_raise_session",
}


# Procedures whose errors belong to no file yet: they go to the handler of
# MPI_FILE_NULL (MPI-4.1 §14.7), not to the communicator's.
FILE_NULL_RAISING = {"MPI_File_open", "MPI_File_delete"}


def datatype_must_be_committed(proc) -> bool:
    """Datatypes used to move data must be committed; constructors and
    queries take uncommitted ones."""
    return any(p.kind == "BUFFER" for p in proc.params) and not proc.name.startswith("MPI_Type_")
