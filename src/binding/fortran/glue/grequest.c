/*
 * grequest.c — generalized requests whose query, free and cancel
 * procedures are Fortran.  C's callbacks receive an extra_state pointer:
 * it points at a record of the three procedures and the address of the
 * program's EXTRA_STATE variable, freed after the free procedure has run.
 *
 * The procedures get that variable itself, not a copy taken at
 * MPI_GREQUEST_START: what one of them stores in it (a free procedure
 * counting down, a query procedure keeping a result) is what the program
 * and the next procedure see, as with MPICH and Open MPI, which also pass
 * its address on.  So, as with a buffer given to MPI_BUFFER_ATTACH, the
 * variable must outlive the request.
 */
#include <stdlib.h>

#include "uzf.h"
#include "uzf_core.h"

typedef void query_fn(MPI_Aint *extra_state, MPI_Fint *status, MPI_Fint *ierror);
typedef void free_fn(MPI_Aint *extra_state, MPI_Fint *ierror);
typedef void cancel_fn(MPI_Aint *extra_state, MPI_Fint *complete, MPI_Fint *ierror);

struct grequest {
    uzf_proc query, free, cancel;
    MPI_Aint *extra_state;      /* the program's variable */
};

static int query(void *extra, MPI_Status *status)
{
    struct grequest *g = extra;
    MPI_Fint ierror = MPI_SUCCESS;
    ((query_fn *)g->query)(g->extra_state, (MPI_Fint *)status, &ierror);
    return ierror;
}

static int release(void *extra)
{
    struct grequest *g = extra;
    MPI_Fint ierror = MPI_SUCCESS;
    ((free_fn *)g->free)(g->extra_state, &ierror);
    free(g);
    return ierror;
}

static int cancel(void *extra, int complete)
{
    struct grequest *g = extra;
    MPI_Fint ierror = MPI_SUCCESS, fcomplete = uzf_to_logical(complete);
    ((cancel_fn *)g->cancel)(g->extra_state, &fcomplete, &ierror);
    return ierror;
}

int uzf_Grequest_start(uzf_proc query_fn, uzf_proc free_fn, uzf_proc cancel_fn,
                       const MPI_Aint *extra_state, MPI_Fint *request)
{
    struct grequest *g = malloc(sizeof(*g));
    if (!g)
        return uzf_nomem();
    *g = (struct grequest){ query_fn, free_fn, cancel_fn, (MPI_Aint *)extra_state };
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = PMPI_Grequest_start(query, release, cancel, g, &r);
    if (rc == MPI_SUCCESS)
        *request = PMPI_Request_c2f(r);
    else
        free(g);
    return rc;
}
