/*
 * comm_query.c — what a program can ask of a communicator beyond rank and
 * size: its groups, whether it is an intercommunicator, how it compares
 * with another and its info hints (its parent: dpm_spawn.c).
 */
#include <stdlib.h>

#include "base/errors.h"
#include "core/alloc_kinds.h"
#include "core/comm_impl.h"
#include "core/info.h"

int uz_mpi_Comm_group(uz_comm *comm, MPI_Group *group)
{
    uz_group_retain(comm->local_group);
    *group = uz_group_handle(comm->local_group);
    return MPI_SUCCESS;
}

int uz_mpi_Comm_remote_group(uz_comm *comm, MPI_Group *group)
{
    if (!comm->is_inter)
        return uz_err_make(MPI_ERR_COMM, "MPI_Comm_remote_group needs an intercommunicator");
    uz_group_retain(comm->remote_group);
    *group = uz_group_handle(comm->remote_group);
    return MPI_SUCCESS;
}

int uz_mpi_Comm_remote_size(uz_comm *comm, int *size)
{
    if (!comm->is_inter)
        return uz_err_make(MPI_ERR_COMM, "MPI_Comm_remote_size needs an intercommunicator");
    *size = comm->remote_size;
    return MPI_SUCCESS;
}

int uz_mpi_Comm_test_inter(uz_comm *comm, int *flag)
{
    *flag = comm->is_inter;
    return MPI_SUCCESS;
}

/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL for two groups. */
static int group_relation(const uz_group *a, const uz_group *b)
{
    int result;
    if (uz_group_compare(a, b, &result) != MPI_SUCCESS)
        return MPI_UNEQUAL;
    return result;
}

int uz_mpi_Comm_compare(uz_comm *comm1, uz_comm *comm2, int *result)
{
    if (comm1 == comm2) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (comm1->is_inter != comm2->is_inter) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    int local = group_relation(comm1->local_group, comm2->local_group);
    int remote = comm1->is_inter ? group_relation(comm1->remote_group, comm2->remote_group)
                                 : MPI_IDENT;
    if (local == MPI_IDENT && remote == MPI_IDENT)
        *result = MPI_CONGRUENT;
    else if (local != MPI_UNEQUAL && remote != MPI_UNEQUAL)
        *result = MPI_SIMILAR;
    else
        *result = MPI_UNEQUAL;
    return MPI_SUCCESS;
}

/* Hints are kept as given: none of them changes what Uzura does yet, and
 * MPI_Comm_get_info then reports them back (what MPICH does too). */
int uz_mpi_Comm_set_info(uz_comm *comm, uz_info *info)
{
    uz_info *copy = uz_info_dup(info);
    if (!copy)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory copying info");
    uz_info *old = comm->info;
    comm->info = copy;
    if (old)
        uz_info_free(old);
    return MPI_SUCCESS;
}

int uz_mpi_Comm_get_info(uz_comm *comm, MPI_Info *info_used)
{
    uz_info *copy = uz_info_dup(comm->info);
    /* Besides the hints: the memory allocation kinds it supports (MPI-4.1 §12.4.3). */
    if (copy && uz_alloc_kinds_report(comm, copy) != 0) {
        uz_info_free(copy);
        copy = NULL;
    }
    if (!copy)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory copying info");
    *info_used = uz_info_handle(copy);
    return MPI_SUCCESS;
}
