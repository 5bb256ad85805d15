/*
 * udp_faults.c — an unreliable network on demand, for tests: the kernel
 * here has no netem, so the transport itself loses, duplicates and
 * reorders its outgoing datagrams (all of them: data, ACK, LOST, STOP, GO).
 *
 *   UZURA_UDP_FAULTS=loss=0.1,dup=0.05,reorder=0.2,seed=1
 *
 * A reordered datagram is held back and sent after the next one (or when
 * the rank is about to sleep, or a millisecond later).  The generator is
 * seeded with seed and the rank, so a run can be repeated.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "transport/udp/udp.h"

static struct {
    int active;
    double loss, dup, reorder;
    uint64_t rng;
    int held;                           /* a datagram is held back */
    struct udp_dest dest;
    size_t len;
    long since;
    unsigned char buf[UDP_DGRAM_MAX + 64];
} f;

static double uniform(void)
{
    /* xorshift64* */
    f.rng ^= f.rng >> 12;
    f.rng ^= f.rng << 25;
    f.rng ^= f.rng >> 27;
    return (double)((f.rng * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

int udp_faults_init(const char *spec)
{
    memset(&f, 0, sizeof(f));
    if (!spec || !*spec)
        return MPI_SUCCESS;
    unsigned long seed = 1;
    char copy[256];
    snprintf(copy, sizeof(copy), "%s", spec);
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        double v;
        char name[32];
        if (sscanf(tok, "%31[^=]=%lf", name, &v) != 2 || v < 0)
            return uz_err_make(MPI_ERR_ARG, "UZURA_UDP_FAULTS: cannot read \"%s\" "
                               "(expected loss=P,dup=P,reorder=P,seed=N)", tok);
        if (strcmp(name, "loss") == 0 && v <= 1)
            f.loss = v;
        else if (strcmp(name, "dup") == 0 && v <= 1)
            f.dup = v;
        else if (strcmp(name, "reorder") == 0 && v <= 1)
            f.reorder = v;
        else if (strcmp(name, "seed") == 0)
            seed = (unsigned long)v;
        else
            return uz_err_make(MPI_ERR_ARG, "UZURA_UDP_FAULTS: unknown or out-of-range \"%s\"", tok);
    }
    f.rng = (seed + 1) * 0x9E3779B97F4A7C15ULL ^ ((uint64_t)udp.world_rank << 32 | 0x5bd1e995u);
    if (!f.rng)
        f.rng = 1;
    f.active = f.loss > 0 || f.dup > 0 || f.reorder > 0;
    return MPI_SUCCESS;
}

int udp_faults_active(void)
{
    return f.active;
}

static int raw_send(struct udp_out *out, int n)
{
    return udp.conf.raw ? udp_raw_send(out, n) : udp_link_send(out, n);
}

static void send_held(void)
{
    if (!f.held)
        return;
    f.held = 0;
    struct udp_out o = { &f.dest, { { f.buf, f.len } }, 1 };
    raw_send(&o, 1);
}

static void hold(const struct udp_out *o)
{
    f.len = 0;
    for (int i = 0; i < o->niov; i++) {
        memcpy(f.buf + f.len, o->iov[i].iov_base, o->iov[i].iov_len);
        f.len += o->iov[i].iov_len;
    }
    f.dest = *o->dest;
    f.held = 1;
    f.since = udp_now();
}

int udp_faults_send(struct udp_out *out, int n)
{
    for (int i = 0; i < n; i++) {
        if (uniform() < f.loss) {
            udp.stats.fault_lost++;
            continue;
        }
        if (!f.held && uniform() < f.reorder) {
            udp.stats.fault_reordered++;
            hold(&out[i]);
            continue;
        }
        if (raw_send(&out[i], 1) != 1)
            return i;           /* socket full: the caller retries from here */
        if (uniform() < f.dup) {
            udp.stats.fault_dup++;
            raw_send(&out[i], 1);
        }
        send_held();            /* after a later datagram: reordered */
    }
    return n;
}

/* Called from progress (late held datagrams) and before sleeping (all). */
void udp_faults_flush(void)
{
    if (f.held)
        send_held();
}

void udp_faults_tick(long now)
{
    if (f.held && now - f.since > 1000000)
        send_held();
}

int udp_io_send(struct udp_out *out, int n)
{
    if (f.active)
        return udp_faults_send(out, n);
    return raw_send(out, n);
}
