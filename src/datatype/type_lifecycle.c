/*
 * type_lifecycle.c — a datatype's life: commit, dup, free, names, and the
 * references that keep a freed type alive for the operations and derived
 * types that still use it.
 *
 * The user's handle holds one reference; MPI_Type_free drops it (after the
 * attribute delete callbacks), so a type that a pending operation retained,
 * or that a derived type lists in its contents, lives on until they are
 * done with it.  Predefined and Fortran 90 types are never freed.
 */
#include <stdlib.h>
#include <string.h>

#include "base/attr.h"
#include "base/errors.h"
#include "datatype/dt_engine.h"
#include "datatype/dt_internal.h"

void uz_dt_retain(uz_datatype *dt)
{
    uz_object_retain(&dt->obj);
}

void uz_dt_release(uz_datatype *dt)
{
    if (!uz_object_release(&dt->obj))
        return;
    /* Attributes are deleted when the user frees the type; a type that
     * dies here without a user free (an internal one) has none, except
     * when a delete callback failed at free time: those are dropped now. */
    if (dt->attrs != NULL)
        uz_attr_delete_all(UZ_ATTR_TYPE, uz_datatype_handle(dt), &dt->attrs);
    uz_object_destroy(&dt->obj);
    uz_dt_free_contents(dt->contents);
    free(dt->layout);
    uz_object_free(dt, sizeof(*dt));
}

int uz_mpi_Type_commit(MPI_Datatype *datatype)
{
    uz_datatype *dt = uz_datatype_get(*datatype);
    if (dt == NULL)
        return uz_err_make(MPI_ERR_TYPE, "invalid datatype (argument datatype)");
    /* The layout was flattened and normalised when the type was made;
     * committing only marks it usable for communication. */
    dt->committed = 1;
    return MPI_SUCCESS;
}

int uz_mpi_Type_free(MPI_Datatype *datatype)
{
    uz_datatype *dt = uz_datatype_get(*datatype);
    if (dt == NULL)
        return uz_err_make(MPI_ERR_TYPE, "invalid datatype (argument datatype)");
    if (dt->obj.builtin)
        return uz_err_make(MPI_ERR_TYPE, "%s is a predefined datatype and cannot be freed",
                           dt->name[0] ? dt->name : "the datatype");
    int err = uz_attr_delete_all(UZ_ATTR_TYPE, *datatype, &dt->attrs);
    if (err)
        return err;
    *datatype = MPI_DATATYPE_NULL;
    uz_dt_release(dt);
    return MPI_SUCCESS;
}

int uz_mpi_Type_dup(uz_datatype *oldtype, MPI_Datatype *newtype)
{
    uz_datatype *dt = NULL;
    int err = uz_dt_dup(oldtype, &dt);
    *newtype = err ? MPI_DATATYPE_NULL : (MPI_Datatype)dt;
    return err;
}

int uz_dt_dup(uz_datatype *oldtype, uz_datatype **out)
{
    uz_datatype *dt = uz_object_alloc(sizeof(*dt));
    *out = NULL;
    if (dt == NULL)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory duplicating a datatype");
    *dt = *oldtype;
    uz_object_init(&dt->obj, UZ_MAGIC_DATATYPE);
    dt->predefined = 0;
    dt->name[0] = '\0';
    dt->attrs = NULL;
    dt->contents = NULL;
    dt->layout = uz_dl_copy(oldtype->layout);
    int err = dt->layout ? MPI_SUCCESS
                         : uz_err_make(MPI_ERR_NO_MEM, "out of memory duplicating a datatype");
    if (!err)
        err = uz_dt_set_contents(dt, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 0, NULL, 1, &oldtype);
    if (!err)
        err = uz_attr_copy_all(UZ_ATTR_TYPE, uz_datatype_handle(oldtype), oldtype->attrs,
                               (MPI_Datatype)dt, &dt->attrs);
    if (err) {
        /* A failed copy callback: the attributes copied before it are
         * deleted again, and the caller gets MPI_DATATYPE_NULL (as from
         * MPICH), not a half-made type. */
        uz_dt_release(dt);
        return err;
    }
    dt->large = 0;
    *out = dt;
    return MPI_SUCCESS;
}

int uz_mpi_Type_set_name(uz_datatype *datatype, const char *type_name)
{
    size_t n = strlen(type_name);
    if (n > MPI_MAX_OBJECT_NAME - 1)
        n = MPI_MAX_OBJECT_NAME - 1;
    memcpy(datatype->name, type_name, n);
    datatype->name[n] = '\0';
    return MPI_SUCCESS;
}

int uz_mpi_Type_get_name(uz_datatype *datatype, char *type_name, int *resultlen)
{
    /* datatype is NULL for MPI_DATATYPE_NULL, whose name is the constant's. */
    const char *name = datatype ? datatype->name : "MPI_DATATYPE_NULL";
    size_t n = strnlen(name, MPI_MAX_OBJECT_NAME - 1);
    memcpy(type_name, name, n);
    type_name[n] = '\0';
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
