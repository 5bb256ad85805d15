/*
 * grequest.c — generalized requests whose query, free and cancel
 * procedures are Fortran.  C's callbacks receive an extra_state pointer:
 * it points at a record of the three procedures and the user's own extra
 * state, freed after the free procedure has run.
 */
#include <stdlib.h>

#include "uzf.h"
#include "uzf_core.h"

typedef void query_fn(MPI_Aint *extra_state, MPI_Fint *status, MPI_Fint *ierror);
typedef void free_fn(MPI_Aint *extra_state, MPI_Fint *ierror);
typedef void cancel_fn(MPI_Aint *extra_state, MPI_Fint *complete, MPI_Fint *ierror);

struct grequest {
    uzf_proc query, free, cancel;
    MPI_Aint extra_state;
};

static int query(void *extra, MPI_Status *status)
{
    struct grequest *g = extra;
    MPI_Fint ierror = MPI_SUCCESS;
    ((query_fn *)g->query)(&g->extra_state, (MPI_Fint *)status, &ierror);
    return ierror;
}

static int release(void *extra)
{
    struct grequest *g = extra;
    MPI_Fint ierror = MPI_SUCCESS;
    ((free_fn *)g->free)(&g->extra_state, &ierror);
    free(g);
    return ierror;
}

static int cancel(void *extra, int complete)
{
    struct grequest *g = extra;
    MPI_Fint ierror = MPI_SUCCESS, fcomplete = uzf_to_logical(complete);
    ((cancel_fn *)g->cancel)(&g->extra_state, &fcomplete, &ierror);
    return ierror;
}

int uzf_Grequest_start(uzf_proc query_fn, uzf_proc free_fn, uzf_proc cancel_fn,
                       const MPI_Aint *extra_state, MPI_Fint *request)
{
    struct grequest *g = malloc(sizeof(*g));
    if (!g)
        return uzf_nomem();
    *g = (struct grequest){ query_fn, free_fn, cancel_fn, *extra_state };
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = PMPI_Grequest_start(query, release, cancel, g, &r);
    if (rc == MPI_SUCCESS)
        *request = PMPI_Request_c2f(r);
    else
        free(g);
    return rc;
}
