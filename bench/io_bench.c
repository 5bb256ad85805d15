/*
 * io_bench.c — MPI-IO bandwidth: collective access to a block-distributed
 * 3-D array, independent strided access to one shared file, and the
 * machine's bare file bandwidth beside them.  Plain MPI and POSIX, so the
 * same source builds with any implementation's mpicc (bench/compare.py
 * runs it with Uzura, MPICH and Open MPI side by side).  Runs on any
 * number of ranks.
 *
 *   io_bench write_all|read_all|write_strided|read_strided|bare_write|bare_read
 *            [sync] [min_bytes max_bytes]
 *
 *   bench/compare.py io_bench write_all --np 4 --only mpich,openmpi
 *   bench/compare.py io_bench read_strided sync --np 2
 *
 * Prints "bytes MB/s" lines (10^6 bytes per second), sizes from min to max
 * by factors of 4 (and max itself).
 *
 *   write_all, read_all  "bytes" is the size of a 3-D array of doubles
 *                   (default 4 MiB to 1 GiB), block-distributed over a
 *                   grid of ranks from MPI_Dims_create; each rank's block
 *                   is its filetype (MPI_Type_create_subarray) and is
 *                   written with one MPI_File_write_all (read with one
 *                   MPI_File_read_all).  MB/s of the whole array.  The
 *                   grid's first side splits the array's slowest index,
 *                   so with 2 (or 3) ranks every block is one contiguous
 *                   range of the file; the views are noncontiguous from
 *                   4 ranks (2x2x1) on.
 *   write_strided,  "bytes" is a block size (default 64 B to 1 MiB); the
 *   read_strided    file has a fixed size of 64 MiB and rank r owns blocks
 *                   r, r + P, r + 2P, ... (P ranks): a vector filetype at
 *                   displacement r * bytes, written with one independent
 *                   MPI_File_write (read with MPI_File_read) per rank.
 *                   MB/s of the whole file.
 *   bare_write,     the ceiling: the same bytes as a write_all row, written
 *   bare_read       by rank 0 alone with pwrite() in 16 MiB chunks (read
 *                   with pread()) while the other ranks wait, asleep; no
 *                   MPI-IO.
 *
 * A repetition opens the file (a new one for writes), sets the view, waits
 * in a barrier, and times the I/O call(s) alone, not the open nor the
 * close; its time is the slowest rank's.  A row is the best of 3
 * repetitions, or up to 10 while they add up to less than 2 s of I/O, or
 * fewer (down to 1) once they add up to 12 s.  The buffers are written
 * before the first repetition, so every page is real memory.  For the
 * reads, rank 0 first writes the file with pwrite().  Every double of a
 * file holds its own index in the file: the file is checked after each
 * written row, the buffer after the first read of each row, and a
 * mismatch aborts.
 *
 * Page cache.  Without `sync` the figures are page-cache figures: a write
 * ends when the data are in the kernel's cache, and the reads find the
 * file, just written, in the cache.  With `sync`, MPI_File_sync (fsync()
 * for bare_write) ends the timed region of a write, and before each read
 * repetition rank 0 flushes the file and drops it from the page cache
 * (fsync() then posix_fadvise(POSIX_FADV_DONTNEED)), so that the reads come
 * from the device.  On a virtual machine the "device" may itself be cached
 * by the host.
 *
 * The scratch directory is UZURA_BENCH_DIR if set, else TMPDIR, else /tmp;
 * the header line names its file system (from statfs()).  On the machine of
 * docs/performance.md, /tmp is on / , ext4 on the virtio disk /dev/vda
 * (mounted with `discard`).  The file is deleted after each row.
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <unistd.h>

enum { MIN_REPS = 3, MAX_REPS = 10 };
#define ENOUGH_SECONDS 2.0   /* timed I/O of a row after which MIN_REPS suffice */
#define CAP_SECONDS 12.0     /* ... after which one repetition suffices */
#define CHUNK ((size_t)16 << 20)
#define STRIDED_FILE ((size_t)64 << 20)

enum kind { ALL, STRIDED, BARE };

/* One row: what each rank reads or writes, and where in the file. */
struct row {
    size_t bytes;                   /* of the whole file */
    size_t mine;                    /* bytes of this rank's buffer */
    double *buf;
    MPI_Datatype etype, ftype;      /* the view (ALL and STRIDED) */
    MPI_Offset disp;
    int n[3], lo[3], sub[3];        /* ALL: array, this rank's block */
    size_t blk, nblk;               /* STRIDED: block bytes, blocks per rank */
};

static int rank, size, writing, use_sync, dims[3];
static enum kind kind;
static const char *mode;
static char path[4200];

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "io_bench: rank %d: ", rank);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    if (path[0])
        unlink(path);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void check(int rc, const char *call)
{
    if (rc == MPI_SUCCESS)
        return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    die("%s failed: %s", call, msg);
}

/* ---------------------------------------------------------------- layout */

/* A 3-D shape of bytes/8 doubles, power-of-two sides as near a cube as can
 * be (exact when bytes/8 is a power of two). */
static void shape(size_t bytes, int n[3])
{
    size_t total = bytes / 8, a = 1, b = 1;
    while ((a * 2) * (a * 2) * (a * 2) <= total)
        a *= 2;
    while ((b * 2) * (b * 2) <= total / a)
        b *= 2;
    n[0] = (int)a;
    n[1] = (int)b;
    n[2] = (int)(total / a / b);
}

static void setup_all(struct row *r, size_t bytes)
{
    shape(bytes, r->n);
    int c[3] = {rank / (dims[1] * dims[2]), rank / dims[2] % dims[1], rank % dims[2]};
    size_t elems = 1;
    for (int d = 0; d < 3; d++) {
        int q = r->n[d] / dims[d], rem = r->n[d] % dims[d];
        if (q == 0)
            die("array of %zu bytes too small for %d ranks", bytes, size);
        r->sub[d] = q + (c[d] < rem);
        r->lo[d] = c[d] * q + (c[d] < rem ? c[d] : rem);
        elems *= (size_t)r->sub[d];
    }
    r->bytes = (size_t)r->n[0] * r->n[1] * r->n[2] * 8;
    r->mine = elems * 8;
    r->etype = MPI_DOUBLE;
    MPI_Type_create_subarray(3, r->n, r->sub, r->lo, MPI_ORDER_C, MPI_DOUBLE, &r->ftype);
    MPI_Type_commit(&r->ftype);
}

static void setup_strided(struct row *r, size_t blk)
{
    if (blk % 8 || blk * size > STRIDED_FILE)
        die("block of %zu bytes: not a multiple of 8, or the %zu-byte file has fewer than %d",
            blk, STRIDED_FILE, size);
    r->blk = blk;
    r->nblk = STRIDED_FILE / blk / size;
    r->bytes = r->nblk * size * blk;
    r->mine = r->nblk * blk;
    r->etype = MPI_BYTE;
    r->disp = (MPI_Offset)rank * blk;
    MPI_Datatype v;
    MPI_Type_vector((int)r->nblk, (int)blk, (int)blk * size, MPI_BYTE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)r->bytes, &r->ftype);
    MPI_Type_free(&v);
    MPI_Type_commit(&r->ftype);
}

static void setup(struct row *r, size_t bytes)
{
    memset(r, 0, sizeof *r);
    r->ftype = MPI_DATATYPE_NULL;
    if (kind == ALL)
        setup_all(r, bytes);
    else if (kind == STRIDED)
        setup_strided(r, bytes);
    else {
        r->bytes = bytes / 8 * 8;
        r->mine = rank == 0 ? r->bytes : 0;
    }
    r->buf = malloc(r->mine ? r->mine : 8);
    if (!r->buf)
        die("out of memory for %zu bytes", r->mine);
}

/* ---------------------------------------------------------------- data */

/* Fills this rank's buffer with the file's doubles it owns (each is its own
 * index in the file), or with -1 (poison); or checks it; returns the
 * number of wrong doubles. */
enum fill { PATTERN, POISON, CHECK };

static size_t put(double *p, double v, enum fill f)
{
    if (f == CHECK)
        return *p != v;
    *p = f == PATTERN ? v : -1.0;
    return 0;
}

static size_t fill(struct row *r, enum fill f)
{
    double *p = r->buf;
    size_t bad = 0;
    if (kind == ALL) {
        for (size_t i = 0; i < (size_t)r->sub[0]; i++)
            for (size_t j = 0; j < (size_t)r->sub[1]; j++) {
                size_t g = ((r->lo[0] + i) * r->n[1] + r->lo[1] + j) * r->n[2] + r->lo[2];
                for (size_t k = 0; k < (size_t)r->sub[2]; k++)
                    bad += put(p++, (double)(g + k), f);
            }
    } else if (kind == STRIDED) {
        for (size_t b = 0; b < r->nblk; b++) {
            size_t g = (b * size + rank) * r->blk / 8;
            for (size_t k = 0; k < r->blk / 8; k++)
                bad += put(p++, (double)(g + k), f);
        }
    } else {
        for (size_t k = 0; k < r->mine / 8; k++)
            bad += put(p++, (double)k, f);
    }
    return bad;
}

/* Rank 0 writes the whole file with the pattern, for the reads. */
static void write_file(size_t bytes)
{
    double *chunk = malloc(CHUNK);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (!chunk || fd < 0)
        die("cannot create %s", path);
    for (size_t off = 0; off < bytes; off += CHUNK) {
        size_t len = bytes - off < CHUNK ? bytes - off : CHUNK;
        for (size_t k = 0; k < len / 8; k++)
            chunk[k] = (double)(off / 8 + k);
        if (pwrite(fd, chunk, len, (off_t)off) != (ssize_t)len)
            die("pwrite to %s failed", path);
    }
    close(fd);
    free(chunk);
}

/* Rank 0 checks the file that a row wrote. */
static void check_file(size_t bytes)
{
    double *chunk = malloc(CHUNK);
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (!chunk || fd < 0 || fstat(fd, &st) || (size_t)st.st_size != bytes)
        die("%s is missing or not %zu bytes long", path, bytes);
    for (size_t off = 0; off < bytes; off += CHUNK) {
        size_t len = bytes - off < CHUNK ? bytes - off : CHUNK;
        if (pread(fd, chunk, len, (off_t)off) != (ssize_t)len)
            die("pread from %s failed", path);
        for (size_t k = 0; k < len / 8; k++)
            if (chunk[k] != (double)(off / 8 + k))
                die("file written wrong: double %zu is %g", off / 8 + k, chunk[k]);
    }
    close(fd);
    free(chunk);
}

/* Rank 0 flushes the file and drops it from the page cache. */
static void evict(void)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fsync(fd) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
        die("cannot drop %s from the page cache", path);
    close(fd);
}

/* ---------------------------------------------------------------- timing */

/* A barrier that sleeps instead of spinning, so that ranks waiting for
 * rank 0's bare I/O leave it the processor. */
static void idle_barrier(void)
{
    MPI_Request req;
    int done = 0;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        usleep(1000);
    }
}

static double bare_rep(struct row *r)
{
    double t0 = 0, t1 = 0;
    int fd = -1;
    if (rank == 0) {
        fd = writing ? open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644) : open(path, O_RDONLY);
        if (fd < 0)
            die("cannot open %s", path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        char *p = (char *)r->buf;
        t0 = MPI_Wtime();
        for (size_t off = 0; off < r->bytes;) {
            size_t len = r->bytes - off < CHUNK ? r->bytes - off : CHUNK;
            ssize_t n = writing ? pwrite(fd, p + off, len, (off_t)off)
                                : pread(fd, p + off, len, (off_t)off);
            if (n <= 0)
                die("%s of %s failed", writing ? "pwrite" : "pread", path);
            off += (size_t)n;
        }
        if (writing && use_sync && fsync(fd))
            die("fsync of %s failed", path);
        t1 = MPI_Wtime();
        close(fd);
    }
    idle_barrier();
    return t1 - t0;
}

/* Hints for every open, from IO_BENCH_HINTS="key=value,key=value" (to
 * compare strategies, e.g. romio_cb_write=disable, on every MPI alike). */
static MPI_Info bench_hints(void)
{
    const char *h = getenv("IO_BENCH_HINTS");
    if (!h || !*h)
        return MPI_INFO_NULL;
    MPI_Info info;
    MPI_Info_create(&info);
    char copy[512];
    snprintf(copy, sizeof copy, "%s", h);
    for (char *save = NULL, *kv = strtok_r(copy, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = 0;
            MPI_Info_set(info, kv, eq + 1);
        }
    }
    return info;
}

static double mpi_rep(struct row *r)
{
    MPI_File fh;
    MPI_Status st;
    int amode = writing ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY, got;
    int count = (int)(kind == ALL ? r->mine / 8 : r->mine);
    MPI_Info info = bench_hints();
    check(MPI_File_open(MPI_COMM_WORLD, path, amode, info, &fh), "MPI_File_open");
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    check(MPI_File_set_view(fh, r->disp, r->etype, r->ftype, "native", MPI_INFO_NULL),
          "MPI_File_set_view");
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (kind == ALL && writing)
        check(MPI_File_write_all(fh, r->buf, count, MPI_DOUBLE, &st), "MPI_File_write_all");
    else if (kind == ALL)
        check(MPI_File_read_all(fh, r->buf, count, MPI_DOUBLE, &st), "MPI_File_read_all");
    else if (writing)
        check(MPI_File_write(fh, r->buf, count, MPI_BYTE, &st), "MPI_File_write");
    else
        check(MPI_File_read(fh, r->buf, count, MPI_BYTE, &st), "MPI_File_read");
    if (writing && use_sync)
        check(MPI_File_sync(fh), "MPI_File_sync");
    double t1 = MPI_Wtime();
    check(MPI_File_close(&fh), "MPI_File_close");
    MPI_Get_count(&st, r->etype, &got);
    if (got != count)
        die("%s moved %d of %d elements", mode, got, count);
    return t1 - t0;
}

/* One repetition: the slowest rank's seconds, on every rank. */
static double rep(struct row *r)
{
    if (rank == 0 && writing)
        unlink(path);
    if (rank == 0 && !writing && use_sync)
        evict();
    MPI_Barrier(MPI_COMM_WORLD);
    double t = kind == BARE ? bare_rep(r) : mpi_rep(r), slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

static double measure(struct row *r)
{
    if (rank == 0 && !writing)
        write_file(r->bytes);
    fill(r, writing ? PATTERN : POISON);
    double best = 1e30, spent = 0;
    for (int n = 0; n < MAX_REPS; n++) {
        if ((n >= MIN_REPS && spent > ENOUGH_SECONDS) || (n >= 1 && spent > CAP_SECONDS))
            break;
        double t = rep(r);
        spent += t;
        best = t < best ? t : best;
        size_t bad = n == 0 && !writing ? fill(r, CHECK) : 0;
        if (bad)
            die("%s read %zu wrong doubles at %zu bytes", mode, bad, r->bytes);
    }
    if (rank == 0 && writing)
        check_file(r->bytes);
    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    return best;
}

/* ---------------------------------------------------------------- main */

static const char *fs_name(const char *dir)
{
    struct statfs s;
    if (statfs(dir, &s))
        return "?";
    switch ((unsigned long)s.f_type) {
    case 0xEF53: return "ext2/3/4";
    case 0x58465342: return "xfs";
    case 0x9123683E: return "btrfs";
    case 0x01021994: return "tmpfs";
    case 0x794C7630: return "overlayfs";
    case 0x6969: return "nfs";
    case 0x65735546: return "fuse";
    default: return "other";
    }
}

static const char *scratch_dir(void)
{
    const char *d = getenv("UZURA_BENCH_DIR");
    if (!d || !*d)
        d = getenv("TMPDIR");
    return d && *d ? d : "/tmp";
}

static int parse_mode(const char *m)
{
    static const struct { const char *name; enum kind kind; int writing; } modes[] = {
        {"write_all", ALL, 1},   {"read_all", ALL, 0},   {"write_strided", STRIDED, 1},
        {"read_strided", STRIDED, 0}, {"bare_write", BARE, 1}, {"bare_read", BARE, 0},
    };
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        if (!strcmp(m, modes[i].name)) {
            kind = modes[i].kind;
            writing = modes[i].writing;
            return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mode = argc > 1 ? argv[1] : "write_all";
    int a = 2;
    if (argc > a && !strcmp(argv[a], "sync"))
        use_sync = 1, a++;
    if (!parse_mode(mode) || argc > a + 2) {
        if (rank == 0)
            fprintf(stderr, "usage: io_bench write_all|read_all|write_strided|read_strided|"
                            "bare_write|bare_read [sync] [min_bytes max_bytes]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    size_t lo = argc > a ? strtoul(argv[a], NULL, 0) : kind == STRIDED ? 64 : (size_t)4 << 20;
    size_t hi = argc > a + 1 ? strtoul(argv[a + 1], NULL, 0) : kind == STRIDED ? (size_t)1 << 20
                                                                               : (size_t)1 << 30;
    if (lo < 8)
        lo = 8;
    if (hi < lo)
        hi = lo;
    MPI_Dims_create(size, 3, dims);
    const char *dir = scratch_dir();
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "%s/io_bench.%d.dat", dir, pid);
    if (rank == 0) {
        printf("# %s, %s, %d ranks", mode, use_sync ? "sync (device)" : "page cache", size);
        if (kind == ALL)
            printf(" (grid %dx%dx%d)", dims[0], dims[1], dims[2]);
        printf(", %s on %s: %s, MB/s (10^6 B/s)\n", dir, fs_name(dir),
               kind == STRIDED ? "block bytes (64 MiB file)" : "file bytes");
    }
    for (size_t b = lo;; b *= 4) {
        if (b > hi)
            b = hi;
        struct row r;
        setup(&r, b);
        double t = measure(&r);
        if (rank == 0)
            printf("%zu %.1f\n", kind == STRIDED ? r.blk : r.bytes, (double)r.bytes / t / 1e6);
        fflush(stdout);
        if (r.ftype != MPI_DATATYPE_NULL)
            MPI_Type_free(&r.ftype);
        free(r.buf);
        if (b >= hi)
            break;
    }
    MPI_Finalize();
    return 0;
}
