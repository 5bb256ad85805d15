/*
 * handles_c.c — the C half of handles.f90: each function takes Fortran
 * handles (MPI_Fint, by address as Fortran passes them), converts them with
 * the MPI_X_f2c functions of the C interface, uses the objects, and hands
 * new ones back through MPI_X_c2f.
 */
#include <string.h>

#include <mpi.h>

void c_check_comm(const MPI_Fint *fcomm, const int *size, MPI_Fint *fnew, int *ok)
{
    MPI_Comm comm = MPI_Comm_f2c(*fcomm), dup;
    int n = -1;
    MPI_Comm_size(comm, &n);
    *ok = n == *size && comm != MPI_COMM_NULL && MPI_Comm_c2f(comm) == *fcomm;
    MPI_Comm_dup(comm, &dup);
    *fnew = MPI_Comm_c2f(dup);
}

void c_make_type(MPI_Fint *ftype)
{
    MPI_Datatype t;
    MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    *ftype = MPI_Type_c2f(t);
}

void c_check_status(const MPI_Fint *fstatus, const int *source, const int *tag, MPI_Fint *back,
                    int *ok)
{
    MPI_Status s;
    int count = -1;
    MPI_Status_f2c(fstatus, &s);
    MPI_Get_count(&s, MPI_DOUBLE, &count);
    *ok = s.MPI_SOURCE == *source && s.MPI_TAG == *tag && count == 4;
    MPI_Status_c2f(&s, back);
}

void c_check_status08(MPI_F08_status *f08, const int *source, const int *tag, int *ok)
{
    MPI_Status s;
    MPI_F08_status back;
    MPI_Status_f082c(f08, &s);
    MPI_Status_c2f08(&s, &back);
    *ok = s.MPI_SOURCE == *source && s.MPI_TAG == *tag && back.MPI_SOURCE == *source &&
          memcmp(&back, f08, sizeof(back)) == 0;
}

void c_wait(MPI_Fint *frequest, int *ok)
{
    MPI_Request r = MPI_Request_f2c(*frequest);
    *ok = MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && r == MPI_REQUEST_NULL;
    *frequest = MPI_Request_c2f(r);
}

void c_reduce_with(const MPI_Fint *fop, const MPI_Fint *fcomm, const int *value, int *result)
{
    MPI_Allreduce(value, result, 1, MPI_INTEGER, MPI_Op_f2c(*fop), MPI_Comm_f2c(*fcomm));
}

void c_info_value(const MPI_Fint *finfo, int *ok)
{
    char value[32];
    int buflen = sizeof(value), flag = 0;
    MPI_Info_get_string(MPI_Info_f2c(*finfo), "made_in", &buflen, value, &flag);
    *ok = flag && strcmp(value, "fortran") == 0;
}

void c_group_size(const MPI_Fint *fgroup, int *size)
{
    MPI_Group_size(MPI_Group_f2c(*fgroup), size);
}
