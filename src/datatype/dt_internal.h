/*
 * dt_internal.h — what the files of src/datatype/ share and nobody else
 * needs: the facts about basic types that external32 uses, the recorded
 * constructor arguments, and the internal constructors that the public
 * ones (and subarray/darray) are made of.
 */
#ifndef UZ_DATATYPE_DT_INTERNAL_H
#define UZ_DATATYPE_DT_INTERNAL_H

#include "datatype/datatype.h"
#include "datatype/dt_layout.h"

/* ------------------------------------------------------------- basic types */

/* How one basic element converts to external32 (big-endian, fixed sizes). */
enum uz_ext32_conv {
    UZ_EXT32_SWAP,              /* reverse the bytes of each piece */
    UZ_EXT32_INT,               /* signed integer, narrowed or widened */
    UZ_EXT32_UINT,              /* unsigned integer, narrowed or widened */
    UZ_EXT32_X87,               /* x87 80-bit in 16 bytes <-> IEEE binary128 */
};

struct uz_dt_basic_info {
    uint32_t size;              /* native bytes of one element */
    uint32_t ext32;             /* external32 bytes of one element */
    uint32_t pieces;            /* elements are this many pieces (2: complex) */
    enum uz_ext32_conv conv;
};

/* For a predefined slot that can appear in a signature (not pair types). */
const struct uz_dt_basic_info *uz_dt_basic_info(uint32_t slot);

/* ------------------------------------------------------ recorded arguments */

struct uz_dt_contents {
    int combiner;
    MPI_Count ni, na, nl, nd;   /* integers, addresses, large counts, types */
    int *ints;
    MPI_Aint *addrs;
    MPI_Count *counts;
    uz_datatype **types;        /* retained */
};

/* Record the arguments on dt (copies them; retains the types). */
int uz_dt_set_contents(uz_datatype *dt, int combiner, MPI_Count ni, const int *ints,
                       MPI_Count na, const MPI_Aint *addrs, MPI_Count nl,
                       const MPI_Count *counts, MPI_Count nd, uz_datatype *const *types);
void uz_dt_free_contents(struct uz_dt_contents *c);

/* ----------------------------------------------------- internal constructors */

/* A new derived type from pieces (see uz_dl_build): layout, size, bounds,
 * alignment, homogeneity; combiner and contents are left to the caller. */
int uz_dt_create_pieces(const struct uz_dl_piece *pieces, size_t npieces, uz_datatype **out);
/* Convenience: `count` blocks of `blocklen` copies of old, stride bytes apart. */
int uz_dt_create_hvector(MPI_Count count, MPI_Count blocklen, MPI_Aint stride,
                         const uz_datatype *old, uz_datatype **out);
/* old with its bounds set to [lb, lb + extent). */
int uz_dt_create_resized(const uz_datatype *old, MPI_Aint lb, MPI_Aint extent,
                         uz_datatype **out);

/* Subarray and darray as the standard defines them (dt_array.c); contents
 * are recorded by the callers. */
int uz_dt_create_subarray(int ndims, const MPI_Count sizes[], const MPI_Count subsizes[],
                          const MPI_Count starts[], int order, const uz_datatype *old,
                          uz_datatype **out);
int uz_dt_create_darray(int size, int rank, int ndims, const MPI_Count gsizes[],
                        const int distribs[], const int dargs[], const int psizes[], int order,
                        const uz_datatype *old, uz_datatype **out);

#endif /* UZ_DATATYPE_DT_INTERNAL_H */
