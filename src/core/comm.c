/*
 * comm.c — MPI_COMM_WORLD and MPI_COMM_SELF, and the communicator queries
 * every program starts with (rank, size, names).
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/runtime.h"
#include "coll/coll.h"
#include "core/comm.h"

/* Error handlers are set statically so that an error raised before MPI_Init
 * (on MPI_COMM_SELF, the MPI-4 default) already has one. */
uz_comm uz_comm_world = {
    .obj = { .magic = UZ_MAGIC_COMM, .builtin = 1, .refcount = 1 },
    .errhandler = &uz_errhandler_fatal,
    .name = "MPI_COMM_WORLD",
};
uz_comm uz_comm_self = {
    .obj = { .magic = UZ_MAGIC_COMM, .builtin = 1, .refcount = 1 },
    .errhandler = &uz_errhandler_fatal,
    .name = "MPI_COMM_SELF",
};

/* Context ids 0..3 belong to the two built-in communicators (each uses its
 * id for point-to-point and id+1 for collectives). */
enum { CONTEXT_WORLD = 0, CONTEXT_SELF = 2 };

int uz_comm_init_builtins(void)
{
    uz_group *world_group = uz_group_new(uz_rt.world_size, NULL);
    int *self_rank = malloc(sizeof(int));
    if (!world_group || !self_rank) {
        free(self_rank);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating MPI_COMM_WORLD");
    }
    *self_rank = uz_rt.world_rank;
    uz_group *self_group = uz_group_new(1, self_rank);
    if (!self_group)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating MPI_COMM_SELF");

    uz_comm_world.rank = uz_rt.world_rank;
    uz_comm_world.size = uz_comm_world.remote_size = uz_rt.world_size;
    uz_comm_world.local_group = uz_comm_world.remote_group = world_group;
    uz_comm_world.context_id = CONTEXT_WORLD;
    uz_comm_p2p_update(&uz_comm_world);

    uz_comm_self.rank = 0;
    uz_comm_self.size = uz_comm_self.remote_size = 1;
    uz_comm_self.local_group = uz_comm_self.remote_group = self_group;
    uz_comm_self.context_id = CONTEXT_SELF;
    uz_comm_p2p_update(&uz_comm_self);
    return MPI_SUCCESS;
}

/* Also forget what their collectives set up: a runtime started again
 * (sessions) begins them afresh, counting from 0 on every rank. */
void uz_comm_finalize_builtins(void)
{
    uz_coll_comm_destroy(&uz_comm_world);
    uz_coll_comm_destroy(&uz_comm_self);
    uz_comm_world.coll_seq = uz_comm_self.coll_seq = 0;
    uz_comm_world.coll_calls = uz_comm_self.coll_calls = 0;
    uz_group_release(uz_comm_world.local_group);
    uz_group_release(uz_comm_self.local_group);
    uz_comm_world.local_group = uz_comm_world.remote_group = NULL;
    uz_comm_self.local_group = uz_comm_self.remote_group = NULL;
}

void uz_comm_retain(uz_comm *c)
{
    uz_object_retain(&c->obj);
}

void uz_comm_release(uz_comm *c)
{
    if (!uz_object_release(&c->obj))
        return;
    uz_comm_destroy_parts(c);
    if (c->remote_group != c->local_group)
        uz_group_release(c->remote_group);
    uz_group_release(c->local_group);
    uz_errhandler_release(c->errhandler);
    uz_object_free(c, sizeof(*c));
}

/* --------------------------------------------------- MPI procedures */

int uz_mpi_Comm_rank(uz_comm *comm, int *rank)
{
    *rank = comm->rank;
    return MPI_SUCCESS;
}

int uz_mpi_Comm_size(uz_comm *comm, int *size)
{
    *size = comm->size;
    return MPI_SUCCESS;
}

int uz_mpi_Comm_set_name(uz_comm *comm, const char *comm_name)
{
    size_t n = strlen(comm_name);
    if (n >= MPI_MAX_OBJECT_NAME)
        return uz_err_make(MPI_ERR_ARG, "name of %zu characters is longer than "
                           "MPI_MAX_OBJECT_NAME - 1 (%d)", n, MPI_MAX_OBJECT_NAME - 1);
    memcpy(comm->name, comm_name, n + 1);
    return MPI_SUCCESS;
}

int uz_mpi_Comm_get_name(uz_comm *comm, char *comm_name, int *resultlen)
{
    /* comm is NULL for MPI_COMM_NULL, whose name is the constant's. */
    const char *name = comm ? comm->name : "MPI_COMM_NULL";
    size_t n = strlen(name);
    memcpy(comm_name, name, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
