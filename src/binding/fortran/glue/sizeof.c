/*
 * sizeof.c — the Fortran-only procedures: MPI_SIZEOF, which every
 * interface (mpif.h, use mpi, use mpi_f08) declares as one BIND(C)
 * procedure taking TYPE(*), DIMENSION(..), so that the element size comes
 * from the descriptor for any type, kind and rank; and MPI_F_SYNC_REG,
 * which only has to exist (passing the buffer to an external procedure is
 * what stops the compiler from keeping it in registers).
 */
#include "uzf.h"
#include "uzf_core.h"

UZF_EXPORT void PMPI_Sizeof_f08ts(CFI_cdesc_t *x, MPI_Fint *size, MPI_Fint *ierror)
{
    *size = (MPI_Fint)x->elem_len;
    if (ierror)
        *ierror = MPI_SUCCESS;
}
UZF_EXPORT void MPI_Sizeof_f08ts(CFI_cdesc_t *x, MPI_Fint *size, MPI_Fint *ierror)
    __attribute__((weak, alias("PMPI_Sizeof_f08ts")));

int uzf_F_sync_reg(void *buf)
{
    (void)buf;
    return MPI_SUCCESS;
}
