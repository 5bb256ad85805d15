/*
 * io_ext32_writer.c — writes a fixed mix of basic types under the
 * "external32" representation to the file named on the command line, so
 * that io_ext32_ref.sh can compare the file Uzura writes with the one a
 * peer MPI writes from this same source, byte for byte.
 *
 * NREC records, each every type in the mix with values that depend on
 * the record number (negative numbers, fractions, -0.0, a subnormal,
 * values using every byte).  Record i sits at i times the record's
 * external32 size (from MPI_Pack_external_size), written member by member
 * through the individual file pointer by rank i % size,
 * so the file does not depend on the number of ranks; then rank 0 writes
 * a trailer of doubles with a collective call that the other ranks join
 * with nothing.  The mix holds only types whose external32 encoding MPICH
 * and Open MPI agree on and which follow the standard's table (see
 * io_ext32_ref.sh for the types left out and why).
 */
#include <mpi.h>
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define NREC 37

struct rec {
    char c;
    signed char sc;
    unsigned char uc;
    short s;
    unsigned short us;
    int i;
    unsigned u;
    long long ll;
    unsigned long long ull;
    float f;
    double d;
    int8_t i8;
    int16_t i16;
    int32_t i32;
    int64_t i64;
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    double d2[2];
    float f3[3];
    short s2[2];
    bool b[2];
    MPI_Aint a;
    MPI_Offset o;
    MPI_Count cnt;
    float _Complex fc[2];
    double _Complex dc;
};

/* The members, each written with its own basic type (not as one struct
 * type: MPICH 5.0.2 dies in MPI_Pack_external_size on structs that mix
 * basic types). */
static const struct member {
    size_t off, bytes;
    int type; /* index into types() */
} members[] = {
#define M(field, t) {offsetof(struct rec, field), sizeof(((struct rec *)0)->field), t}
    M(c, 0),   M(sc, 1),   M(uc, 2),   M(s, 3),    M(us, 4),   M(i, 5),    M(u, 6),   M(ll, 7),
    M(ull, 8), M(f, 9),    M(d, 10),   M(i8, 11),  M(i16, 12), M(i32, 13), M(i64, 14), M(u8, 15),
    M(u16, 16), M(u32, 17), M(u64, 18), M(d2, 10), M(f3, 9),   M(s2, 3),   M(b, 19),  M(a, 20),
    M(o, 21),  M(cnt, 22), M(fc, 23),  M(dc, 24),
#undef M
};
enum { NMEMBERS = sizeof members / sizeof members[0] };

/* Predefined handles need not be compile-time constants: look them up. */
static MPI_Datatype types(int k)
{
    const MPI_Datatype t[] = {MPI_CHAR,    MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_SHORT,  MPI_UNSIGNED_SHORT,
                              MPI_INT,     MPI_UNSIGNED,    MPI_LONG_LONG,     MPI_UNSIGNED_LONG_LONG,
                              MPI_FLOAT,   MPI_DOUBLE,      MPI_INT8_T,        MPI_INT16_T, MPI_INT32_T,
                              MPI_INT64_T, MPI_UINT8_T,     MPI_UINT16_T,      MPI_UINT32_T, MPI_UINT64_T,
                              MPI_C_BOOL,  MPI_AINT,        MPI_OFFSET,        MPI_COUNT,   MPI_C_FLOAT_COMPLEX,
                              MPI_C_DOUBLE_COMPLEX};
    return t[k];
}

static int count_of(const struct member *m)
{
    int es;
    MPI_Type_size(types(m->type), &es);
    return (int)(m->bytes / es);
}

static struct rec make_rec(int n)
{
    struct rec x;
    memset(&x, 0, sizeof x);
    x.c = (char)('A' + n % 26);
    x.sc = (signed char)(-n - 1);
    x.uc = (unsigned char)(200 + n);
    x.s = (short)(-1000 * n - 7);
    x.us = (unsigned short)(0xFEDC - n);
    x.i = -123456789 + n * 1001;
    x.u = 0xDEADBEEFu - (unsigned)n;
    x.ll = -0x0123456789ABCDEFLL + n;
    x.ull = 0xF0E1D2C3B4A59687ULL + (unsigned long long)n;
    x.f = -1.0f / (float)(n + 3);
    x.d = n % 5 == 0 ? -0.0 : 3.14159265358979 * n * 1e-300 * 1e10;
    x.i8 = (int8_t)(n - 64);
    x.i16 = (int16_t)(-300 * n);
    x.i32 = (int32_t)(0x7FFFFFF0 + n % 16);
    x.i64 = (int64_t)n * -987654321012345LL;
    x.u8 = (uint8_t)(255 - n);
    x.u16 = (uint16_t)(40000 + n);
    x.u32 = 0x80000000u + (uint32_t)n;
    x.u64 = 0x8000000000000001ULL * (uint64_t)(n + 1);
    x.d2[0] = 1e308 / (n + 1), x.d2[1] = -2.5e-310; /* a subnormal */
    x.f3[0] = 1.5f, x.f3[1] = (float)n, x.f3[2] = -3.4e38f;
    x.s2[0] = (short)0x8000, x.s2[1] = (short)n;
    x.b[0] = n % 2, x.b[1] = true;
    x.a = -(MPI_Aint)n * 4099 - 1;
    x.o = (MPI_Offset)0x123456789AB * (n + 1);
    x.cnt = -(MPI_Count)0x10000000 * n;
    x.fc[0] = 1.25f - 2.0f * (float)n * I, x.fc[1] = -0.0f;
    x.dc = 1e-3 * n + 7.5 * I;
    return x;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: io_ext32_writer FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Aint recsz = 0;
    for (int k = 0; k < NMEMBERS; k++) {
        MPI_Aint sz = 0;
        MPI_Pack_external_size("external32", count_of(&members[k]), types(members[k].type), &sz);
        recsz += sz;
    }

    MPI_File fh;
    MPI_File_delete(argv[1], MPI_INFO_NULL); /* a stale file would keep its tail */
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = MPI_File_open(MPI_COMM_WORLD, argv[1], MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "io_ext32_writer: cannot open %s\n", argv[1]);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int bad = MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL) != MPI_SUCCESS;
    for (int n = rank; n < NREC; n += size) {
        struct rec x = make_rec(n);
        bad |= MPI_File_seek(fh, n * recsz, MPI_SEEK_SET) != MPI_SUCCESS;
        for (int k = 0; k < NMEMBERS; k++)
            bad |= MPI_File_write(fh, (char *)&x + members[k].off, count_of(&members[k]), types(members[k].type),
                                  MPI_STATUS_IGNORE) != MPI_SUCCESS;
    }
    double trailer[4] = {1.0, -1.0 / 3.0, 6.02214076e23, (double)recsz};
    bad |= MPI_File_write_at_all(fh, NREC * recsz, trailer, rank == 0 ? 4 : 0, MPI_DOUBLE, MPI_STATUS_IGNORE) !=
           MPI_SUCCESS;
    bad |= MPI_File_close(&fh) != MPI_SUCCESS;
    if (bad)
        fprintf(stderr, "io_ext32_writer: rank %d: an MPI-IO call failed\n", rank);
    int any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0 && !any)
        printf("io_ext32_writer: %d records of %ld bytes written to %s\n", NREC, (long)recsz, argv[1]);
    MPI_Finalize();
    return any;
}
