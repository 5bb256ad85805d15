/*
 * type_create.c — the public datatype constructors: contiguous, vector,
 * hvector, indexed, hindexed, indexed_block, hindexed_block, struct and
 * resized, each in its int and large-count (_c) form.
 *
 * Every one becomes a list of pieces for uz_dt_create_pieces() and then
 * records its arguments exactly as given, so that MPI_Type_get_contents
 * returns them: the int forms as integers and addresses, the _c forms as
 * large counts (the tables of MPI-4.1 §5.1.13).
 */
#include <stdlib.h>

#include "base/errors.h"
#include "datatype/dt_engine.h"
#include "datatype/dt_internal.h"

/* ------------------------------------------------------------ helpers */

static int bad_count(MPI_Count v, const char *arg)
{
    return uz_err_make(MPI_ERR_COUNT, "invalid count %lld (argument %s)", (long long)v, arg);
}

/* Blocklengths are counts of elements: MPI_ERR_COUNT, as the generated
 * binding reports for scalar ones. */
static int bad_arg(MPI_Count v, const char *arg)
{
    return uz_err_make(MPI_ERR_COUNT, "invalid count %s = %lld (must not be negative)", arg,
                       (long long)v);
}

static int null_array(const char *arg)
{
    return uz_err_make(MPI_ERR_ARG, "invalid argument: %s is NULL", arg);
}

static int no_mem(void)
{
    return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a datatype");
}

static int scaled(MPI_Count v, MPI_Aint extent, int64_t *out)
{
    if (__builtin_mul_overflow(v, extent, out))
        return uz_err_make(MPI_ERR_ARG, "displacement %lld times extent %lld overflows MPI_Aint",
                           (long long)v, (long long)extent);
    return MPI_SUCCESS;
}

/* Record the arguments and hand the new type to the user. */
static int publish(uz_datatype *dt, int combiner, MPI_Count ni, const int *ints, MPI_Count na,
                   const MPI_Aint *addrs, MPI_Count nl, const MPI_Count *counts, MPI_Count nd,
                   uz_datatype *const *types, MPI_Datatype *newtype)
{
    int err = uz_dt_set_contents(dt, combiner, ni, ints, na, addrs, nl, counts, nd, types);
    if (err) {
        uz_dt_release(dt);
        return err;
    }
    *newtype = (MPI_Datatype)dt;
    return MPI_SUCCESS;
}

/* --------------------------------------------------------- contiguous */

static int contiguous(MPI_Count count, uz_datatype *old, uz_datatype **dt)
{
    if (count < 0)
        return bad_count(count, "count");
    return uz_dt_create_hvector(1, count, 0, old, dt);
}

int uz_mpi_Type_contiguous(int count, uz_datatype *oldtype, MPI_Datatype *newtype)
{
    uz_datatype *dt;
    int err = contiguous(count, oldtype, &dt);
    return err ? err : publish(dt, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 0, NULL, 1,
                               &oldtype, newtype);
}

int uz_mpi_Type_contiguous_c(MPI_Count count, uz_datatype *oldtype, MPI_Datatype *newtype)
{
    uz_datatype *dt;
    int err = contiguous(count, oldtype, &dt);
    return err ? err : publish(dt, MPI_COMBINER_CONTIGUOUS, 0, NULL, 0, NULL, 1, &count, 1,
                               &oldtype, newtype);
}

/* -------------------------------------------------------- (h)vector */

static int hvector(MPI_Count count, MPI_Count bl, MPI_Aint stride, uz_datatype *old,
                   uz_datatype **dt)
{
    if (count < 0)
        return bad_count(count, "count");
    if (bl < 0)
        return bad_arg(bl, "blocklength");
    return uz_dt_create_hvector(count, bl, stride, old, dt);
}

static int vector(MPI_Count count, MPI_Count bl, MPI_Count stride, uz_datatype *old,
                  uz_datatype **dt)
{
    int64_t bytes;
    int err = scaled(stride, old->extent, &bytes);
    return err ? err : hvector(count, bl, bytes, old, dt);
}

int uz_mpi_Type_vector(int count, int blocklength, int stride, uz_datatype *oldtype,
                       MPI_Datatype *newtype)
{
    uz_datatype *dt;
    int err = vector(count, blocklength, stride, oldtype, &dt);
    int ints[3] = { count, blocklength, stride };
    return err ? err : publish(dt, MPI_COMBINER_VECTOR, 3, ints, 0, NULL, 0, NULL, 1, &oldtype,
                               newtype);
}

int uz_mpi_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                         uz_datatype *oldtype, MPI_Datatype *newtype)
{
    uz_datatype *dt;
    int err = vector(count, blocklength, stride, oldtype, &dt);
    MPI_Count counts[3] = { count, blocklength, stride };
    return err ? err : publish(dt, MPI_COMBINER_VECTOR, 0, NULL, 0, NULL, 3, counts, 1, &oldtype,
                               newtype);
}

int uz_mpi_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
                               uz_datatype *oldtype, MPI_Datatype *newtype)
{
    uz_datatype *dt;
    int err = hvector(count, blocklength, stride, oldtype, &dt);
    int ints[2] = { count, blocklength };
    return err ? err : publish(dt, MPI_COMBINER_HVECTOR, 2, ints, 1, &stride, 0, NULL, 1,
                               &oldtype, newtype);
}

int uz_mpi_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                                 uz_datatype *oldtype, MPI_Datatype *newtype)
{
    uz_datatype *dt;
    int err = hvector(count, blocklength, stride, oldtype, &dt);
    MPI_Count counts[3] = { count, blocklength, stride };
    return err ? err : publish(dt, MPI_COMBINER_HVECTOR, 0, NULL, 0, NULL, 3, counts, 1,
                               &oldtype, newtype);
}

/* ------------------------------------------ indexed, hindexed and blocks */

/* Blocks of old: block i has blocklen[i] (or the one `bl`) copies at
 * displacement disp[i] (times the extent of old when !bytes).  The arrays
 * are read through accessors so int, MPI_Aint and MPI_Count inputs share
 * one implementation. */
struct block_args {
    MPI_Count count;
    const int *bl_i;            /* one of these two, or neither: use `bl` */
    const MPI_Count *bl_c;
    MPI_Count bl;
    int per_block;              /* blocklengths come from an array */
    const int *disp_i;          /* one of these three */
    const MPI_Aint *disp_a;
    const MPI_Count *disp_c;
    int bytes;                  /* displacements are in bytes */
};

static MPI_Count block_len(const struct block_args *a, MPI_Count i)
{
    return a->bl_i ? a->bl_i[i] : a->bl_c ? a->bl_c[i] : a->bl;
}

static MPI_Count block_disp(const struct block_args *a, MPI_Count i)
{
    return a->disp_i ? a->disp_i[i] : a->disp_a ? a->disp_a[i] : a->disp_c[i];
}

static int blocks(const struct block_args *a, uz_datatype *old, uz_datatype **dt)
{
    if (a->count < 0)
        return bad_count(a->count, "count");
    if (a->count > 0 && a->per_block && !a->bl_i && !a->bl_c)
        return null_array("array_of_blocklengths");
    if (a->count > 0 && !a->disp_i && !a->disp_a && !a->disp_c)
        return null_array("array_of_displacements");
    if (!a->per_block && a->bl < 0)
        return bad_arg(a->bl, "blocklength");
    struct uz_dl_piece *p = malloc(((size_t)a->count + 1) * sizeof(*p));
    if (p == NULL)
        return no_mem();
    int err = MPI_SUCCESS;
    for (MPI_Count i = 0; i < a->count && !err; i++) {
        MPI_Count len = block_len(a, i);
        int64_t disp = block_disp(a, i);
        if (len < 0)
            err = uz_err_make(MPI_ERR_COUNT, "invalid count array_of_blocklengths[%lld] = %lld "
                              "(must not be negative)", (long long)i, (long long)len);
        else if (!a->bytes)
            err = scaled(disp, old->extent, &disp);
        p[i] = (struct uz_dl_piece){ disp, 0, 1, (uint64_t)len, old };
    }
    if (!err)
        err = uz_dt_create_pieces(p, (size_t)a->count, dt);
    free(p);
    return err;
}

/* Arrays that the int forms record: count, then the two arrays. */
static int *int_record(int count, const int *first, int n_first, const int *second, int n_second)
{
    int *r = malloc(((size_t)1 + n_first + n_second) * sizeof(int));
    if (r == NULL)
        return NULL;
    r[0] = count;
    for (int i = 0; i < n_first; i++)
        r[1 + i] = first[i];
    for (int i = 0; i < n_second; i++)
        r[1 + n_first + i] = second[i];
    return r;
}

static MPI_Count *count_record(MPI_Count count, const MPI_Count *first, MPI_Count n_first,
                               const MPI_Count *second, MPI_Count n_second)
{
    MPI_Count *r = malloc(((size_t)1 + n_first + n_second) * sizeof(MPI_Count));
    if (r == NULL)
        return NULL;
    r[0] = count;
    for (MPI_Count i = 0; i < n_first; i++)
        r[1 + i] = first[i];
    for (MPI_Count i = 0; i < n_second; i++)
        r[1 + n_first + i] = second[i];
    return r;
}

/* Publish with a record that had to be allocated. */
static int publish_ints(uz_datatype *dt, int combiner, int *ints, MPI_Count ni, MPI_Count na,
                        const MPI_Aint *addrs, uz_datatype *old, MPI_Datatype *newtype)
{
    if (ints == NULL) {
        uz_dt_release(dt);
        return no_mem();
    }
    int err = publish(dt, combiner, ni, ints, na, addrs, 0, NULL, 1, &old, newtype);
    free(ints);
    return err;
}

static int publish_counts(uz_datatype *dt, int combiner, MPI_Count *counts, MPI_Count nl,
                          uz_datatype *old, MPI_Datatype *newtype)
{
    if (counts == NULL) {
        uz_dt_release(dt);
        return no_mem();
    }
    int err = publish(dt, combiner, 0, NULL, 0, NULL, nl, counts, 1, &old, newtype);
    free(counts);
    return err;
}

int uz_mpi_Type_indexed(int count, const int array_of_blocklengths[],
                        const int array_of_displacements[], uz_datatype *oldtype,
                        MPI_Datatype *newtype)
{
    struct block_args a = { .count = count, .per_block = 1, .bl_i = array_of_blocklengths,
                            .disp_i = array_of_displacements };
    uz_datatype *dt;
    int err = blocks(&a, oldtype, &dt);
    if (err)
        return err;
    int *rec = int_record(count, array_of_blocklengths, count, array_of_displacements, count);
    return publish_ints(dt, MPI_COMBINER_INDEXED, rec, 2 * (MPI_Count)count + 1, 0, NULL,
                        oldtype, newtype);
}

int uz_mpi_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                          const MPI_Count array_of_displacements[], uz_datatype *oldtype,
                          MPI_Datatype *newtype)
{
    struct block_args a = { .count = count, .per_block = 1, .bl_c = array_of_blocklengths,
                            .disp_c = array_of_displacements };
    uz_datatype *dt;
    int err = blocks(&a, oldtype, &dt);
    if (err)
        return err;
    MPI_Count *rec = count_record(count, array_of_blocklengths, count, array_of_displacements,
                                  count);
    return publish_counts(dt, MPI_COMBINER_INDEXED, rec, 2 * count + 1, oldtype, newtype);
}

int uz_mpi_Type_create_hindexed(int count, const int array_of_blocklengths[],
                                const MPI_Aint array_of_displacements[], uz_datatype *oldtype,
                                MPI_Datatype *newtype)
{
    struct block_args a = { .count = count, .per_block = 1, .bl_i = array_of_blocklengths,
                            .disp_a = array_of_displacements, .bytes = 1 };
    uz_datatype *dt;
    int err = blocks(&a, oldtype, &dt);
    if (err)
        return err;
    int *rec = int_record(count, array_of_blocklengths, count, NULL, 0);
    return publish_ints(dt, MPI_COMBINER_HINDEXED, rec, (MPI_Count)count + 1, count,
                        array_of_displacements, oldtype, newtype);
}

int uz_mpi_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                  const MPI_Count array_of_displacements[],
                                  uz_datatype *oldtype, MPI_Datatype *newtype)
{
    struct block_args a = { .count = count, .per_block = 1, .bl_c = array_of_blocklengths,
                            .disp_c = array_of_displacements, .bytes = 1 };
    uz_datatype *dt;
    int err = blocks(&a, oldtype, &dt);
    if (err)
        return err;
    MPI_Count *rec = count_record(count, array_of_blocklengths, count, array_of_displacements,
                                  count);
    return publish_counts(dt, MPI_COMBINER_HINDEXED, rec, 2 * count + 1, oldtype, newtype);
}

int uz_mpi_Type_create_indexed_block(int count, int blocklength,
                                     const int array_of_displacements[], uz_datatype *oldtype,
                                     MPI_Datatype *newtype)
{
    struct block_args a = { .count = count, .bl = blocklength,
                            .disp_i = array_of_displacements };
    uz_datatype *dt;
    int err = blocks(&a, oldtype, &dt);
    if (err)
        return err;
    int *rec = int_record(count, &blocklength, 1, array_of_displacements, count);
    return publish_ints(dt, MPI_COMBINER_INDEXED_BLOCK, rec, (MPI_Count)count + 2, 0, NULL,
                        oldtype, newtype);
}

int uz_mpi_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                       const MPI_Count array_of_displacements[],
                                       uz_datatype *oldtype, MPI_Datatype *newtype)
{
    struct block_args a = { .count = count, .bl = blocklength,
                            .disp_c = array_of_displacements };
    uz_datatype *dt;
    int err = blocks(&a, oldtype, &dt);
    if (err)
        return err;
    MPI_Count *rec = count_record(count, &blocklength, 1, array_of_displacements, count);
    return publish_counts(dt, MPI_COMBINER_INDEXED_BLOCK, rec, count + 2, oldtype, newtype);
}

int uz_mpi_Type_create_hindexed_block(int count, int blocklength,
                                      const MPI_Aint array_of_displacements[],
                                      uz_datatype *oldtype, MPI_Datatype *newtype)
{
    struct block_args a = { .count = count, .bl = blocklength,
                            .disp_a = array_of_displacements, .bytes = 1 };
    uz_datatype *dt;
    int err = blocks(&a, oldtype, &dt);
    if (err)
        return err;
    int ints[2] = { count, blocklength };
    return publish(dt, MPI_COMBINER_HINDEXED_BLOCK, 2, ints, count, array_of_displacements, 0,
                   NULL, 1, &oldtype, newtype);
}

int uz_mpi_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                        const MPI_Count array_of_displacements[],
                                        uz_datatype *oldtype, MPI_Datatype *newtype)
{
    struct block_args a = { .count = count, .bl = blocklength,
                            .disp_c = array_of_displacements, .bytes = 1 };
    uz_datatype *dt;
    int err = blocks(&a, oldtype, &dt);
    if (err)
        return err;
    MPI_Count *rec = count_record(count, &blocklength, 1, array_of_displacements, count);
    return publish_counts(dt, MPI_COMBINER_HINDEXED_BLOCK, rec, count + 2, oldtype, newtype);
}

/* ----------------------------------------------------------------- struct */

static int struct_types(MPI_Count count, const MPI_Datatype in[], uz_datatype ***out)
{
    if (count > 0 && in == NULL)
        return null_array("array_of_types");
    uz_datatype **t = malloc(((size_t)count + 1) * sizeof(*t));
    if (t == NULL)
        return no_mem();
    for (MPI_Count i = 0; i < count; i++) {
        t[i] = uz_datatype_get(in[i]);
        if (t[i] == NULL) {
            free(t);
            return uz_err_make(MPI_ERR_TYPE, "invalid datatype (argument array_of_types[%lld])",
                               (long long)i);
        }
    }
    *out = t;
    return MPI_SUCCESS;
}

static int structure(MPI_Count count, const int *bl_i, const MPI_Count *bl_c,
                     const MPI_Aint *disp_a, const MPI_Count *disp_c, uz_datatype **types,
                     uz_datatype **dt)
{
    if (count > 0 && !bl_i && !bl_c)
        return null_array("array_of_blocklengths");
    if (count > 0 && !disp_a && !disp_c)
        return null_array("array_of_displacements");
    struct uz_dl_piece *p = malloc(((size_t)count + 1) * sizeof(*p));
    if (p == NULL)
        return no_mem();
    for (MPI_Count i = 0; i < count; i++) {
        MPI_Count len = bl_i ? bl_i[i] : bl_c[i];
        if (len < 0) {
            free(p);
            return uz_err_make(MPI_ERR_COUNT, "invalid count array_of_blocklengths[%lld] = %lld "
                               "(must not be negative)", (long long)i, (long long)len);
        }
        p[i] = (struct uz_dl_piece){ disp_a ? disp_a[i] : disp_c[i], 0, 1, (uint64_t)len,
                                     types[i] };
    }
    int err = uz_dt_create_pieces(p, (size_t)count, dt);
    free(p);
    return err;
}

int uz_mpi_Type_create_struct(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    uz_datatype **types, *dt;
    if (count < 0)
        return bad_count(count, "count");
    int err = struct_types(count, array_of_types, &types);
    if (err)
        return err;
    err = structure(count, array_of_blocklengths, NULL, array_of_displacements, NULL, types, &dt);
    if (!err) {
        int *rec = int_record(count, array_of_blocklengths, count, NULL, 0);
        if (rec == NULL) {
            uz_dt_release(dt);
            err = no_mem();
        } else {
            err = publish(dt, MPI_COMBINER_STRUCT, (MPI_Count)count + 1, rec, count,
                          array_of_displacements, 0, NULL, count, types, newtype);
            free(rec);
        }
    }
    free(types);
    return err;
}

int uz_mpi_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[],
                                const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    uz_datatype **types, *dt;
    if (count < 0)
        return bad_count(count, "count");
    int err = struct_types(count, array_of_types, &types);
    if (err)
        return err;
    err = structure(count, NULL, array_of_blocklengths, NULL, array_of_displacements, types, &dt);
    if (!err) {
        MPI_Count *rec = count_record(count, array_of_blocklengths, count, array_of_displacements,
                                      count);
        if (rec == NULL) {
            uz_dt_release(dt);
            err = no_mem();
        } else {
            err = publish(dt, MPI_COMBINER_STRUCT, 0, NULL, 0, NULL, 2 * count + 1, rec, count,
                          types, newtype);
            free(rec);
        }
    }
    free(types);
    return err;
}

/* ---------------------------------------------------------------- resized */

int uz_mpi_Type_create_resized(uz_datatype *oldtype, MPI_Aint lb, MPI_Aint extent,
                               MPI_Datatype *newtype)
{
    uz_datatype *dt;
    int err = uz_dt_create_resized(oldtype, lb, extent, &dt);
    MPI_Aint addrs[2] = { lb, extent };
    return err ? err : publish(dt, MPI_COMBINER_RESIZED, 0, NULL, 2, addrs, 0, NULL, 1,
                               &oldtype, newtype);
}

int uz_mpi_Type_create_resized_c(uz_datatype *oldtype, MPI_Count lb, MPI_Count extent,
                                 MPI_Datatype *newtype)
{
    uz_datatype *dt;
    int err = uz_dt_create_resized(oldtype, lb, extent, &dt);
    MPI_Count counts[2] = { lb, extent };
    return err ? err : publish(dt, MPI_COMBINER_RESIZED, 0, NULL, 0, NULL, 2, counts, 1,
                               &oldtype, newtype);
}
