/*
 * attributes.c — attribute values between Fortran and C.
 *
 * A value set from Fortran is an INTEGER(KIND=MPI_ADDRESS_KIND) (a default
 * INTEGER for MPI-1's MPI_ATTR_PUT, sign-extended); C gets it as the
 * address of a cell that holds it (attr_values.c), which is what a C
 * program reading it expects.  Fortran reading gives back that integer, or,
 * for a value C set, its address as an integer (truncated to an INTEGER by
 * MPI_ATTR_GET) — except the predefined attributes, which C keeps as
 * pointers to their values and Fortran reads as the values (MPI_TAG_UB is
 * an integer, MPI_WIN_BASE the window's address, MPI_WIN_SIZE its size).
 */
#include "uzf.h"
#include "uzf_core.h"

static MPI_Aint comm_value(int keyval, void *v)
{
    switch (keyval) {
    case MPI_TAG_UB: case MPI_IO: case MPI_HOST: case MPI_WTIME_IS_GLOBAL:
    case MPI_APPNUM: case MPI_LASTUSEDCODE: case MPI_UNIVERSE_SIZE:
        return *(int *)v;
    }
    return uzf_attr_fortran_value(v);
}

static MPI_Aint win_value(int keyval, void *v)
{
    switch (keyval) {
    case MPI_WIN_SIZE:
        return *(MPI_Aint *)v;
    case MPI_WIN_DISP_UNIT: case MPI_WIN_CREATE_FLAVOR: case MPI_WIN_MODEL:
        return *(int *)v;
    }
    if (keyval == MPI_WIN_BASE)
        return (MPI_Aint)v;        /* the address itself */
    return uzf_attr_fortran_value(v);
}

static MPI_Aint type_value(int keyval, void *v)
{
    return uzf_attr_fortran_value(v);
}

static int got(int rc, int flag, MPI_Aint value, MPI_Aint *attribute_val, MPI_Fint *fflag)
{
    if (rc != MPI_SUCCESS)
        return rc;
    *fflag = uzf_to_logical(flag);
    if (flag)
        *attribute_val = value;
    return MPI_SUCCESS;
}

/* The cell of a value that was not stored goes at once. */
static int stored(int rc, void *cell)
{
    if (rc != MPI_SUCCESS)
        uzf_attr_cell_free(cell);
    return rc;
}

int uzf_Comm_set_attr(const MPI_Fint *comm, const MPI_Fint *keyval, const MPI_Aint *attribute_val)
{
    void *cell = uzf_attr_cell_new(*attribute_val);
    if (cell == NULL)
        return uzf_raise(comm, MPI_ERR_NO_MEM, "out of memory in MPI_COMM_SET_ATTR");
    return stored(PMPI_Comm_set_attr(PMPI_Comm_f2c(*comm), *keyval, cell), cell);
}

int uzf_Comm_get_attr(const MPI_Fint *comm, const MPI_Fint *keyval, MPI_Aint *attribute_val,
                      MPI_Fint *flag)
{
    void *v = NULL;
    int f = 0, rc = PMPI_Comm_get_attr(PMPI_Comm_f2c(*comm), *keyval, &v, &f);
    return got(rc, f, f ? comm_value(*keyval, v) : 0, attribute_val, flag);
}

int uzf_Type_set_attr(const MPI_Fint *datatype, const MPI_Fint *keyval, const MPI_Aint *attribute_val)
{
    void *cell = uzf_attr_cell_new(*attribute_val);
    if (cell == NULL)
        return uzf_nomem();
    return stored(PMPI_Type_set_attr(PMPI_Type_f2c(*datatype), *keyval, cell), cell);
}

int uzf_Type_get_attr(const MPI_Fint *datatype, const MPI_Fint *keyval, MPI_Aint *attribute_val,
                      MPI_Fint *flag)
{
    void *v = NULL;
    int f = 0, rc = PMPI_Type_get_attr(PMPI_Type_f2c(*datatype), *keyval, &v, &f);
    return got(rc, f, f ? type_value(*keyval, v) : 0, attribute_val, flag);
}

int uzf_Win_set_attr(const MPI_Fint *win, const MPI_Fint *keyval, const MPI_Aint *attribute_val)
{
    void *cell = uzf_attr_cell_new(*attribute_val);
    if (cell == NULL)
        return uzf_nomem();
    return stored(PMPI_Win_set_attr(PMPI_Win_f2c(*win), *keyval, cell), cell);
}

int uzf_Win_get_attr(const MPI_Fint *win, const MPI_Fint *keyval, MPI_Aint *attribute_val,
                     MPI_Fint *flag)
{
    void *v = NULL;
    int f = 0, rc = PMPI_Win_get_attr(PMPI_Win_f2c(*win), *keyval, &v, &f);
    return got(rc, f, f ? win_value(*keyval, v) : 0, attribute_val, flag);
}

/* MPI-1: default INTEGER values on communicators. */
int uzf_Attr_put(const MPI_Fint *comm, const MPI_Fint *keyval, const MPI_Fint *attribute_val)
{
    void *cell = uzf_attr_cell_new(*attribute_val);
    if (cell == NULL)
        return uzf_raise(comm, MPI_ERR_NO_MEM, "out of memory in MPI_ATTR_PUT");
    return stored(PMPI_Comm_set_attr(PMPI_Comm_f2c(*comm), *keyval, cell), cell);
}

int uzf_Attr_get(const MPI_Fint *comm, const MPI_Fint *keyval, MPI_Fint *attribute_val,
                 MPI_Fint *flag)
{
    MPI_Aint value = 0;
    int rc = uzf_Comm_get_attr(comm, keyval, &value, flag);
    if (rc == MPI_SUCCESS && uzf_logical(*flag))
        *attribute_val = (MPI_Fint)value;
    return rc;
}
