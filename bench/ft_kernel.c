/*
 * ft_kernel.c — a 3-D FFT whose transpose is one MPI_Alltoall, as in the NAS
 * Parallel Benchmarks' FT: what users of alltoall actually run.  Plain MPI,
 * so bench/compare.py builds it with Uzura, MPICH and Open MPI alike.
 *
 *   ft_kernel [min_edge max_edge]      (edges are powers of two, default 32 128)
 *
 * A complex cube of edge N is split into slabs of N/p planes along z.  One
 * iteration is a forward transform and an inverse one; each does 2-D FFTs
 * in the local planes, an Alltoall that regroups the cube into slabs along
 * y, and 1-D FFTs along z.  After the inverse the cube must equal the
 * initial one (checked every iteration, so a wrong transpose aborts).
 * Prints "edge milliseconds per iteration" (best of 5 repetitions), with
 * the share spent in MPI_Alltoall on stderr for the reader's benefit.
 */
#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPS = 5 };

static int rank, size;
static double alltoall_seconds;

/* In-place radix-2 FFT of n points spaced `stride` apart; sign -1 forward. */
static void fft1(double complex *a, int n, int stride, int sign)
{
    for (int i = 1, j = 0; i < n; i++) {
        int bit = n >> 1;
        for (; j & bit; bit >>= 1)
            j ^= bit;
        j ^= bit;
        if (i < j) {
            double complex t = a[i * stride];
            a[i * stride] = a[j * stride];
            a[j * stride] = t;
        }
    }
    for (int len = 2; len <= n; len <<= 1) {
        double complex w = cexp(sign * 2.0 * M_PI * I / len);
        for (int i = 0; i < n; i += len) {
            double complex u = 1;
            for (int k = 0; k < len / 2; k++) {
                double complex x = a[(i + k) * stride], y = a[(i + k + len / 2) * stride] * u;
                a[(i + k) * stride] = x + y;
                a[(i + k + len / 2) * stride] = x - y;
                u *= w;
            }
        }
    }
}

/* slab[z][y][x] with nz local planes: FFT along x and y in every plane. */
static void fft_planes(double complex *slab, int n, int nz, int sign)
{
    for (int z = 0; z < nz; z++) {
        double complex *plane = slab + (size_t)z * n * n;
        for (int y = 0; y < n; y++)
            fft1(plane + (size_t)y * n, n, 1, sign);
        for (int x = 0; x < n; x++)
            fft1(plane + x, n, n, sign);
    }
}

/* z-slabs [nz][n][n] -> y-slabs [ny][n(z)][n(x)], through one Alltoall:
 * the block for rank r is our planes' rows y in r's range, packed first. */
static void transpose(const double complex *in, double complex *out, double complex *buf, int n, int nloc)
{
    size_t block = (size_t)nloc * nloc * n;
    for (int r = 0; r < size; r++)
        for (int z = 0; z < nloc; z++)
            for (int y = 0; y < nloc; y++)
                memcpy(buf + r * block + ((size_t)z * nloc + y) * n, in + ((size_t)z * n + r * nloc + y) * n,
                       sizeof(double complex) * n);
    double t0 = MPI_Wtime();
    MPI_Alltoall(buf, (int)(block * 2), MPI_DOUBLE, out, (int)(block * 2), MPI_DOUBLE, MPI_COMM_WORLD);
    alltoall_seconds += MPI_Wtime() - t0;
    /* out holds, from each source r, [z in r's range][our y][x]; regroup in
     * buf as [our y][global z][x], then copy back. */
    for (int r = 0; r < size; r++)
        for (int z = 0; z < nloc; z++)
            for (int y = 0; y < nloc; y++)
                memcpy(buf + ((size_t)y * n + r * nloc + z) * n, out + r * block + ((size_t)z * nloc + y) * n,
                       sizeof(double complex) * n);
    memcpy(out, buf, sizeof(double complex) * block * size);
}

/* y-slabs [ny][z][x]: FFT along z for every (y, x). */
static void fft_columns(double complex *slab, int n, int ny, int sign)
{
    for (int y = 0; y < ny; y++)
        for (int x = 0; x < n; x++)
            fft1(slab + (size_t)y * n * n + x, n, n, sign);
}

/* The transpose back: y-slabs to z-slabs is the same regrouping. */
static int iterate(double complex *cube, double complex *work, double complex *buf, const double complex *orig,
                   int n, int nloc)
{
    size_t local = (size_t)nloc * n * n;
    fft_planes(cube, n, nloc, -1);
    transpose(cube, work, buf, n, nloc);
    fft_columns(work, n, nloc, -1);
    fft_columns(work, n, nloc, 1);
    transpose(work, cube, buf, n, nloc);
    fft_planes(cube, n, nloc, 1);
    double scale = 1.0 / ((double)n * n * n), worst = 0;
    for (size_t i = 0; i < local; i++) {
        cube[i] *= scale;
        double e = cabs(cube[i] - orig[i]);
        worst = e > worst ? e : worst;
    }
    return worst < 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int lo = argc > 1 ? atoi(argv[1]) : 32, hi = argc > 2 ? atoi(argv[2]) : 128;
    if (rank == 0)
        printf("# ft_kernel, %d ranks: cube edge, milliseconds per iteration (forward and inverse 3-D FFT)\n", size);
    for (int n = lo; n <= hi; n *= 2) {
        if (n % size || (n & (n - 1))) {
            if (rank == 0)
                fprintf(stderr, "ft_kernel: edge %d is not a power of two divisible by %d ranks; skipped\n", n, size);
            continue;
        }
        int nloc = n / size;
        size_t local = (size_t)nloc * n * n;
        double complex *cube = malloc(sizeof(*cube) * local), *work = malloc(sizeof(*work) * local);
        double complex *buf = malloc(sizeof(*buf) * local), *orig = malloc(sizeof(*orig) * local);
        for (size_t i = 0; i < local; i++)
            orig[i] = cube[i] = sin(0.001 * (double)(i + rank * local)) + I * cos(0.002 * (double)i);
        double best = 1e30, share = 0;
        for (int rep = 0; rep < REPS; rep++) {
            alltoall_seconds = 0;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            int ok = iterate(cube, work, buf, orig, n, nloc), all_ok;
            double t = MPI_Wtime() - t0, tmax;
            MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
            MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (!all_ok) {
                if (rank == 0)
                    fprintf(stderr, "ft_kernel: edge %d: the inverse transform does not give the cube back\n", n);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            if (tmax < best) {
                best = tmax;
                share = alltoall_seconds / t;
            }
        }
        if (rank == 0) {
            printf("%d %.3f\n", n, best * 1e3);
            fprintf(stderr, "ft_kernel: edge %d: %.0f%% of rank 0's time in MPI_Alltoall\n", n, share * 100);
            fflush(stdout);
        }
        free(cube);
        free(work);
        free(buf);
        free(orig);
    }
    MPI_Finalize();
    return 0;
}
