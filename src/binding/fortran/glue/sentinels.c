/*
 * sentinels.c — the common blocks behind MPI_BOTTOM, MPI_IN_PLACE,
 * MPI_STATUS_IGNORE and the other constants that Fortran passes by
 * reference, and what the library tells the C library when it is loaded.
 *
 * mpif.h, `use mpi` and `use mpi_f08` all declare the same blocks
 * (COMMON /MPI_FORTRAN_BOTTOM/ MPI_BOTTOM ...); gfortran names a block
 * after its name in lower case with an underscore, so these definitions
 * are the one storage every program unit shares, and the glue recognises a
 * sentinel by comparing an argument's address with theirs.  They keep
 * default visibility: if a program's own object files allocate a block
 * (copy relocation), the glue's references follow it there.
 */
#include "uzf.h"

/* gfortran aligns common blocks to up to 32 bytes (by size) and expects the definition to. */
#define UZF_COMMON __attribute__((aligned(32)))

UZF_EXPORT UZF_COMMON MPI_Fint mpi_fortran_bottom_;
UZF_EXPORT UZF_COMMON MPI_Fint mpi_fortran_in_place_;
UZF_EXPORT UZF_COMMON MPI_Fint mpi_fortran_buffer_automatic_;
UZF_EXPORT UZF_COMMON MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
UZF_EXPORT UZF_COMMON MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
UZF_EXPORT UZF_COMMON MPI_Fint mpi_fortran_errcodes_ignore_[1];
UZF_EXPORT UZF_COMMON MPI_Fint mpi_fortran_unweighted_[1];
UZF_EXPORT UZF_COMMON MPI_Fint mpi_fortran_weights_empty_[1];
UZF_EXPORT UZF_COMMON char mpi_fortran_argv_null_[1];
UZF_EXPORT UZF_COMMON char mpi_fortran_argvs_null_[1];

/* Tell the C library (MPI-5 standard ABI) which Fortran it is serving:
 * gfortran's default INTEGER, REAL and LOGICAL of 4 bytes, DOUBLE
 * PRECISION of 8, and .TRUE. = 1, .FALSE. = 0 for every LOGICAL kind.
 * Both calls are allowed before MPI_Init; a C library that cannot serve
 * these sizes refuses here and will refuse again in MPI_Init's checks of
 * the datatypes, so the result is not needed now. */
__attribute__((constructor)) static void uzf_announce(void)
{
    static const unsigned char t[16] = { 1 }, f[16] = { 0 };
    for (int size = 1; size <= 16; size *= 2)
        PMPI_Abi_set_fortran_booleans(size, (void *)t, (void *)f);
    MPI_Info info;
    if (PMPI_Info_create(&info) != MPI_SUCCESS)
        return;
    PMPI_Info_set(info, "mpi_logical_size", "4");
    PMPI_Info_set(info, "mpi_integer_size", "4");
    PMPI_Info_set(info, "mpi_real_size", "4");
    PMPI_Info_set(info, "mpi_double_precision_size", "8");
    PMPI_Abi_set_fortran_info(info);
    PMPI_Info_free(&info);
}
