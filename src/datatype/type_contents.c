/*
 * type_contents.c — MPI_Type_get_envelope and MPI_Type_get_contents: the
 * combiner of a type and the arguments it was made with, exactly as given
 * (recorded by uz_dt_set_contents).  Types made by a large-count (_c)
 * constructor recorded large counts, which only the _c queries can return;
 * the int queries refuse them with MPI_ERR_TYPE, as MPICH does.
 */
#include "base/errors.h"
#include "datatype/dt_engine.h"
#include "datatype/dt_internal.h"

static void envelope(const uz_datatype *dt, MPI_Count *ni, MPI_Count *na, MPI_Count *nl,
                     MPI_Count *nd, int *combiner)
{
    const struct uz_dt_contents *c = dt->contents;
    *combiner = dt->combiner;
    *ni = c ? c->ni : 0;
    *na = c ? c->na : 0;
    *nl = c ? c->nl : 0;
    *nd = c ? c->nd : 0;
}

int uz_mpi_Type_get_envelope(uz_datatype *datatype, int *num_integers, int *num_addresses,
                             int *num_datatypes, int *combiner)
{
    MPI_Count ni, na, nl, nd;
    envelope(datatype, &ni, &na, &nl, &nd, combiner);
    if (nl > 0)
        return uz_err_make(MPI_ERR_TYPE, "the datatype was made by a large-count constructor: use "
                           "MPI_Type_get_envelope_c");
    *num_integers = (int)ni;
    *num_addresses = (int)na;
    *num_datatypes = (int)nd;
    return MPI_SUCCESS;
}

int uz_mpi_Type_get_envelope_c(uz_datatype *datatype, MPI_Count *num_integers,
                               MPI_Count *num_addresses, MPI_Count *num_large_counts,
                               MPI_Count *num_datatypes, int *combiner)
{
    envelope(datatype, num_integers, num_addresses, num_large_counts, num_datatypes, combiner);
    return MPI_SUCCESS;
}

static int contents(const uz_datatype *dt, MPI_Count max_i, MPI_Count max_a, MPI_Count max_l,
                    MPI_Count max_d, int ints[], MPI_Aint addrs[], MPI_Count counts[],
                    MPI_Datatype types[])
{
    const struct uz_dt_contents *c = dt->contents;
    if (c == NULL)
        return uz_err_make(MPI_ERR_TYPE, "%s is a named predefined datatype, which has no "
                           "contents", dt->name[0] ? dt->name : "the datatype");
    if (max_i < c->ni || max_a < c->na || max_l < c->nl || max_d < c->nd)
        return uz_err_make(MPI_ERR_ARG, "the arrays are too short for the contents (need %lld "
                           "integers, %lld addresses, %lld large counts, %lld datatypes)",
                           (long long)c->ni, (long long)c->na, (long long)c->nl,
                           (long long)c->nd);
    for (MPI_Count i = 0; i < c->ni; i++)
        ints[i] = c->ints[i];
    for (MPI_Count i = 0; i < c->na; i++)
        addrs[i] = c->addrs[i];
    for (MPI_Count i = 0; i < c->nl; i++)
        counts[i] = c->counts[i];
    /* Derived types come back as new references the user must free;
     * predefined ones (and Fortran 90 types) are not counted. */
    for (MPI_Count i = 0; i < c->nd; i++) {
        uz_dt_retain(c->types[i]);
        types[i] = uz_datatype_handle(c->types[i]);
    }
    return MPI_SUCCESS;
}

int uz_mpi_Type_get_contents(uz_datatype *datatype, int max_integers, int max_addresses,
                             int max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[])
{
    if (datatype->contents && datatype->contents->nl > 0)
        return uz_err_make(MPI_ERR_TYPE, "the datatype was made by a large-count constructor: use "
                           "MPI_Type_get_contents_c");
    return contents(datatype, max_integers, max_addresses, 0, max_datatypes, array_of_integers,
                    array_of_addresses, NULL, array_of_datatypes);
}

int uz_mpi_Type_get_contents_c(uz_datatype *datatype, MPI_Count max_integers,
                               MPI_Count max_addresses, MPI_Count max_large_counts,
                               MPI_Count max_datatypes, int array_of_integers[],
                               MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                               MPI_Datatype array_of_datatypes[])
{
    return contents(datatype, max_integers, max_addresses, max_large_counts, max_datatypes,
                    array_of_integers, array_of_addresses, array_of_large_counts,
                    array_of_datatypes);
}
