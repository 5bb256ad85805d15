/*
 * abi_fortran.c — what the C library knows of Fortran (MPI-5.0 standard
 * ABI): MPI_Abi_get_fortran_info / MPI_Abi_set_fortran_info and
 * MPI_Abi_get_fortran_booleans / MPI_Abi_set_fortran_booleans.
 *
 * This file belongs to libmpi_abi.so.1 (the binding layer), not to the
 * Fortran glue beside it: the standard puts these procedures in the C
 * interface so that a Fortran library built apart from the C one can tell
 * it the sizes of INTEGER, REAL, ... and what .TRUE. and .FALSE. look
 * like.  Uzura's predefined Fortran datatypes have gfortran's sizes
 * (INTEGER, REAL and LOGICAL 4 bytes, DOUBLE PRECISION 8), so a Fortran
 * library that reports other sizes is refused with MPI_ERR_ABI; booleans
 * are recorded per LOGICAL size and handed back to whoever asks.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "base/errors.h"
#include "core/info.h"

/* The sizes the predefined Fortran datatypes were built with. */
static const struct {
    const char *key;
    int size;
} type_sizes[] = {
    { "mpi_logical_size", 4 },
    { "mpi_integer_size", 4 },
    { "mpi_real_size", 4 },
    { "mpi_double_precision_size", 8 },
};

/* Optional Fortran types the library's datatypes cover. */
static const char *const supported[] = {
    "mpi_integer1", "mpi_integer2", "mpi_integer4", "mpi_integer8", "mpi_integer16",
    "mpi_real2", "mpi_real4", "mpi_real8", "mpi_real16",
    "mpi_complex4", "mpi_complex8", "mpi_complex16", "mpi_complex32",
    "mpi_logical1", "mpi_logical2", "mpi_logical4", "mpi_logical8", "mpi_logical16",
    "mpi_double_complex", "mpi_2integer", "mpi_2real", "mpi_2double_precision",
};

static pthread_mutex_t fortran_lock = PTHREAD_MUTEX_INITIALIZER;
static int fortran_info_set;            /* MPI_Abi_set_fortran_info was called */

/* Booleans by LOGICAL size: 1, 2, 4, 8, 16 bytes. */
enum { NSIZES = 5, MAX_LOGICAL = 16 };
static struct {
    int is_set;
    unsigned char t[MAX_LOGICAL], f[MAX_LOGICAL];
} booleans[NSIZES];

static int size_slot(int logical_size)
{
    switch (logical_size) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    case 16: return 4;
    }
    return -1;
}

int uz_mpi_Abi_get_fortran_info(MPI_Info *info)
{
    uz_info *i = uz_info_new();
    char buf[32];
    if (!i)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating the Fortran ABI info");
    for (size_t k = 0; k < sizeof(type_sizes) / sizeof(type_sizes[0]); k++) {
        snprintf(buf, sizeof(buf), "%d", type_sizes[k].size);
        uz_info_set(i, type_sizes[k].key, buf);
    }
    for (size_t k = 0; k < sizeof(supported) / sizeof(supported[0]); k++) {
        snprintf(buf, sizeof(buf), "%s_supported", supported[k]);
        uz_info_set(i, buf, "true");
    }
    pthread_mutex_lock(&fortran_lock);
    uz_info_set(i, "mpi_fortran_info_set", fortran_info_set ? "true" : "false");
    pthread_mutex_unlock(&fortran_lock);
    *info = uz_info_handle(i);
    return MPI_SUCCESS;
}

int uz_mpi_Abi_set_fortran_info(uz_info *info)
{
    for (size_t k = 0; k < sizeof(type_sizes) / sizeof(type_sizes[0]); k++) {
        const char *v = uz_info_lookup(info, type_sizes[k].key);
        int size;
        if (v == NULL)
            continue;
        if (sscanf(v, "%d", &size) != 1)
            return uz_err_make(MPI_ERR_INFO_VALUE, "invalid value \"%s\" for %s",
                               v, type_sizes[k].key);
        if (size != type_sizes[k].size)
            return uz_err_make(MPI_ERR_ABI, "%s = %d, but this library's Fortran datatypes "
                               "were built for %d", type_sizes[k].key, size, type_sizes[k].size);
    }
    pthread_mutex_lock(&fortran_lock);
    fortran_info_set = 1;
    pthread_mutex_unlock(&fortran_lock);
    return MPI_SUCCESS;
}

int uz_mpi_Abi_set_fortran_booleans(int logical_size, void *logical_true, void *logical_false)
{
    int s = size_slot(logical_size);
    if (s < 0)
        return uz_err_make(MPI_ERR_ARG, "invalid LOGICAL size %d (1, 2, 4, 8 or 16)", logical_size);
    if (!logical_true || !logical_false)
        return uz_err_make(MPI_ERR_ARG, "invalid argument: a boolean value is NULL");
    if (memcmp(logical_true, logical_false, (size_t)logical_size) == 0)
        return uz_err_make(MPI_ERR_ARG, ".TRUE. and .FALSE. have the same representation");
    pthread_mutex_lock(&fortran_lock);
    memcpy(booleans[s].t, logical_true, (size_t)logical_size);
    memcpy(booleans[s].f, logical_false, (size_t)logical_size);
    booleans[s].is_set = 1;
    pthread_mutex_unlock(&fortran_lock);
    return MPI_SUCCESS;
}

int uz_mpi_Abi_get_fortran_booleans(int logical_size, void *logical_true, void *logical_false,
                                    int *is_set)
{
    int s = size_slot(logical_size);
    if (s < 0)
        return uz_err_make(MPI_ERR_ARG, "invalid LOGICAL size %d (1, 2, 4, 8 or 16)", logical_size);
    pthread_mutex_lock(&fortran_lock);
    *is_set = booleans[s].is_set;
    if (booleans[s].is_set) {
        if (logical_true)
            memcpy(logical_true, booleans[s].t, (size_t)logical_size);
        if (logical_false)
            memcpy(logical_false, booleans[s].f, (size_t)logical_size);
    }
    pthread_mutex_unlock(&fortran_lock);
    return MPI_SUCCESS;
}
