/*
 * params.h — every tunable of Uzura, declared once.
 *
 * Each tunable is an environment variable UZURA_<NAME> with a type, a
 * default and one line of help, listed in the table in params.c.  The same
 * table feeds `uzura_info`, `mpiexec --params` and the MPI_T control
 * variables; no tunable is read anywhere else.  Values are parsed once, at
 * MPI_Init, into `uz_config`.
 */
#ifndef UZ_BASE_PARAMS_H
#define UZ_BASE_PARAMS_H

#include <stddef.h>
#include <stdio.h>

enum uz_param_type {
    UZ_PARAM_BOOL,      /* 0/1, yes/no, true/false, on/off */
    UZ_PARAM_INT,
    UZ_PARAM_SIZE,      /* bytes, with optional k/m/g suffix (powers of 1024) */
    UZ_PARAM_DOUBLE,
    UZ_PARAM_STRING,
    UZ_PARAM_ENUM,      /* one of `choices`, stored as its value */
};

enum uz_param_scope {
    UZ_PARAM_TUNABLE,   /* for users to set */
    UZ_PARAM_LAUNCHER,  /* set by mpiexec for the ranks; listed, not tuned */
};

/* When the library reads a tunable, which says when a tool may change it
 * through MPI_T (src/mpit/cvars.c gives each its MPI_T scope from this).
 * Most are read once, at MPI_Init; a few are read on every use, and a
 * change to them takes effect at the next use. */
enum uz_param_when {
    UZ_PARAM_AT_INIT = 0,       /* settable until MPI_Init, read-only while MPI runs */
    UZ_PARAM_EVERY_USE,         /* settable any time; each rank on its own (MPI_T_SCOPE_LOCAL) */
    UZ_PARAM_EVERY_USE_ALL_EQ,  /* settable any time, to the same value on every rank (MPI_T_SCOPE_ALL_EQ):
                                 * the collectives' choices, which every rank must make alike */
};

/* One word an enum tunable accepts.  A table of them ends with a NULL
 * word; values are looked up by word, never by position. */
struct uz_param_choice {
    int value;                  /* stored in uz_config */
    const char *word;           /* what the variable says (any case) */
    const char *help;           /* one line for uzura_info, or NULL */
};

struct uz_param {
    const char *name;           /* without the UZURA_ prefix */
    enum uz_param_type type;
    const char *default_value;
    const char *help;
    const struct uz_param_choice *choices;  /* UZ_PARAM_ENUM */
    size_t offset;              /* into struct uz_config */
    enum uz_param_scope scope;
    enum uz_param_when when;    /* omitted in the table: UZ_PARAM_AT_INIT */
};

/* The parsed values. */
struct uz_config {
    int verbose;
    char *profile;              /* UZURA_PROFILE: directory of the traffic profile (base/profile.c) */
    /* request layer */
    size_t eager_limit;
    size_t net_eager_limit;
    int wait_spin_us;
    int async_progress;         /* UZURA_ASYNC_PROGRESS */
    /* MPI-IO */
    int io_aggregators;         /* UZURA_IO_AGGREGATORS: per host, 0 automatic */
    size_t io_cb_buffer;        /* UZURA_IO_CB_BUFFER */
    size_t io_cb_min_run;       /* UZURA_IO_CB_MIN_RUN */
    int wait_yield_us;
    int wait_sleep_max_us;
    /* network transports */
    char *net;                  /* network transports, in order of preference (pt2pt/net_choice.c) */
    char *net_if;
    int shm;                    /* use shared memory between ranks of a host */
    /* tcp transport (src/transport/tcp/) */
    size_t tcp_record;
    size_t tcp_queue;
    size_t tcp_sndbuf;
    size_t tcp_rcvbuf;
    char *ofi_provider;         /* UZURA_OFI_PROVIDER (src/transport/ofi/) */
    double ofi_peer_timeout;    /* UZURA_OFI_PEER_TIMEOUT */
    /* udp transport (src/transport/udp/) */
    size_t udp_mtu;
    size_t udp_record;
    int udp_window;
    size_t udp_window_bytes;
    size_t udp_sockbuf;
    int udp_rto_us;
    int udp_rto_max_us;
    double udp_peer_timeout;
    int udp_retries;
    int udp_hold_us;
    int udp_ack_every;
    int udp_ack_delay_us;
    double udp_stop_high;
    double udp_stop_low;
    int udp_mac_payload;
    int udp_ether;
    int udp_gso;
    char *udp_faults;
    /* shm transport */
    size_t shm_ring_size;
    size_t shm_ring_hot;
    size_t shm_fragment;
    int shm_cma;                /* 0 auto, 1 on, 2 off */
    int shm_fence;              /* enum uz_shm_fence */
    size_t shm_bulk_chunk;
    int shm_bulk_records;
    int shm_bulk_help;
    int shm_bulk_prefault;
    size_t shm_staged_max;
    /* collectives (params_coll.h lists the algorithms each one names) */
    int coll_barrier;
    int coll_bcast;
    int coll_reduce;
    int coll_allreduce;
    int coll_gather;
    int coll_scatter;
    int coll_allgather;
    int coll_alltoall;
    int coll_alltoallv;
    int coll_reduce_scatter;
    int coll_scan;
    size_t coll_bcast_long;
    size_t coll_reduce_long;
    size_t coll_allreduce_long;
    size_t coll_allgather_long;
    size_t coll_alltoall_short;
    size_t coll_shm_max;
    size_t coll_shm_slot;
    size_t coll_shm_rooted_min;
    size_t coll_pull_min;       /* UZURA_COLL_PULL_MIN */
    int coll_sleep_max_us;      /* UZURA_COLL_SLEEP_MAX_US */
    char *job_id;
    char *job_key;
    int local_rank;
    int local_size;
    int node_id;
    int num_nodes;
    /* dynamic processes (src/core/dpm_*.c) */
    double port_timeout;        /* UZURA_PORT_TIMEOUT, seconds */
    char *name_dir;             /* UZURA_NAME_DIR */
    char *memory_alloc_kinds;   /* UZURA_MEMORY_ALLOC_KINDS */
    /* topology and binding */
    int hwloc;                  /* UZURA_HWLOC: try hwloc before /sys */
    char *bind_to;              /* UZURA_BIND_TO, UZURA_MAP_BY: mpiexec's; listed here */
    char *map_by;
    int local_cpus;             /* UZURA_LOCAL_CPUS: CPUs the host's ranks may use */
    /* tracing (base/trace_stages.c) */
    int trace;                  /* UZURA_TRACE: enum uz_trace */
    int trace_records;          /* UZURA_TRACE_RECORDS */
    char *trace_file;           /* UZURA_TRACE_FILE */
};

enum { UZ_SHM_CMA_AUTO = 0, UZ_SHM_CMA_ON = 1, UZ_SHM_CMA_OFF = 2 };
enum uz_shm_fence { UZ_SHM_FENCE_AUTO = 0, UZ_SHM_FENCE_FULL = 1 };
enum uz_trace { UZ_TRACE_NONE = 0, UZ_TRACE_STAGES = 1 };

extern struct uz_config uz_config;

/* The table and its length. */
extern const struct uz_param uz_params[];
extern const int uz_nparams;

/* Parse every UZURA_* variable into uz_config.  On a bad value, writes a
 * one-line message to `err` and returns -1.  Warns (through `warn`, may be
 * NULL) about UZURA_* variables that name no tunable. */
int uz_params_load(char *err, size_t errlen, FILE *warn);

/* Parse `value` into the tunable's slot of uz_config (MPI_T_cvar_write).
 * On a bad value, writes a one-line message to `err`, leaves the slot as it
 * was and returns -1. */
int uz_param_set(const struct uz_param *p, const char *value, char *err, size_t errlen);

/* The current value of a tunable as text (for uzura_info and MPI_T). */
void uz_param_value_string(const struct uz_param *p, char *buf, size_t len);

/* The words an enum tunable accepts, "a|b|c" ("" for other types). */
void uz_param_choice_words(const struct uz_param *p, char *buf, size_t len);

/* Print the table: name, type, default, current value, help. */
void uz_params_print(FILE *out);

#endif /* UZ_BASE_PARAMS_H */
