/*
 * type_attr.c — keyvals and attributes on datatypes, through the shared
 * attribute engine (base/attr.h).  Predefined types may carry attributes
 * too; their lists live in the built-in objects, and MPI_Finalize deletes
 * them (as MPICH does), since those types are never freed.
 */
#include "base/attr.h"
#include "datatype/datatype.h"

int uz_mpi_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                              MPI_Type_delete_attr_function *type_delete_attr_fn,
                              int *type_keyval, void *extra_state)
{
    return uz_keyval_create(UZ_ATTR_TYPE, (uz_attr_fn)type_copy_attr_fn,
                            (uz_attr_fn)type_delete_attr_fn, extra_state, type_keyval);
}

int uz_mpi_Type_free_keyval(int *type_keyval)
{
    return uz_keyval_free(UZ_ATTR_TYPE, type_keyval);
}

int uz_mpi_Type_set_attr(uz_datatype *datatype, int type_keyval, void *attribute_val)
{
    return uz_attr_set(UZ_ATTR_TYPE, uz_datatype_handle(datatype), &datatype->attrs, type_keyval,
                       attribute_val);
}

int uz_mpi_Type_get_attr(uz_datatype *datatype, int type_keyval, void *attribute_val, int *flag)
{
    return uz_attr_get(UZ_ATTR_TYPE, datatype->attrs, type_keyval, (void **)attribute_val, flag);
}

int uz_mpi_Type_delete_attr(uz_datatype *datatype, int type_keyval)
{
    return uz_attr_delete(UZ_ATTR_TYPE, uz_datatype_handle(datatype), &datatype->attrs,
                          type_keyval);
}

int uz_datatype_finalize_attrs(void)
{
    for (int i = 0; i < UZ_DATATYPE_TABLE_SIZE; i++) {
        uz_datatype *dt = uz_datatype_builtin[i];
        if (dt == NULL || dt->attrs == NULL)
            continue;
        int err = uz_attr_delete_all(UZ_ATTR_TYPE, uz_datatype_handle(dt), &dt->attrs);
        if (err)
            return err;
    }
    return MPI_SUCCESS;
}
