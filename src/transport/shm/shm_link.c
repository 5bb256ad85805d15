/*
 * shm_link.c — shared memory with processes of other jobs on this host
 * (MPI_Comm_spawn, accept/connect, join: docs/dynamic-processes.md).
 *
 * The host segment of a job is unlinked once its ranks have mapped it, so a
 * process of another job cannot open it.  Each pair of processes of two
 * jobs gets a small segment of its own instead, a "link":
 *
 *   header | control block per side | ring per direction | bulk records per side
 *
 * Both processes learn of each other at the same moment (add_peer, from the
 * descriptors of a meeting), each knowing both identities, so both derive
 * the same name and the same roles without a message: the process lower in
 * (job key, rank) order creates /dev/shm/uzura-<its job>-x<its rank>-<other
 * key>-<other rank> (mode 0600; the creator's mpiexec removes uzura-<job>-*
 * after a crash), the other opens it, possibly later (it retries from
 * progress), and says so in the header; the creator then removes the name.
 * A link whose other side never came is removed at abort and finalize.
 *
 * From then on a link peer is one more peer of the transport, named
 * nlocal + i: records go through its rings with the code of shm_ring.c,
 * large messages by cross-memory attach through its bulk records
 * (shm_bulk.c), each side having probed that it can read the other (the
 * CTS/DATA path through the ring when not, or with UZURA_SHM_CMA=off).
 * Both processes talk over the network too (their descriptors name it), so
 * they sleep in poll() with a wake socket: a link peer is rung there, and
 * the "sleeping" flag it reads is its side's control block in the link.
 *
 * A process of another job dies without this job's mpiexec noticing, so
 * each link keeps a pidfd of the other process and progress looks at them
 * every LIVENESS_NS: a dead peer whose ring is empty is reported to the
 * request layer (MPI_ERR_PROC_ABORTED).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/params.h"
#include "base/runtime.h"
#include "transport/shm/shm_state.h"

enum {
    LINK_MAGIC = 0x757a6c6b,            /* "uzlk" */
    LINK_VERSION = 1,
    LIVENESS_NS = 50 * 1000 * 1000,     /* how often progress looks for dead link peers */
};

struct link_header {
    uint32_t magic, version;
    uint32_t ring_slots, bulk_records;  /* per direction, per side */
    uint64_t ctl_offset;                /* two control blocks */
    uint64_t ring_offset[2];            /* the ring side s writes */
    uint64_t bulk_offset[2];            /* the records side s offers */
    uint64_t total_size;
    atomic_int attached;                /* side 1 has mapped it: side 0 removes the name */
};

enum link_state { LINK_PENDING, LINK_UP, LINK_DEAD };

struct shm_link {
    int world;                          /* the request layer's number for it */
    int side;                           /* 0: we created the segment */
    enum link_state state;
    int name_linked;                    /* side 0: the name is still in /dev/shm */
    int cma;                            /* both sides can read each other's memory */
    int cma_known;                      /* both have probed */
    int cma_errno;                      /* why not, when we could not */
    char name[160];
    unsigned char *base;
    size_t size;
    struct link_header *hdr;
    struct shm_ctl *ctl[2];
    pid_t pid;
    int pidfd;                          /* -1: kill(pid, 0) instead */
    struct sockaddr_un wake;
    socklen_t wake_len;
    int rank;                           /* in its job */
    char job[64];
    long attach_deadline_ns;            /* the other side must have mapped the segment by then */
};

unsigned long uz_shm_link_bulk;
static unsigned long links_up;
static unsigned tick;
static long last_check_ns;

const struct uz_transport_counter uz_shm_counters[] = {
    { "foreign_peers", "Processes of other jobs on this host reached through shared memory (links made)",
      &links_up },
    { "foreign_bulk", "Large messages with processes of other jobs copied once by cross-memory attach "
      "(sent or received)", &uz_shm_link_bulk },
    { NULL, NULL, NULL },
};

static struct shm_link *link_of(int peer)
{
    return &uz_shm.links[peer - uz_shm.nlocal];
}

struct shm_ctl *shm_link_peer_ctl(int peer)
{
    struct shm_link *l = link_of(peer);
    /* Before the segment exists (side 1 pending) nobody reads this: sends
     * wait for the attach. */
    return l->ctl[1 - l->side];
}

struct shm_bulk_record *shm_link_bulk_record(int peer, int theirs, uint32_t index)
{
    struct shm_link *l = link_of(peer);
    int s = theirs ? 1 - l->side : l->side;
    return (struct shm_bulk_record *)(l->base + l->hdr->bulk_offset[s]) + index;
}

uint32_t shm_link_bulk_records(int peer)
{
    struct shm_link *l = link_of(peer);
    return l->hdr ? l->hdr->bulk_records : 0;
}

int shm_link_cma(int peer)
{
    const struct shm_link *l = link_of(peer);
    return l->cma_known || l->state == LINK_DEAD || uz_config.shm_cma == UZ_SHM_CMA_OFF ? l->cma : -1;
}

void shm_link_wake(int peer)
{
    struct shm_link *l = link_of(peer);
    shm_wake_by_socket(&l->wake, l->wake_len);
}

void shm_links_sleeping(int v)
{
    for (int i = 0; i < uz_shm.nlinks; i++)
        if (uz_shm.links[i].hdr)
            atomic_store_explicit(&uz_shm.links[i].ctl[uz_shm.links[i].side]->sleeping, v,
                                  v ? memory_order_seq_cst : memory_order_relaxed);
}

/* ------------------------------------------------------------ the card */

/* What a process of another job needs to reach this one here: its job id
 * (names, wake socket) and pid.  None with UZURA_SHM=0. */
int uz_shm_card(char *buf, size_t len)
{
    if (!uz_config.shm || !uz_shm.my_ctl)
        return -1;
    int n = snprintf(buf, len, "%s,%d", uz_rt.job_id, (int)uz_shm.my_ctl->pid);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

static int parse_card(const char *card, struct shm_link *l)
{
    const char *comma = strrchr(card, ',');
    if (!comma || comma == card || (size_t)(comma - card) >= sizeof(l->job))
        return -1;
    memcpy(l->job, card, (size_t)(comma - card));
    l->job[comma - card] = '\0';
    char *end;
    long pid = strtol(comma + 1, &end, 10);
    if (*end || pid <= 0)
        return -1;
    l->pid = (pid_t)pid;
    return 0;
}

/* ------------------------------------------------------------ the segment */

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

static void layout(struct link_header *h)
{
    size_t ring_bytes = round_up(sizeof(struct shm_ring_ctl) + (size_t)uz_shm.ring_slots * sizeof(struct shm_slot),
                                 SHM_PAGE);
    uint32_t records = uz_config.shm_bulk_records > 0 ? (uint32_t)uz_config.shm_bulk_records : 1;
    memset(h, 0, sizeof(*h));
    h->magic = LINK_MAGIC;
    h->version = LINK_VERSION;
    h->ring_slots = uz_shm.ring_slots;
    h->bulk_records = records;
    h->ctl_offset = round_up(sizeof(*h), SHM_CACHELINE);
    h->ring_offset[0] = round_up(h->ctl_offset + 2 * round_up(sizeof(struct shm_ctl), SHM_CACHELINE), SHM_PAGE);
    h->ring_offset[1] = h->ring_offset[0] + ring_bytes;
    h->bulk_offset[0] = h->ring_offset[1] + ring_bytes;
    h->bulk_offset[1] = h->bulk_offset[0] + records * sizeof(struct shm_bulk_record);
    h->total_size = round_up(h->bulk_offset[1] + records * sizeof(struct shm_bulk_record), SHM_PAGE);
}

static void hex8(const uint8_t *key, char *out)
{
    for (int i = 0; i < 8; i++)
        sprintf(out + 2 * i, "%02x", key[i]);
}

/* Side 0's job and rank, side 1's key and rank. */
static void link_name(struct shm_link *l, const uint8_t *their_key)
{
    char hex[17];
    if (l->side == 0) {
        hex8(their_key, hex);
        snprintf(l->name, sizeof(l->name), "/uzura-%s-x%d-%s-%d", uz_rt.job_id, uz_shm.world_rank, hex, l->rank);
    } else {
        hex8(uz_shm.job_key, hex);
        snprintf(l->name, sizeof(l->name), "/uzura-%s-x%d-%s-%d", l->job, l->rank, hex, uz_shm.world_rank);
    }
}

static uint64_t probe_word;

/* Our control block in the link: how the other side finds, wakes and
 * reads us. */
static void fill_own_ctl(struct shm_link *l)
{
    struct shm_ctl *me = l->ctl[l->side];
    probe_word = 0x757a6c6b00000000ull ^ (uint64_t)uz_shm.my_ctl->pid;
    me->pid = uz_shm.my_ctl->pid;
    me->world_rank = uz_shm.world_rank;
    me->wake_by_socket = 1;
    me->probe_addr = (uint64_t)(uintptr_t)&probe_word;
    me->probe_value = probe_word;
    atomic_store_explicit(&me->sleeping, 0, memory_order_relaxed);
}

static void map_parts(struct shm_link *l)
{
    l->hdr = (struct link_header *)l->base;
    for (int s = 0; s < 2; s++)
        l->ctl[s] = (struct shm_ctl *)(l->base + l->hdr->ctl_offset +
                                       (size_t)s * round_up(sizeof(struct shm_ctl), SHM_CACHELINE));
}

static int create_link(struct shm_link *l)
{
    struct link_header h;
    layout(&h);
    int fd = shm_open(l->name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0)
        return uz_err_make(MPI_ERR_OTHER, "cannot create shared memory %s for a process of another job: %s",
                           l->name, strerror(errno));
    l->name_linked = 1;
    int rc = ftruncate(fd, (off_t)h.total_size) != 0 ? errno : 0;
    while (!rc && (rc = posix_fallocate(fd, 0, (off_t)h.total_size)) == EINTR)
        ;
    void *p = rc ? MAP_FAILED : mmap(NULL, h.total_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (!rc && p == MAP_FAILED)
        rc = errno;
    close(fd);
    if (rc)
        return uz_err_make(rc == ENOSPC ? MPI_ERR_NO_SPACE : MPI_ERR_OTHER, "cannot set up shared memory %s "
                           "(%llu bytes) for a process of another job: %s", l->name,
                           (unsigned long long)h.total_size, strerror(rc));
    l->base = p;
    l->size = h.total_size;
    /* The magic last: side 1 may open the name at any moment, and takes a
     * segment without it for one still being made. */
    uint32_t magic = h.magic;
    h.magic = 0;
    *(struct link_header *)l->base = h;
    __atomic_store_n(&((struct link_header *)l->base)->magic, magic, __ATOMIC_RELEASE);
    map_parts(l);
    fill_own_ctl(l);
    /* Until the other side is there, ring it after every record: it
     * looks for the segment when woken. */
    atomic_store_explicit(&l->ctl[1]->sleeping, 1, memory_order_relaxed);
    l->ctl[1]->wake_by_socket = 1;
    return MPI_SUCCESS;
}

/* Side 1: 0 when mapped, -EAGAIN when side 0 has not made it yet. */
static int open_link(struct shm_link *l)
{
    int fd = shm_open(l->name, O_RDWR, 0);
    if (fd < 0)
        return errno == ENOENT ? -EAGAIN
                               : uz_err_make(MPI_ERR_OTHER, "cannot open shared memory %s of a process of "
                                             "another job: %s", l->name, strerror(errno));
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return uz_err_make(MPI_ERR_OTHER, "cannot look at shared memory %s of a process of another job: %s",
                           l->name, strerror(errno));
    }
    if ((size_t)st.st_size < sizeof(struct link_header)) {      /* side 0 has not sized it yet */
        close(fd);
        return -EAGAIN;
    }
    p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return uz_err_make(MPI_ERR_OTHER, "cannot map shared memory %s of a process of another job", l->name);
    const struct link_header *h = p;
    if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) == 0) {       /* not filled in yet */
        munmap(p, (size_t)st.st_size);
        return -EAGAIN;
    }
    if (h->magic != LINK_MAGIC || h->version != LINK_VERSION || h->total_size != (uint64_t)st.st_size ||
        !h->ring_slots || (h->ring_slots & (h->ring_slots - 1))) {
        munmap(p, (size_t)st.st_size);
        return uz_err_make(MPI_ERR_OTHER, "shared memory %s of a process of another job has an unknown "
                           "layout (another Uzura version?)", l->name);
    }
    l->base = p;
    l->size = (size_t)st.st_size;
    map_parts(l);
    fill_own_ctl(l);
    return MPI_SUCCESS;
}

/* Can we read the other side's memory?  Published in our control block. */
static void probe_cma(struct shm_link *l)
{
    struct shm_ctl *me = l->ctl[l->side], *them = l->ctl[1 - l->side];
    uint64_t value = 0;
    struct iovec local = { &value, sizeof(value) };
    struct iovec remote = { (void *)(uintptr_t)them->probe_addr, sizeof(value) };
    ssize_t n = process_vm_readv(l->pid, &local, 1, &remote, 1, 0);
    me->cma_errno = n < 0 ? errno : 0;
    l->cma_errno = me->cma_errno;
    atomic_thread_fence(memory_order_release);
    me->cma_ok = n == (ssize_t)sizeof(value) && value == them->probe_value ? 1 : -1;
}

/* Both probes are in: use cross-memory attach when both could read. */
static void decide_cma(struct shm_link *l)
{
    int mine = l->ctl[l->side]->cma_ok, theirs = l->ctl[1 - l->side]->cma_ok;
    if (!mine || !theirs)
        return;
    atomic_thread_fence(memory_order_acquire);
    l->cma_known = 1;
    l->cma = mine > 0 && theirs > 0 && uz_config.shm_cma != UZ_SHM_CMA_OFF;
    if (uz_config.verbose)
        fprintf(stderr, "Uzura rank %d: shm: process %d of another job (rank %d there) reached through shared "
                "memory; large messages: %s%s%s\n", uz_shm.world_rank, l->world, l->rank,
                l->cma ? "one copy by cross-memory attach" : "pipelined through the rings, because ",
                l->cma ? "" : uz_config.shm_cma == UZ_SHM_CMA_OFF ? "UZURA_SHM_CMA=off"
                                                                   : "cross-memory attach is not permitted: ",
                l->cma || uz_config.shm_cma == UZ_SHM_CMA_OFF ? ""
                                                              : strerror(l->cma_errno ? l->cma_errno : EPERM));
}

/* The segment is mapped on our side: start the rings. */
static void link_up(struct shm_link *l, int peer)
{
    int me = l->side, them = 1 - me;
    struct shm_tx *tx = &uz_shm.tx[peer];
    unsigned char *mine = l->base + l->hdr->ring_offset[me], *theirs = l->base + l->hdr->ring_offset[them];
    memset(tx, 0, sizeof(*tx));
    tx->ring_ctl = (struct shm_ring_ctl *)mine;
    tx->nslots = l->hdr->ring_slots;
    tx->mask = tx->nslots - 1;
    shm_rx_add(peer, l->world, (struct shm_slot *)(theirs + sizeof(struct shm_ring_ctl)),
               (struct shm_ring_ctl *)theirs, l->hdr->ring_slots);
    l->state = LINK_UP;
    links_up++;
}

int shm_link_activate_tx(int peer)
{
    struct shm_link *l = link_of(peer);
    if (l->state == LINK_DEAD)
        return uz_err_make(MPI_ERR_PROC_ABORTED, "process %d of another job (rank %d there) is gone", l->world,
                           l->rank);
    if (l->state != LINK_UP)
        return -EAGAIN;
    struct shm_tx *tx = &uz_shm.tx[peer];
    tx->payload_first = calloc((tx->nslots + 63) / 64, sizeof(uint64_t));
    if (!tx->payload_first)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory starting a message ring");
    tx->slots = (struct shm_slot *)((unsigned char *)tx->ring_ctl + sizeof(struct shm_ring_ctl));
    shm_tx_start_hot(tx);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ adding */

static void unlink_names(void)
{
    for (int i = 0; i < uz_shm.nlinks; i++)
        if (uz_shm.links[i].name_linked) {
            shm_unlink(uz_shm.links[i].name);
            uz_shm.links[i].name_linked = 0;
        }
}

static int grow_links(void)
{
    if (uz_shm.nlinks < uz_shm.links_cap)
        return MPI_SUCCESS;
    int cap = uz_shm.links_cap ? 2 * uz_shm.links_cap : 8;
    struct shm_link *l = realloc(uz_shm.links, sizeof(*l) * (size_t)cap);
    if (!l)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory adding a process of another job to shm");
    uz_shm.links = l;
    int err = shm_ring_grow(uz_shm.nlocal + cap);
    if (!err)
        err = shm_bulk_grow(uz_shm.nlocal + cap);
    if (err)
        return err;
    memset(uz_shm.tx + uz_shm.nlocal + uz_shm.links_cap, 0, sizeof(*uz_shm.tx) * (size_t)(cap - uz_shm.links_cap));
    static int hooked;                  /* once per process, even across MPI_Session re-inits */
    if (!hooked++)
        uz_runtime_on_abort(unlink_names);
    uz_shm.links_cap = cap;
    return MPI_SUCCESS;
}

static int order(const uint8_t *ka, int ra, const uint8_t *kb, int rb)
{
    int c = memcmp(ka, kb, UZ_NET_KEY_BYTES);
    return c ? c : (ra > rb) - (ra < rb);
}

static long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

int uz_shm_add_peer(int peer, const struct uz_foreign_peer *fp)
{
    int err;
    if (!fp->same_host || !fp->card)
        return uz_err_make(MPI_ERR_INTERN, "shm: process %d of another job is not on this host", peer);
    if ((err = shm_sleep_in_poll()) || (err = grow_links()))
        return err;
    struct shm_link *l = &uz_shm.links[uz_shm.nlinks];
    memset(l, 0, sizeof(*l));
    l->pidfd = -1;
    l->world = peer;
    l->rank = fp->rank;
    if (parse_card(fp->card, l) != 0)
        return uz_err_make(MPI_ERR_OTHER, "a process of another job sent a malformed shm card \"%.80s\"", fp->card);
    l->side = order(uz_shm.job_key, uz_shm.world_rank, fp->key, fp->rank) < 0 ? 0 : 1;
    l->wake_len = shm_wake_address_of(l->job, l->rank, &l->wake);
    link_name(l, fp->key);
    int addr = uz_shm.nlocal + uz_shm.nlinks;
    if (l->side == 0)
        err = create_link(l);
    else if ((err = open_link(l)) == -EAGAIN)
        err = 0;
    if (err) {
        if (l->name_linked)
            shm_unlink(l->name);
        return err;
    }
    l->pidfd = (int)syscall(SYS_pidfd_open, l->pid, 0);
    double timeout = uz_config.port_timeout > 0 ? uz_config.port_timeout : 60;
    l->attach_deadline_ns = now_ns() + (long)(timeout * 1e9);
    uz_shm.nlinks++;
    uz_shm.links_busy++;
    if (l->base) {
        link_up(l, addr);
        if (l->side == 1) {
            probe_cma(l);
            atomic_store_explicit(&l->hdr->attached, 1, memory_order_release);
            decide_cma(l);
        }
    }
    /* Side 0: tell side 1 the segment is there; side 1: that it may go. */
    shm_link_wake(addr);
    if (!last_check_ns)
        last_check_ns = now_ns();
    if (fp->addr)
        *fp->addr = addr;
    return MPI_SUCCESS;
}

/* Everything sent reached the other side's ring (MPI_Comm_disconnect has
 * had its barrier); the link stays for communicators that still name the
 * process. */
int uz_shm_close_peer(int peer)
{
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ progress */

static int peer_gone(struct shm_link *l)
{
    if (l->pidfd >= 0) {
        struct pollfd p = { l->pidfd, POLLIN, 0 };
        return poll(&p, 1, 0) == 1;
    }
    return kill(l->pid, 0) != 0 && errno == ESRCH;
}

/* Has it records we have not read? */
static int ring_pending(int peer)
{
    for (int i = 0; i < uz_shm.nrx; i++) {
        struct shm_rx *rx = &uz_shm.rx[i];
        if (rx->peer == peer)
            return atomic_load_explicit(&rx->slots[(uint32_t)rx->consumed & rx->mask].seq, memory_order_acquire) ==
                   (uint32_t)(rx->consumed + 1);
    }
    return 0;
}

/* Both sides add each other within one meeting: a side that has not
 * mapped the segment long after (another /dev/shm or pid namespace that
 * the host key did not tell apart) never will. */
static void check_attach(struct shm_link *l, long t)
{
    int waiting = l->state == LINK_PENDING || l->name_linked;
    if (!waiting || t < l->attach_deadline_ns)
        return;
    if (l->name_linked) {
        shm_unlink(l->name);
        l->name_linked = 0;
    }
    l->state = LINK_DEAD;
    uz_shm.up->peer_failed(l->world, uz_err_make(MPI_ERR_OTHER, "process %d of another job (rank %d there) "
                           "did not share memory %s within UZURA_PORT_TIMEOUT: is it in another /dev/shm or "
                           "pid namespace?", l->world, l->rank, l->name));
}

static void check_liveness(long t)
{
    for (int i = 0; i < uz_shm.nlinks; i++) {
        struct shm_link *l = &uz_shm.links[i];
        int peer = uz_shm.nlocal + i;
        if (l->state != LINK_DEAD)
            check_attach(l, t);
        if (l->state == LINK_DEAD || !peer_gone(l) || ring_pending(peer))
            continue;
        if (l->name_linked) {
            shm_unlink(l->name);
            l->name_linked = 0;
        }
        l->state = LINK_DEAD;
        shm_bulk_forget_peer(peer);
        uz_shm.up->peer_failed(l->world, uz_err_make(MPI_ERR_PROC_ABORTED, "process %d of another job (rank "
                               "%d there, pid %d) on this host is gone", l->world, l->rank, (int)l->pid));
    }
}

/* Links being set up: the other side's segment to open, the name to
 * remove, cross-memory attach to decide.  Recounts links_busy. */
static int set_up_links(void)
{
    int work = 0, busy = 0;
    for (int i = 0; i < uz_shm.nlinks; i++) {
        struct shm_link *l = &uz_shm.links[i];
        int rc = l->state == LINK_PENDING ? open_link(l) : -EAGAIN;
        if (rc > 0) {                   /* not a segment we can use: nothing will reach it */
            l->state = LINK_DEAD;
            uz_shm.up->peer_failed(l->world, rc);
            work++;
        } else if (rc == MPI_SUCCESS) {
            link_up(l, uz_shm.nlocal + i);
            probe_cma(l);
            atomic_store_explicit(&l->hdr->attached, 1, memory_order_release);
            decide_cma(l);
            shm_link_wake(uz_shm.nlocal + i);
            work++;
        }
        if (l->name_linked && atomic_load_explicit(&l->hdr->attached, memory_order_acquire)) {
            shm_unlink(l->name);
            l->name_linked = 0;
            probe_cma(l);
            work++;
        }
        if (l->hdr && !l->cma_known)
            decide_cma(l);
        busy += l->state != LINK_DEAD && (l->state == LINK_PENDING || l->name_linked || !l->cma_known);
    }
    uz_shm.links_busy = busy;
    return work;
}

/* From progress while there are links: their set-up, and every
 * LIVENESS_NS a look for dead peers. */
int shm_links_progress(void)
{
    int work = uz_shm.links_busy ? set_up_links() : 0;
    if ((++tick & 63) == 0) {
        long t = now_ns();
        if (t - last_check_ns >= LIVENESS_NS) {
            last_check_ns = t;
            check_liveness(t);
        }
    }
    return work;
}

void shm_links_finalize(void)
{
    unlink_names();
    for (int i = 0; i < uz_shm.nlinks; i++) {
        struct shm_link *l = &uz_shm.links[i];
        free(uz_shm.tx[uz_shm.nlocal + i].payload_first);
        uz_shm.tx[uz_shm.nlocal + i].payload_first = NULL;
        if (l->base)
            munmap(l->base, l->size);
        if (l->pidfd >= 0)
            close(l->pidfd);
    }
    free(uz_shm.links);
    uz_shm.links = NULL;
    uz_shm.nlinks = uz_shm.links_cap = uz_shm.links_busy = 0;
    links_up = 0;
}
