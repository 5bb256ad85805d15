/*
 * support.c — small services of the generated glue: temporary arrays of C
 * handles, the lengths of handle arrays that a communicator determines,
 * and raising the errors the glue finds itself.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "uzf.h"

void *uzf_tmp(void *local, size_t local_bytes, int n, size_t elem)
{
    size_t bytes = n > 0 ? (size_t)n * elem : 0;
    if (bytes <= local_bytes)
        return local;
    return malloc(bytes);
}

void uzf_tmp_free(void *p, void *local)
{
    if (p != local)
        free(p);
}

/* MPI_Alltoallw's type arrays have an entry per process of the remote
 * group (the group itself for an intracommunicator). */
int uzf_comm_peers(MPI_Comm comm)
{
    int inter = 0, n = 0;
    if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return 0;
    if ((inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) != MPI_SUCCESS)
        return 0;
    return n;
}

/* MPI_Neighbor_alltoallw's: one per neighbour, out (send) or in (receive). */
int uzf_neighbor_degree(MPI_Comm comm, int out)
{
    int topo = MPI_UNDEFINED, in_deg = 0, out_deg = 0, weighted;
    if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
        return 0;
    switch (topo) {
    case MPI_CART: {
        int ndims = 0;
        PMPI_Cartdim_get(comm, &ndims);
        return 2 * ndims;
    }
    case MPI_GRAPH: {
        int rank = 0, n = 0;
        PMPI_Comm_rank(comm, &rank);
        PMPI_Graph_neighbors_count(comm, rank, &n);
        return n;
    }
    case MPI_DIST_GRAPH:
        PMPI_Dist_graph_neighbors_count(comm, &in_deg, &out_deg, &weighted);
        return out ? out_deg : in_deg;
    }
    return 0;
}

/* ---------------------------------------------------------------- errors */

/* Each message gets one error code of its own (MPI_Add_error_code), made
 * the first time it is raised, so that MPI_Error_string explains it. */
struct message_code {
    const char *message;
    int code;
    struct message_code *next;
};
static struct message_code *codes;
static pthread_mutex_t codes_lock = PTHREAD_MUTEX_INITIALIZER;

static int code_for(int errclass, const char *message)
{
    pthread_mutex_lock(&codes_lock);
    struct message_code *m = codes;
    while (m && m->message != message)
        m = m->next;
    if (!m && (m = malloc(sizeof(*m))) != NULL) {
        m->message = message;
        if (PMPI_Add_error_code(errclass, &m->code) != MPI_SUCCESS ||
            PMPI_Add_error_string(m->code, (char *)message) != MPI_SUCCESS) {
            free(m);
            m = NULL;
        } else {
            m->next = codes;
            codes = m;
        }
    }
    int code = m ? m->code : errclass;
    pthread_mutex_unlock(&codes_lock);
    return code;
}

int uzf_raise(const MPI_Fint *comm, int errclass, const char *message)
{
    int running = 0, finished = 0;
    PMPI_Initialized(&running);
    PMPI_Finalized(&finished);
    if (!running || finished)
        return errclass;
    int code = code_for(errclass, message);
    MPI_Comm c = comm ? PMPI_Comm_f2c(*comm) : MPI_COMM_WORLD;
    if (c == MPI_COMM_NULL)
        c = MPI_COMM_WORLD;
    PMPI_Comm_call_errhandler(c, code);
    return code;
}

int uzf_nomem(void)
{
    return uzf_raise(NULL, MPI_ERR_NO_MEM, "out of memory in the Fortran bindings");
}
