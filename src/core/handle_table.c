/*
 * handle_table.c — integer handles for objects whose C handle is a pointer.
 *
 * The standard ABI needs an int for every handle (MPI_Comm_toint, and the
 * Fortran MPI_Comm_c2f, which is the same value here because MPI_Fint is
 * int).  Predefined handles already are small integers.  Any other object
 * gets a slot in one table on first request, numbered from 0x1000 up so
 * that no slot can look predefined; the slot is released when the object
 * is destroyed and then reused.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/errors.h"
#include "core/object.h"

enum { FIRST_SLOT_VALUE = UZ_PREDEFINED_HANDLE_LIMIT };

static struct uz_object **slots;
static int nslots, capacity;
static int free_hint;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

int uz_handle_to_int(const void *handle)
{
    if (uz_handle_is_predefined(handle))
        return (int)(uintptr_t)handle;
    /* Not an object, or a dead one: the value that converts back to the
     * null handle. */
    struct uz_object *obj = (struct uz_object *)handle;
    if (!uz_arena_holds(obj) || obj->magic == UZ_MAGIC_FREED || obj->magic == 0)
        return -1;
    if (obj->int_handle)
        return obj->int_handle;
    pthread_mutex_lock(&table_lock);
    int value = obj->int_handle;
    if (!value) {
        int i = free_hint;
        while (i < nslots && slots[i])
            i++;
        if (i == capacity) {
            int cap = capacity ? 2 * capacity : 64;
            struct uz_object **n = realloc(slots, cap * sizeof(*n));
            if (!n) {
                pthread_mutex_unlock(&table_lock);
                return -1;      /* cannot happen in practice */
            }
            slots = n;
            capacity = cap;
        }
        if (i == nslots)
            nslots++;
        slots[i] = obj;
        free_hint = i + 1;
        value = FIRST_SLOT_VALUE + i;
        obj->int_handle = value;
    }
    pthread_mutex_unlock(&table_lock);
    return value;
}

void *uz_handle_from_int(int value, void *null_handle)
{
    if (value >= 0 && value < FIRST_SLOT_VALUE)
        return (void *)(uintptr_t)value;
    void *obj = null_handle;
    pthread_mutex_lock(&table_lock);
    int i = value - FIRST_SLOT_VALUE;
    if (i >= 0 && i < nslots && slots[i])
        obj = slots[i];
    pthread_mutex_unlock(&table_lock);
    return obj;
}

void uz_handle_forget(struct uz_object *obj)
{
    pthread_mutex_lock(&table_lock);
    int i = obj->int_handle - FIRST_SLOT_VALUE;
    if (i >= 0 && i < nslots && slots[i] == obj) {
        slots[i] = NULL;
        if (i < free_hint)
            free_hint = i;
    }
    obj->int_handle = 0;
    pthread_mutex_unlock(&table_lock);
}

/* ---------------------------------------------- MPI_X_toint / fromint, c2f / f2c */

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
