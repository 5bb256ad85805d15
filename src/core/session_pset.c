/*
 * session_pset.c — the process sets a session offers and the groups made
 * from them (MPI-4.1 §11.3.2): MPI_Session_get_num_psets,
 * MPI_Session_get_nth_pset, MPI_Session_get_pset_info and
 * MPI_Group_from_session_pset.
 *
 * The sets are fixed for the life of the job, in this order:
 *   mpi://WORLD        every process of the job (MPI_COMM_WORLD's group);
 *   mpi://SELF         this process alone;
 *   mpi://uzura/host   the processes of the job on this process's host,
 *                      in world-rank order: the group MPI_Comm_split_type
 *                      with MPI_COMM_TYPE_SHARED would give, known here
 *                      without communicating (wire-up numbered the hosts).
 * Names are compared without regard to case.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/errors.h"
#include "base/runtime.h"
#include "core/comm_impl.h"
#include "core/info.h"
#include "core/session.h"
#include "pt2pt/pt2pt.h"

enum pset { PSET_WORLD, PSET_SELF, PSET_HOST, NUM_PSETS };

static const char *const pset_names[NUM_PSETS] = {
    [PSET_WORLD] = "mpi://WORLD",
    [PSET_SELF] = "mpi://SELF",
    [PSET_HOST] = "mpi://uzura/host",
};

static int pset_by_name(const char *fn, const char *name, enum pset *out)
{
    for (int i = 0; i < NUM_PSETS; i++) {
        if (strcasecmp(name, pset_names[i]) == 0) {
            *out = (enum pset)i;
            return MPI_SUCCESS;
        }
    }
    return uz_err_make(MPI_ERR_ARG, "%s: unknown process set '%.200s' (argument pset_name; this "
                       "job has mpi://WORLD, mpi://SELF and mpi://uzura/host)", fn, name);
}

/* The world ranks of a set, malloc'd, and how many. */
static int *pset_members(enum pset p, int *n)
{
    int size = uz_rt.world_size, me = uz_rt.world_rank;
    int *w = malloc(sizeof(int) * (size_t)size);
    if (!w)
        return NULL;
    *n = 0;
    for (int r = 0; r < size; r++) {
        int in = p == PSET_WORLD || (p == PSET_SELF && r == me) ||
                 (p == PSET_HOST && uz_pt2pt_host_of(r) == uz_pt2pt_host_of(me));
        if (in)
            w[(*n)++] = r;
    }
    return w;
}

/* ------------------------------------------------------ MPI procedures */

int uz_mpi_Session_get_num_psets(uz_session *session, uz_info *info, int *npset_names)
{
    *npset_names = NUM_PSETS;
    return MPI_SUCCESS;
}

int uz_mpi_Session_get_nth_pset(uz_session *session, uz_info *info, int n, int *pset_len,
                                char *pset_name)
{
    if (n < 0 || n >= NUM_PSETS)
        return uz_err_make(MPI_ERR_ARG, "MPI_Session_get_nth_pset: invalid n = %d (the session has "
                           "%d process sets, 0 to %d)", n, NUM_PSETS, NUM_PSETS - 1);
    if (*pset_len < 0)
        return uz_err_make(MPI_ERR_ARG, "MPI_Session_get_nth_pset: invalid *pset_len %d", *pset_len);
    const char *name = pset_names[n];
    int need = (int)strlen(name) + 1;
    /* A length of 0 asks for the length only; a short buffer gets the
     * name cut to fit.  Either way *pset_len says what the name needs. */
    if (*pset_len > 0) {
        if (!pset_name)
            return uz_err_make(MPI_ERR_ARG, "invalid argument: pset_name is NULL");
        snprintf(pset_name, (size_t)*pset_len, "%s", name);
    }
    *pset_len = need;
    return MPI_SUCCESS;
}

int uz_mpi_Session_get_pset_info(uz_session *session, const char *pset_name, MPI_Info *info)
{
    enum pset p = PSET_WORLD;
    int err = pset_by_name("MPI_Session_get_pset_info", pset_name, &p);
    if (err)
        return err;
    int n;
    int *w = pset_members(p, &n);
    uz_info *i = w ? uz_info_new() : NULL;
    free(w);
    char size[16];
    snprintf(size, sizeof(size), "%d", n);
    if (!i || uz_info_set(i, "mpi_size", size) != 0) {
        if (i)
            uz_info_free(i);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating an info object");
    }
    *info = uz_info_handle(i);
    return MPI_SUCCESS;
}

int uz_mpi_Group_from_session_pset(uz_session *session, const char *pset_name, MPI_Group *newgroup)
{
    enum pset p = PSET_WORLD;
    int err = pset_by_name("MPI_Group_from_session_pset", pset_name, &p);
    if (err)
        return err;
    int n;
    int *w = pset_members(p, &n);
    uz_group *g = w ? uz_group_from_world_ranks(n, w) : NULL;
    free(w);
    if (!g)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a group");
    /* Communicators made from it (and from groups made from it) derive
     * from the session. */
    uz_session_retain(session);
    g->session = session;
    *newgroup = uz_group_handle(g);
    return MPI_SUCCESS;
}
