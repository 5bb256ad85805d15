/*
 * handle_convert.c — MPI_X_toint / MPI_X_fromint and MPI_X_c2f / MPI_X_f2c:
 * the integer of a handle, from the handle table (base/handle_table.c).
 */
#include <mpi.h>

#include "base/object.h"


int uz_mpi_Comm_toint(MPI_Comm comm) { return uz_handle_to_int(comm); }
int uz_mpi_Errhandler_toint(MPI_Errhandler errhandler) { return uz_handle_to_int(errhandler); }
int uz_mpi_File_toint(MPI_File file) { return uz_handle_to_int(file); }
int uz_mpi_Group_toint(MPI_Group group) { return uz_handle_to_int(group); }
int uz_mpi_Info_toint(MPI_Info info) { return uz_handle_to_int(info); }
int uz_mpi_Message_toint(MPI_Message message) { return uz_handle_to_int(message); }
int uz_mpi_Op_toint(MPI_Op op) { return uz_handle_to_int(op); }
int uz_mpi_Request_toint(MPI_Request request) { return uz_handle_to_int(request); }
int uz_mpi_Session_toint(MPI_Session session) { return uz_handle_to_int(session); }
int uz_mpi_Type_toint(MPI_Datatype datatype) { return uz_handle_to_int(datatype); }
int uz_mpi_Win_toint(MPI_Win win) { return uz_handle_to_int(win); }

MPI_Comm uz_mpi_Comm_fromint(int comm) { return uz_handle_from_int(comm, MPI_COMM_NULL); }
MPI_Errhandler uz_mpi_Errhandler_fromint(int eh) { return uz_handle_from_int(eh, MPI_ERRHANDLER_NULL); }
MPI_File uz_mpi_File_fromint(int file) { return uz_handle_from_int(file, MPI_FILE_NULL); }
MPI_Group uz_mpi_Group_fromint(int group) { return uz_handle_from_int(group, MPI_GROUP_NULL); }
MPI_Info uz_mpi_Info_fromint(int info) { return uz_handle_from_int(info, MPI_INFO_NULL); }
MPI_Message uz_mpi_Message_fromint(int message) { return uz_handle_from_int(message, MPI_MESSAGE_NULL); }
MPI_Op uz_mpi_Op_fromint(int op) { return uz_handle_from_int(op, MPI_OP_NULL); }
MPI_Request uz_mpi_Request_fromint(int request) { return uz_handle_from_int(request, MPI_REQUEST_NULL); }
MPI_Session uz_mpi_Session_fromint(int session) { return uz_handle_from_int(session, MPI_SESSION_NULL); }
MPI_Datatype uz_mpi_Type_fromint(int datatype) { return uz_handle_from_int(datatype, MPI_DATATYPE_NULL); }
MPI_Win uz_mpi_Win_fromint(int win) { return uz_handle_from_int(win, MPI_WIN_NULL); }

MPI_Fint uz_mpi_Comm_c2f(MPI_Comm comm) { return uz_handle_to_int(comm); }
MPI_Fint uz_mpi_Errhandler_c2f(MPI_Errhandler errhandler) { return uz_handle_to_int(errhandler); }
MPI_Fint uz_mpi_File_c2f(MPI_File file) { return uz_handle_to_int(file); }
MPI_Fint uz_mpi_Group_c2f(MPI_Group group) { return uz_handle_to_int(group); }
MPI_Fint uz_mpi_Info_c2f(MPI_Info info) { return uz_handle_to_int(info); }
MPI_Fint uz_mpi_Message_c2f(MPI_Message message) { return uz_handle_to_int(message); }
MPI_Fint uz_mpi_Op_c2f(MPI_Op op) { return uz_handle_to_int(op); }
MPI_Fint uz_mpi_Request_c2f(MPI_Request request) { return uz_handle_to_int(request); }
MPI_Fint uz_mpi_Session_c2f(MPI_Session session) { return uz_handle_to_int(session); }
MPI_Fint uz_mpi_Type_c2f(MPI_Datatype datatype) { return uz_handle_to_int(datatype); }
MPI_Fint uz_mpi_Win_c2f(MPI_Win win) { return uz_handle_to_int(win); }

MPI_Comm uz_mpi_Comm_f2c(MPI_Fint comm) { return uz_handle_from_int(comm, MPI_COMM_NULL); }
MPI_Errhandler uz_mpi_Errhandler_f2c(MPI_Fint eh) { return uz_handle_from_int(eh, MPI_ERRHANDLER_NULL); }
MPI_File uz_mpi_File_f2c(MPI_Fint file) { return uz_handle_from_int(file, MPI_FILE_NULL); }
MPI_Group uz_mpi_Group_f2c(MPI_Fint group) { return uz_handle_from_int(group, MPI_GROUP_NULL); }
MPI_Info uz_mpi_Info_f2c(MPI_Fint info) { return uz_handle_from_int(info, MPI_INFO_NULL); }
MPI_Message uz_mpi_Message_f2c(MPI_Fint message) { return uz_handle_from_int(message, MPI_MESSAGE_NULL); }
MPI_Op uz_mpi_Op_f2c(MPI_Fint op) { return uz_handle_from_int(op, MPI_OP_NULL); }
MPI_Request uz_mpi_Request_f2c(MPI_Fint request) { return uz_handle_from_int(request, MPI_REQUEST_NULL); }
MPI_Session uz_mpi_Session_f2c(MPI_Fint session) { return uz_handle_from_int(session, MPI_SESSION_NULL); }
MPI_Datatype uz_mpi_Type_f2c(MPI_Fint datatype) { return uz_handle_from_int(datatype, MPI_DATATYPE_NULL); }
MPI_Win uz_mpi_Win_f2c(MPI_Fint win) { return uz_handle_from_int(win, MPI_WIN_NULL); }
