/*
 * pack.c — MPI_Pack, MPI_Unpack and MPI_Pack_size.  Uzura's packed format
 * is the native packed stream of dt_engine.h (the bytes of the basic
 * elements in type-map order), so packing is the engine's whole-buffer
 * copy and MPI_Pack_size is exact.  The int forms come from the generated
 * binding, which widens into these and narrows the results.
 */
#include "base/errors.h"
#include "datatype/dt_engine.h"

static int packed_bytes(MPI_Count count, const uz_datatype *dt, MPI_Count *bytes)
{
    if (__builtin_mul_overflow(count, dt->size, bytes))
        return uz_err_make(MPI_ERR_COUNT, "count %lld of a %lld-byte datatype overflows",
                           (long long)count, (long long)dt->size);
    return MPI_SUCCESS;
}

int uz_mpi_Pack_c(const void *inbuf, MPI_Count incount, uz_datatype *datatype, void *outbuf,
                  MPI_Count outsize, MPI_Count *position, uz_comm *comm)
{
    MPI_Count bytes;
    int err = packed_bytes(incount, datatype, &bytes);
    if (err)
        return err;
    if (*position < 0 || *position > outsize)
        return uz_err_make(MPI_ERR_ARG, "invalid position %lld for an outsize of %lld",
                           (long long)*position, (long long)outsize);
    if (bytes > outsize - *position)
        return uz_err_make(MPI_ERR_TRUNCATE, "%lld bytes do not fit in the %lld left of outbuf",
                           (long long)bytes, (long long)(outsize - *position));
    *position += (MPI_Count)uz_dt_pack(inbuf, incount, datatype, (char *)outbuf + *position);
    return MPI_SUCCESS;
}

int uz_mpi_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                    MPI_Count outcount, uz_datatype *datatype, uz_comm *comm)
{
    MPI_Count bytes;
    int err = packed_bytes(outcount, datatype, &bytes);
    if (err)
        return err;
    if (*position < 0 || *position > insize)
        return uz_err_make(MPI_ERR_ARG, "invalid position %lld for an insize of %lld",
                           (long long)*position, (long long)insize);
    if (bytes > insize - *position)
        return uz_err_make(MPI_ERR_TRUNCATE, "unpacking %lld bytes but only %lld are left in inbuf",
                           (long long)bytes, (long long)(insize - *position));
    *position += (MPI_Count)uz_dt_unpack(outbuf, outcount, datatype,
                                         (const char *)inbuf + *position, (size_t)bytes);
    return MPI_SUCCESS;
}

int uz_mpi_Pack_size_c(MPI_Count incount, uz_datatype *datatype, uz_comm *comm, MPI_Count *size)
{
    return packed_bytes(incount, datatype, size);
}
