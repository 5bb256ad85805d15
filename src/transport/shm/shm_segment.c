/*
 * shm_segment.c — creating, attaching and removing the host's segment, and
 * probing whether cross-memory attach works between the host's ranks.
 *
 * The host's first rank creates /dev/shm/uzura-<job>-n<node> (mode 0600)
 * and sizes it; after a job-wide fence the others open and map it; after a
 * second fence, when everyone has it mapped, the creator unlinks it, so a
 * crash later cannot leave it behind.  mpiexec also removes any
 * uzura-<job>-* file left by a job that died before that point.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/params.h"
#include "base/runtime.h"
#include "base/wake_fence.h"
#include "transport/shm/shm_state.h"

struct shm_state uz_shm = { .fd = -1, .wake_fd = -1 };

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

static void compute_layout(struct shm_segment_header *h, int nlocal, uint32_t slots, int records)
{
    h->magic = SHM_MAGIC;
    h->version = SHM_LAYOUT_VERSION;
    h->nlocal = (uint32_t)nlocal;
    h->ring_slots = slots;
    h->ctl_offset = SHM_PAGE;
    h->ctl_stride = round_up(sizeof(struct shm_ctl), SHM_CACHELINE);
    h->ring_offset = round_up(h->ctl_offset + (size_t)nlocal * h->ctl_stride, SHM_PAGE);
    /* Each ring starts on its own page so that reserving it touches no
     * neighbour's memory. */
    h->ring_stride = round_up(sizeof(struct shm_ring_ctl) + (size_t)slots * sizeof(struct shm_slot), SHM_PAGE);
    h->bulk_offset = h->ring_offset + (size_t)nlocal * nlocal * h->ring_stride;
    h->bulk_records_per_rank = (uint64_t)records;
    h->total_size = round_up(h->bulk_offset + (size_t)nlocal * records * sizeof(struct shm_bulk_record),
                             SHM_PAGE);
}

int shm_reserve(size_t offset, size_t len, const char *what)
{
    int rc;
    do {
        rc = posix_fallocate(uz_shm.fd, (off_t)offset, (off_t)len);
    } while (rc == EINTR);
    if (rc != 0)
        return uz_err_make(rc == ENOSPC ? MPI_ERR_NO_SPACE : MPI_ERR_OTHER,
                           "cannot reserve %zu bytes of shared memory for %s in /dev/shm/%s: %s%s",
                           len, what, uz_shm.name, strerror(rc),
                           rc == ENOSPC ? " (is /dev/shm full? see `df -h /dev/shm`)" : "");
    uz_shm.reserved += len;
    return MPI_SUCCESS;
}

static int create_segment(const struct shm_segment_header *layout)
{
    int fd = shm_open(uz_shm.name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return uz_err_make(MPI_ERR_OTHER, "cannot create shared memory segment /dev/shm/%s: %s",
                           uz_shm.name, strerror(errno));
    uz_shm.fd = fd;
    uz_shm.created = 1;
    if (ftruncate(fd, (off_t)layout->total_size) != 0)
        return uz_err_make(MPI_ERR_NO_SPACE, "cannot size shared memory segment /dev/shm/%s to %llu bytes: %s",
                           uz_shm.name, (unsigned long long)layout->total_size, strerror(errno));
    return MPI_SUCCESS;
}

static int open_segment(void)
{
    int fd = shm_open(uz_shm.name, O_RDWR, 0);
    if (fd < 0)
        return uz_err_make(MPI_ERR_OTHER, "cannot open shared memory segment /dev/shm/%s made by this "
                           "host's first rank: %s", uz_shm.name, strerror(errno));
    uz_shm.fd = fd;
    return MPI_SUCCESS;
}

static int map_segment(size_t size)
{
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, uz_shm.fd, 0);
    if (p == MAP_FAILED)
        return uz_err_make(MPI_ERR_OTHER, "cannot map shared memory segment /dev/shm/%s (%zu bytes): %s",
                           uz_shm.name, size, strerror(errno));
    uz_shm.base = p;
    uz_shm.size = size;
    uz_shm.hdr = p;
    return MPI_SUCCESS;
}

/* Can this process read the next local rank's memory with process_vm_readv?
 * Records the answer, and the errno when it cannot (containers, seccomp and
 * ptrace policies may forbid it), in our control block for every rank to see. */
static void probe_cma(void)
{
    struct shm_ctl *me = uz_shm.my_ctl;
    me->cma_ok = 0;
    me->cma_errno = 0;
    if (uz_shm.nlocal < 2)
        return;
    int peer = (uz_shm.my_local + 1) % uz_shm.nlocal;
    struct shm_ctl *c = shm_ctl_of(peer);
    uint64_t value = 0;
    struct iovec local = { &value, sizeof(value) };
    struct iovec remote = { (void *)(uintptr_t)c->probe_addr, sizeof(value) };
    ssize_t n = process_vm_readv(c->pid, &local, 1, &remote, 1, 0);
    me->cma_errno = n < 0 ? errno : 0;
    me->cma_ok = n == (ssize_t)sizeof(value) && value == c->probe_value;
}

static uint64_t cma_probe_word;

/* How large messages between this host's ranks travel, and why: one
 * sentence for UZURA_VERBOSE (uz_shm_describe). */
static char cma_decision[512];

/* The first local rank whose probe failed, or -1. */
static int cma_first_refused(void)
{
    for (int i = 0; i < uz_shm.nlocal; i++)
        if (!shm_ctl_of(i)->cma_ok)
            return i;
    return -1;
}

static void cma_refusal_text(int refused, char *buf, size_t len)
{
    const struct shm_ctl *c = shm_ctl_of(refused);
    snprintf(buf, len, "local rank %d (world rank %d) could not read local rank %d's memory: %s", refused,
             c->world_rank, (refused + 1) % uz_shm.nlocal,
             c->cma_errno ? strerror(c->cma_errno) : "the read came back short or wrong");
}

/* 1: large messages by cross-memory attach; 0: pipelined through the
 * rings; -1: UZURA_SHM_CMA=on and it does not work (cma_decision says why). */
static int decide_cma(void)
{
    char refusal[200];
    int refused = cma_first_refused();
    if (uz_shm.nlocal < 2) {
        snprintf(cma_decision, sizeof(cma_decision), "none: no other rank on this host");
        return 0;
    }
    if (uz_config.shm_cma == UZ_SHM_CMA_OFF) {
        snprintf(cma_decision, sizeof(cma_decision), "pipelined copy through the shared-memory rings, "
                 "because UZURA_SHM_CMA=off");
        return 0;
    }
    if (refused < 0) {
        snprintf(cma_decision, sizeof(cma_decision), "one copy by cross-memory attach (process_vm_readv "
                 "works between the %d ranks on this host)", uz_shm.nlocal);
        return 1;
    }
    cma_refusal_text(refused, refusal, sizeof(refusal));
    snprintf(cma_decision, sizeof(cma_decision), "pipelined copy through the shared-memory rings, because "
             "cross-memory attach (process_vm_readv) is not permitted here: %s (ptrace policy, seccomp or "
             "container)", refusal);
    return uz_config.shm_cma == UZ_SHM_CMA_ON ? -1 : 0;
}

/* One-sided wake-up fences (base/wake_fence.h) need every rank on the
 * host to be a membarrier target: a sender skips its fence only if the
 * sleeper's membarrier will reach it. */
static void decide_fence(void)
{
    char why[256];
    int refused = -1, one_sided = 0;
    for (int i = 0; i < uz_shm.nlocal && refused < 0; i++)
        if (!shm_ctl_of(i)->fence_registered)
            refused = i;
    if (uz_shm.nlocal < 2) {
        snprintf(why, sizeof(why), "every record fenced (no other rank on this host)");
    } else if (uz_config.shm_fence == UZ_SHM_FENCE_FULL) {
        snprintf(why, sizeof(why), "every record fenced, because UZURA_SHM_FENCE=full");
    } else if (refused >= 0) {
        snprintf(why, sizeof(why), "every record fenced, because local rank %d (world rank %d) could not "
                 "register for membarrier(2) (old kernel or seccomp)", refused, shm_ctl_of(refused)->world_rank);
    } else {
        snprintf(why, sizeof(why), "records published without a fence, a rank going to sleep issues "
                 "membarrier(2) instead");
        one_sided = 1;
    }
    uz_wake_fence_decided(one_sided, why);
}

void uz_shm_describe(char *buf, size_t len)
{
    snprintf(buf, len, "%s", cma_decision);
}

/* Ring bytes per ordered pair.  Rendezvous DATA of derived types streams
 * through the ring with sender and receiver working at once: a 256 KiB
 * ring (15 records of 16 KiB in flight instead of 3) measured 15-25% faster
 * for 1 MiB strided ping-pong than 64 KiB.  A rank may reserve a ring to
 * every local peer, so with many ranks per host the rings shrink to keep
 * each rank's share near 4 MiB, down to the old 64 KiB. */
static size_t ring_bytes_for(int nlocal)
{
    enum { RING_MAX = 256 * 1024, RING_MIN = 64 * 1024, RINGS_PER_RANK = 4 * 1024 * 1024 };
    if (uz_config.shm_ring_size)
        return uz_config.shm_ring_size;
    size_t ring = RING_MAX;
    while (ring > RING_MIN && (size_t)(nlocal > 1 ? nlocal - 1 : 1) * ring > RINGS_PER_RANK)
        ring /= 2;
    return ring;
}

/* Unlink this job's segment if this process created it and nobody else
 * will (the job is being aborted). */
static void unlink_on_abort(void)
{
    if (uz_shm.created && !uz_shm.unlinked) {
        shm_unlink(uz_shm.name);
        uz_shm.unlinked = 1;
    }
}

int uz_shm_init(const struct uz_transport_setup *s, const struct uz_upcalls *up)
{
    int err;
    uz_shm.up = up;
    uz_shm.job_key = s->job_key;
    uz_shm.world_rank = s->world_rank;
    uz_runtime_on_abort(unlink_on_abort);
    size_t ring_bytes = ring_bytes_for(s->nlocal);
    if (ring_bytes < 4096 || (ring_bytes & (ring_bytes - 1)))
        return uz_err_make(MPI_ERR_OTHER, "UZURA_SHM_RING_SIZE=%zu must be a power of two of at least 4096",
                           ring_bytes);
    if (s->nlocal > SHM_MAX_LOCAL)
        return uz_err_make(MPI_ERR_OTHER, "%d ranks on one host; the shared-memory transport supports %d",
                           s->nlocal, SHM_MAX_LOCAL);
    uz_shm.my_local = s->my_local;
    uz_shm.nlocal = s->nlocal;
    uz_shm.local_world_ranks = malloc(sizeof(int) * s->nlocal);
    uz_shm.tx = calloc(s->nlocal, sizeof(*uz_shm.tx));
    uz_shm.rx = calloc(s->nlocal, sizeof(*uz_shm.rx));
    if (!uz_shm.local_world_ranks || !uz_shm.tx || !uz_shm.rx)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory setting up the shared-memory transport");
    memcpy(uz_shm.local_world_ranks, s->local_world_ranks, sizeof(int) * s->nlocal);
    snprintf(uz_shm.name, sizeof(uz_shm.name), "uzura-%s-n%d", s->job_id, s->segment_id);

    struct shm_segment_header layout;
    compute_layout(&layout, s->nlocal, (uint32_t)(ring_bytes / sizeof(struct shm_slot)),
                   uz_config.shm_bulk_records > 0 ? uz_config.shm_bulk_records : 1);

    /* Step 1: the first rank creates; everyone else waits for it. */
    if (s->my_local == 0 && (err = create_segment(&layout)))
        return err;
    if (s->my_local == 0) {
        if ((err = map_segment(layout.total_size)))
            return err;
        /* The header page and every control block up front: they are small
         * and every rank touches them. */
        if ((err = shm_reserve(0, layout.ring_offset, "control blocks")))
            return err;
        *uz_shm.hdr = layout;
    }
    if (s->fence() != 0)
        return uz_err_make(MPI_ERR_OTHER, "shared-memory set-up: fence with the other ranks failed");

    /* Step 2: the others attach; each publishes how to reach it. */
    if (s->my_local != 0) {
        if ((err = open_segment()) || (err = map_segment(layout.total_size)))
            return err;
        if (memcmp(uz_shm.hdr, &layout, sizeof(layout)) != 0)
            return uz_err_make(MPI_ERR_OTHER, "shared memory segment /dev/shm/%s has a different layout "
                               "(ranks started with different UZURA_SHM_* settings?)", uz_shm.name);
    }
    uz_shm.ring_slots = layout.ring_slots;
    uz_shm.ring_mask = layout.ring_slots - 1;
    uz_shm.my_ctl = shm_ctl_of(s->my_local);
    cma_probe_word = 0x757a757261000000ull ^ (uint64_t)getpid();
    uz_shm.my_ctl->pid = getpid();
    uz_shm.my_ctl->world_rank = s->local_world_ranks[s->my_local];
    uz_shm.my_ctl->probe_addr = (uint64_t)(uintptr_t)&cma_probe_word;
    uz_shm.my_ctl->probe_value = cma_probe_word;
    uz_shm.my_ctl->fence_registered = uz_config.shm_fence != UZ_SHM_FENCE_FULL && uz_wake_fence_register();
    if (s->sleeps_in_poll && (err = shm_wake_socket_open()))
        return err;
    /* Our own bulk records. */
    if ((err = shm_reserve(layout.bulk_offset + (size_t)s->my_local * layout.bulk_records_per_rank *
                           sizeof(struct shm_bulk_record),
                           layout.bulk_records_per_rank * sizeof(struct shm_bulk_record), "bulk records")))
        return err;
    if (s->fence() != 0)
        return uz_err_make(MPI_ERR_OTHER, "shared-memory set-up: fence with the other ranks failed");

    /* Step 3: everyone has mapped it: remove the name; probe cross-memory attach. */
    if (uz_shm.created) {
        shm_unlink(uz_shm.name);
        uz_shm.unlinked = 1;
    }
    probe_cma();
    if (s->fence() != 0)
        return uz_err_make(MPI_ERR_OTHER, "shared-memory set-up: fence with the other ranks failed");
    int cma = decide_cma();
    if (cma < 0) {
        char refusal[200];
        cma_refusal_text(cma_first_refused(), refusal, sizeof(refusal));
        return uz_err_make(MPI_ERR_OTHER, "UZURA_SHM_CMA=on but process_vm_readv between this host's "
                           "ranks is not permitted: %s (ptrace policy, seccomp or container)", refusal);
    }
    uz_shm.cma = cma;
    decide_fence();
    shm_bulk_init();
    return MPI_SUCCESS;
}

void uz_shm_finalize(void)
{
    if (uz_config.verbose >= 2 && uz_shm.local_world_ranks)
        fprintf(stderr, "Uzura rank %d: shm: receive memory prefaulted %llu bytes\n",
                uz_shm.local_world_ranks[uz_shm.my_local], (unsigned long long)shm_prefaulted_bytes());
    shm_bulk_finalize();
    shm_links_finalize();
    shm_wake_socket_close();
    if (uz_shm.base)
        munmap(uz_shm.base, uz_shm.size);
    if (uz_shm.fd >= 0)
        close(uz_shm.fd);
    if (uz_shm.created && !uz_shm.unlinked)
        shm_unlink(uz_shm.name);
    free(uz_shm.local_world_ranks);
    for (int i = 0; uz_shm.tx && i < uz_shm.nlocal; i++)
        free(uz_shm.tx[i].payload_first);
    free(uz_shm.tx);
    free(uz_shm.rx);
    memset(&uz_shm, 0, sizeof(uz_shm));
    uz_shm.fd = -1;
    uz_shm.wake_fd = -1;
}

void uz_shm_caps(struct uz_transport_caps *caps)
{
    size_t frag = uz_config.shm_fragment;
    size_t ring = (size_t)uz_shm.ring_slots * sizeof(struct shm_slot);
    /* A record must leave room for others in flight: at most a quarter ring. */
    if (frag > ring / 4)
        frag = ring / 4;
    /* A rank alone on its host has nobody to probe cross-memory attach
     * with, but may meet processes of other jobs here (shm_link.c probes
     * each of them, and takes the ring where it fails). */
    int alone = uz_shm.nlocal < 2 && uz_config.shm && uz_config.shm_cma != UZ_SHM_CMA_OFF;
    *caps = (struct uz_transport_caps){
        .max_record = frag,
        .inline_payload = sizeof(((struct shm_slot *)0)->bytes),
        .has_bulk = uz_shm.cma || alone,
        /* process_vm_readv/writev cost about 300 ns per run of the other
         * process and 50 ns per run of our own, on top of the bytes: a
         * mean run under 4 KiB there, or 256 bytes here, costs more in
         * the kernel than staging the bytes does. */
        .bulk_min_run_remote = 4096,
        .bulk_min_run_local = 256,
        /* One core copies everything when one side is staged: past the
         * cache, the ring's two cores win (UZURA_SHM_STAGED_MAX). */
        .bulk_staged_max = uz_config.shm_staged_max,
        .has_put_get = uz_shm.cma,
    };
}

size_t uz_shm_reserved_bytes(void)
{
    return uz_shm.reserved;
}

size_t uz_shm_segment_size(void)
{
    return uz_shm.size;
}
