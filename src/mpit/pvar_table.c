/*
 * pvar_table.c — the MPI_T performance variables: views of counters the
 * library keeps anyway (pt2pt/stats.h, the matching queues, the waiting
 * loop, each collective's last choice of algorithm) and of each
 * transport's own (transport.h `counters`), plus messages and bytes
 * through each transport.  None is counted for the
 * tools' sake on a communication path; queue lengths are counted by
 * walking the queues when a tool reads them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/lock.h"
#include "coll/coll_chosen.h"
#include "coll/coll_shm.h"
#include "mpit/mpit.h"
#include "pt2pt/match.h"
#include "pt2pt/stats.h"
#include "transport/transport_registry.h"

static struct uz_mpit_pvar *pvars;
static int npvars;

/* ------------------------------------------------------------ readers */

/* Under MPI_THREAD_MULTIPLE the counters change under the library lock. */
static uint64_t read_ulong(const struct uz_mpit_pvar *v, uint32_t context)
{
    (void)context;
    uz_lock();
    unsigned long x = *(const unsigned long *)v->source;
    uz_unlock();
    return x;
}

static uint64_t read_llong(const struct uz_mpit_pvar *v, uint32_t context)
{
    (void)context;
    uz_lock();
    long long x = *(const long long *)v->source;
    uz_unlock();
    return x > 0 ? (uint64_t)x : 0;
}

static uint64_t read_unexpected_now(const struct uz_mpit_pvar *v, uint32_t context)
{
    (void)v, (void)context;
    uz_lock();
    long n = uz_unexpected_queued();
    uz_unlock();
    return (uint64_t)n;
}

static uint64_t read_unexpected_high(const struct uz_mpit_pvar *v, uint32_t context)
{
    (void)v, (void)context;
    uz_lock();
    long n = uz_unexpected_high_water();
    uz_unlock();
    return (uint64_t)n;
}

/* slot: 1 posted receives, 0 unexpected messages; bind says one context or all. */
static uint64_t read_queue(const struct uz_mpit_pvar *v, uint32_t context)
{
    uz_lock();
    long n = uz_match_queued_on(context, v->bind == MPI_T_BIND_NO_OBJECT, v->slot);
    uz_unlock();
    return (uint64_t)n;
}

/* --------------------------------------------------------- the table */

struct fixed_pvar {
    const char *name;
    const char *help;
    int var_class;
    int bind;
    uint64_t (*read)(const struct uz_mpit_pvar *v, uint32_t context);
    const void *source;
    int slot;
};

static const struct fixed_pvar request_layer[] = {
    { "eager_sent", "Messages sent eagerly (the payload travels with the envelope)", MPI_T_PVAR_CLASS_COUNTER,
      MPI_T_BIND_NO_OBJECT, read_ulong, &uz_pt2pt_stats.eager_sent, 0 },
    { "rendezvous_sent", "Messages sent by rendezvous (the receiver fetches or asks for the payload)",
      MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, read_ulong, &uz_pt2pt_stats.rendezvous_sent, 0 },
    { "rendezvous_pulled", "Rendezvous received by one copy straight from the sender's memory",
      MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, read_ulong, &uz_pt2pt_stats.bulk_pulls, 0 },
    { "rendezvous_cts", "Rendezvous received by asking the sender for the data (CTS/DATA)",
      MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, read_ulong, &uz_pt2pt_stats.cts_sent, 0 },
    { "unexpected_messages", "Messages that arrived before their receive was posted", MPI_T_PVAR_CLASS_COUNTER,
      MPI_T_BIND_NO_OBJECT, read_ulong, &uz_pt2pt_stats.unexpected, 0 },
    { "copy_reduced", "Unexpected eager messages finished straight into the receive buffer",
      MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, read_ulong, &uz_pt2pt_stats.copy_reduced, 0 },
    { "records_dropped", "Malformed records from peers, dropped", MPI_T_PVAR_CLASS_COUNTER,
      MPI_T_BIND_NO_OBJECT, read_ulong, &uz_pt2pt_stats.dropped, 0 },
    { "partitioned_messages", "Data messages sent by partitioned sends (a run of ready partitions is one)",
      MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, read_ulong, &uz_pt2pt_stats.part_msgs, 0 },
    { "partitioned_merged", "Partitions sent in the message of a neighbouring partition instead of their own",
      MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, read_ulong, &uz_pt2pt_stats.part_merged, 0 },
    { "unexpected_queue_length", "Messages queued unexpected now", MPI_T_PVAR_CLASS_LEVEL, MPI_T_BIND_NO_OBJECT,
      read_unexpected_now, NULL, 0 },
    { "unexpected_queue_high_water", "Most messages ever queued unexpected at once",
      MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_BIND_NO_OBJECT, read_unexpected_high, NULL, 0 },
    { "posted_queue_length", "Receives posted and not yet matched now", MPI_T_PVAR_CLASS_LEVEL,
      MPI_T_BIND_NO_OBJECT, read_queue, NULL, 1 },
    { "comm_unexpected_queue_length", "Messages queued unexpected on the communicator now",
      MPI_T_PVAR_CLASS_LEVEL, MPI_T_BIND_MPI_COMM, read_queue, NULL, 0 },
    { "comm_posted_queue_length", "Receives posted on the communicator and not yet matched now",
      MPI_T_PVAR_CLASS_LEVEL, MPI_T_BIND_MPI_COMM, read_queue, NULL, 1 },
    { "wait_time", "Seconds spent waiting with nothing to progress (counted once a wait has polled a while)",
      MPI_T_PVAR_CLASS_TIMER, MPI_T_BIND_NO_OBJECT, read_llong, &uz_wait_stats.idle_ns, 0 },
    { "wait_sleeps", "Times a waiting rank slept until woken (futex in shared memory, or poll)",
      MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, read_ulong, &uz_wait_stats.sleeps, 0 },
    { "wait_sleep_timeouts", "Sleeps on the shared-memory doorbell that ran out their timeout, a safety net, without a peer ringing (a lost wake-up, or no peer sent for that long)",
      MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, read_ulong, &uz_wait_stats.sleep_timeouts, 0 },
};

/* The collectives, in the order of coll_chosen.h, by their tunable's name. */
static const char *const coll_tunables[UZ_COLL_OPS] = {
    [UZ_COLL_OP_BARRIER] = "COLL_BARRIER", [UZ_COLL_OP_BCAST] = "COLL_BCAST",
    [UZ_COLL_OP_REDUCE] = "COLL_REDUCE", [UZ_COLL_OP_ALLREDUCE] = "COLL_ALLREDUCE",
    [UZ_COLL_OP_GATHER] = "COLL_GATHER", [UZ_COLL_OP_SCATTER] = "COLL_SCATTER",
    [UZ_COLL_OP_ALLGATHER] = "COLL_ALLGATHER", [UZ_COLL_OP_ALLTOALL] = "COLL_ALLTOALL",
    [UZ_COLL_OP_ALLTOALLV] = "COLL_ALLTOALLV", [UZ_COLL_OP_REDUCE_SCATTER] = "COLL_REDUCE_SCATTER",
    [UZ_COLL_OP_SCAN] = "COLL_SCAN",
};

static uint64_t read_int(const struct uz_mpit_pvar *v, uint32_t context)
{
    (void)context;
    uz_lock();
    int x = *(const int *)v->source;
    uz_unlock();
    return x > 0 ? (uint64_t)x : 0;
}

static int param_index(const char *name)
{
    for (int i = 0; i < uz_nparams; i++)
        if (strcmp(uz_params[i].name, name) == 0)
            return i;
    return -1;
}

static int counts_up(int var_class)
{
    return var_class == MPI_T_PVAR_CLASS_COUNTER || var_class == MPI_T_PVAR_CLASS_TIMER;
}

static struct uz_mpit_pvar *add(const char *name, const char *help, int var_class, int bind, int category)
{
    struct uz_mpit_pvar *v = &pvars[npvars++];
    memset(v, 0, sizeof(*v));
    snprintf(v->name, sizeof(v->name), "%s", name);
    snprintf(v->help, sizeof(v->help), "%s", help);
    v->var_class = var_class;
    v->datatype = var_class == MPI_T_PVAR_CLASS_TIMER ? MPI_DOUBLE
                : var_class == MPI_T_PVAR_CLASS_STATE ? MPI_INT : MPI_UNSIGNED_LONG_LONG;
    v->bind = bind;
    /* Counters and timers count while started and may be reset; levels
     * and marks show the library's own value, always. */
    v->readonly = !counts_up(var_class);
    v->continuous = !counts_up(var_class);
    v->atomic = 1;
    v->category = category;
    v->enum_param = -1;
    return v;
}

static int transport_counters(const struct uz_transport_ops *t)
{
    int n = 0;
    for (const struct uz_transport_counter *c = t->counters; c && c->name; c++)
        n++;
    return n;
}

int uz_mpit_pvars_build(void)
{
    int room = (int)(sizeof(request_layer) / sizeof(request_layer[0]));
    for (int i = 0; i < uz_ntransports; i++)
        room += 4 + transport_counters(uz_transport_table[i]);
    room += UZ_COLL_OPS + 1;
    pvars = calloc((size_t)room, sizeof(*pvars));
    if (!pvars)
        return -1;
    int pt2pt = uz_mpit_category_of("pt2pt", "");
    for (size_t i = 0; i < sizeof(request_layer) / sizeof(request_layer[0]); i++) {
        const struct fixed_pvar *f = &request_layer[i];
        struct uz_mpit_pvar *v = add(f->name, f->help, f->var_class, f->bind, pt2pt);
        v->read = f->read;
        v->source = f->source;
        v->slot = f->slot;
    }
    int coll = uz_mpit_category_of("coll", "");
    for (int op = 0; op < UZ_COLL_OPS; op++) {
        char name[64], help[160];
        int k = 0;
        for (const char *c = coll_tunables[op] + 5; *c && k < 40; c++)
            name[k++] = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        snprintf(name + k, sizeof(name) - (size_t)k, "_algorithm");
        snprintf(help, sizeof(help), "The algorithm the last call chose on this process, as UZURA_%s names it "
                 "(auto: no call yet)", coll_tunables[op]);
        struct uz_mpit_pvar *v = add(name, help, MPI_T_PVAR_CLASS_STATE, MPI_T_BIND_NO_OBJECT, coll);
        v->read = read_int;
        v->source = &uz_coll_chosen[op];
        v->enum_param = param_index(coll_tunables[op]);
    }
    struct uz_mpit_pvar *pulled = add("coll_bytes_pulled", "Bytes collectives read by one copy straight from "
                                      "another rank's buffer (Allgather, Alltoall(v/w), Reduce_scatter)",
                                      MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, coll);
    pulled->read = read_ulong;
    pulled->source = &uz_coll_bytes_pulled;
    for (int i = 0; i < uz_ntransports && i < UZ_TRAFFIC_SLOTS; i++) {
        const struct uz_transport_ops *t = uz_transport_table[i];
        int cat = uz_mpit_category_of(t->name, "A transport");
        struct uz_traffic *traffic = &uz_traffic[i];
        const struct {
            const char *what, *help;
            const unsigned long *value;
        } flows[] = {
            { "messages_sent", "Messages sent through the %s transport", &traffic->msgs_sent },
            { "bytes_sent", "Payload bytes of messages sent through the %s transport", &traffic->bytes_sent },
            { "messages_received", "Messages received through the %s transport", &traffic->msgs_recv },
            { "bytes_received", "Payload bytes of messages received through the %s transport",
              &traffic->bytes_recv },
        };
        for (size_t k = 0; k < sizeof(flows) / sizeof(flows[0]); k++) {
            char name[64], help[160];
            snprintf(name, sizeof(name), "%s_%s", t->name, flows[k].what);
            snprintf(help, sizeof(help), flows[k].help, t->name);
            struct uz_mpit_pvar *v = add(name, help, MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, cat);
            v->read = read_ulong;
            v->source = flows[k].value;
        }
        for (const struct uz_transport_counter *c = t->counters; c && c->name; c++) {
            char name[64];
            snprintf(name, sizeof(name), "%s_%s", t->name, c->name);
            struct uz_mpit_pvar *v = add(name, c->help, MPI_T_PVAR_CLASS_COUNTER, MPI_T_BIND_NO_OBJECT, cat);
            v->read = read_ulong;
            v->source = c->value;
            /* Read while the transport runs, without its cooperation: a
             * reading and the reset after it may straddle an update. */
            v->atomic = 0;
        }
    }
    return 0;
}

int uz_mpit_pvar_count(void)
{
    return npvars;
}

const struct uz_mpit_pvar *uz_mpit_pvar_at(int index)
{
    return index >= 0 && index < npvars ? &pvars[index] : NULL;
}

void uz_mpit_pvar_store(const struct uz_mpit_pvar *v, uint64_t raw, void *buf)
{
    if (v->datatype == MPI_INT) {
        int x = (int)raw;
        memcpy(buf, &x, sizeof(x));
    } else if (v->datatype == MPI_DOUBLE) {
        double seconds = (double)raw * 1e-9;
        memcpy(buf, &seconds, sizeof(seconds));
    } else {
        unsigned long long x = raw;
        memcpy(buf, &x, sizeof(x));
    }
}

/* ------------------------------------------------------------ queries */

int uz_mpi_T_pvar_get_num(int *num_pvar)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!num_pvar)
        return MPI_T_ERR_INVALID;
    *num_pvar = npvars;
    return MPI_SUCCESS;
}

int uz_mpi_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                           MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                           int *readonly, int *continuous, int *atomic)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    const struct uz_mpit_pvar *v = uz_mpit_pvar_at(pvar_index);
    if (!v)
        return MPI_T_ERR_INVALID_INDEX;
    uz_mpit_copy_string(v->name, name, name_len);
    uz_mpit_copy_string(v->help, desc, desc_len);
    if (verbosity)
        *verbosity = v->category == uz_mpit_category_of("pt2pt", "") ? MPI_T_VERBOSITY_USER_BASIC
                                                                      : MPI_T_VERBOSITY_TUNER_DETAIL;
    if (var_class)
        *var_class = v->var_class;
    if (datatype)
        *datatype = v->datatype;
    if (enumtype)
        *enumtype = uz_mpit_enum_handle(uz_mpit_param_enum(v->enum_param));
    if (bind)
        *bind = v->bind;
    if (readonly)
        *readonly = v->readonly;
    if (continuous)
        *continuous = v->continuous;
    if (atomic)
        *atomic = v->atomic;
    return MPI_SUCCESS;
}

int uz_mpi_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    if (!uz_mpit_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!name || !pvar_index)
        return MPI_T_ERR_INVALID;
    for (int i = 0; i < npvars; i++) {
        if (pvars[i].var_class == var_class && strcmp(pvars[i].name, name) == 0) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}
