/*
 * mpiexec.h — what the parts of the launcher share: the parsed command line,
 * the job and its ranks, and the entry points of each file.
 *
 * mpiexec is one single-threaded process around one poll() loop
 * (event_loop.c).  Ranks on this host are started by the local proxy
 * (proxy_local.c); each rank has a PMI-1 channel (pmi_channel.c, served by
 * pmi_server.c against the key-value space in kvs.c) and, with -l, two
 * output streams (output.c).  job.c decides when the job has failed and how
 * it ends.
 *
 * The same program runs in three roles:
 *   - on one host (no -hosts/-hostfile, or hosts that are all this machine):
 *     it forks the ranks itself, as above;
 *   - as the front end of a multi-host job (remote.c, remote_launch.c): it
 *     starts one proxy per host through a remote shell (forks the one of
 *     this machine, local_host.c) and has no ranks of its own; the ranks'
 *     state arrives in frames (frame.c) from the proxies;
 *   - as a proxy (`mpiexec --proxy`, proxy.c): it forks its host's share of
 *     the ranks exactly as on one host and serves their PMI, but reports
 *     every fact (exits, barrier entries, puts, output) to the front end,
 *     which alone judges how the job goes and ends.
 * docs/launch.md describes the roles, the frames and the placement rules.
 */
#ifndef MPIEXEC_H
#define MPIEXEC_H

#include "pmi/wire_format.h"

#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

/* Exit codes of mpiexec itself (ranks' own codes pass through otherwise). */
enum {
    EXIT_LAUNCH_FAILED = 1,     /* could not start, PMI protocol error, no MPI_Finalize */
    EXIT_USAGE = 2,             /* bad command line */
    EXIT_TIMEOUT = 124,         /* --timeout expired (as coreutils timeout) */
    EXIT_EXEC_FAILED = 126,     /* program found but not runnable */
    EXIT_NOT_FOUND = 127,       /* program not found */
};

/* A signal that ends a job asks the ranks to go; SIGKILL follows this many
 * seconds later for those that do not. */
enum { SIGKILL_GRACE_SECONDS = 1 };

/* -------------------------------------------------------------- options.c */

struct env_assignment {
    const char *name;
    const char *value;          /* NULL: -x NAME, pass mpiexec's own value */
};

/* One entry of -hosts or -hostfile (duplicates merged, slots added up). */
struct host_entry {
    char *name;
    int slots;                  /* ranks it takes per round of placement */
    int local;                  /* this machine: its proxy is forked, not launched */
};

/* One program of an MPMD launch ("a : -n 2 b"): its ranks follow the
 * previous program's; its index is their MPI_APPNUM. */
struct app {
    char **argv;                /* NULL-terminated */
    int nprocs;
};

struct mpiexec_options {
    int nprocs;                 /* every program's ranks together */
    int nprocs_given;           /* -n was on the command line */
    char **program_argv;        /* the (first) program and its arguments, NULL-terminated */
    struct app *apps;           /* [napps]: the programs, apps[0].argv == program_argv */
    int napps;
    int universe_size;          /* -usize: MPI_UNIVERSE_SIZE; 0: the host's processors */
    const char *preput;         /* -preput KEY=VALUE: in the KVS before the ranks start */
    int spawn_status_fd;        /* -spawn-status-fd: report to the spawning mpiexec, 0: none */
    struct env_assignment *env; /* -genv, -env, -x in command-line order */
    int nenv;
    int tag_output;             /* -l: prefix lines with "[rank] " */
    double timeout_seconds;     /* 0: none */
    const char *timeout_text;   /* as given, for the message */
    const char *wdir;           /* NULL: mpiexec's own */
    int verbose;                /* trace PMI traffic on stderr */

    /* Several hosts (hosts.c, remote_launch.c). */
    struct host_entry *hosts;   /* NULL: run every rank here, no proxy */
    int nhosts;
    int ppn;                    /* -ppn: ranks per host per round, 0: the slots */
    const char *launcher;       /* command the proxies are started with, split at blanks */
    int launcher_fork;          /* -launcher fork: start the proxies here, no host */
    int genvall;                /* pass all of mpiexec's environment to remote ranks */

    /* Binding (binding.c, docs/binding.md). */
    int bind_to;                /* BIND_DEFAULT, BIND_NONE or a UZ_HWTOPO_* level */
    int map_by;                 /* MAP_DEFAULT, MAP_SLOT or a UZ_HWTOPO_* level */
    int report_bindings;        /* one line per rank on stderr */

    /* Traffic profile (profile_launch.c, docs/profile.md). */
    int profile;                /* --profile[=DIR] */
    const char *profile_dir;    /* DIR as given; NULL: uzura-profile-<job id> */
    char *profile_path;         /* its absolute path, once made */
};

/* Values of bind_to and map_by besides the levels of base/hwtopo.h. */
enum { BIND_DEFAULT = -1, BIND_NONE = -2, MAP_DEFAULT = -1, MAP_SLOT = -3 };

/* The program rank `rank` runs and its MPI_APPNUM. */
char **options_program_of(const struct mpiexec_options *opt, int rank, int *appnum);

/* Parse argv.  Returns -1 when the job should run, otherwise the status to
 * exit with at once (after --help, --version or an error, already printed). */
int options_parse(int argc, char **argv, struct mpiexec_options *opt);
void options_free(struct mpiexec_options *opt);

/* -------------------------------------------------------------- binding.c */

struct job;

/* Each rank's CPUs on this host, planned before the first fork. */
struct binding_plan {
    int level;                  /* what ranks are bound to; BIND_NONE: not bound */
    cpu_set_t allowed;          /* mpiexec's own affinity: the CPUs the job may use */
    int allowed_cpus;           /* CPU_COUNT(&allowed): UZURA_LOCAL_CPUS */
    cpu_set_t *sets;            /* [nranks] when bound */
    int *ordinal;               /* [nranks]: "core 1" */
};

int binding_parse_bind_to(const char *text, int *out);     /* 0, or -1: not a word we know */
int binding_parse_map_by(const char *text, int *out);
const char *binding_level_word(int level);
/* NULL when the job failed (already reported). */
struct binding_plan *binding_plan_make(struct job *job);
void binding_plan_free(struct binding_plan *p);
void binding_report_rank(const struct job *job, const struct binding_plan *p, int index);
int binding_apply(const struct binding_plan *p, int index);

/* ---------------------------------------------------------------- hosts.c */

/* Add the hosts of "-hosts a,b:2,c" / of a host file to opt (0, or an exit
 * status after printing why). */
int hosts_parse_list(const char *text, struct mpiexec_options *opt);
int hosts_parse_file(const char *path, struct mpiexec_options *opt);
/* Mark the entries that name this machine and merge them into one. */
void hosts_merge_local(struct mpiexec_options *opt);

/* Where each rank runs.  Nodes are the hosts that get at least one rank,
 * numbered in host order: a node's number is its ranks' UZURA_NODE_ID. */
struct placement {
    int nnodes;
    const char **node_host;     /* [nnodes] host name */
    int *node_local;            /* [nnodes] the host is this machine */
    int *node_nranks;           /* [nnodes] */
    int *rank_node;             /* [nprocs] */
};

int placement_compute(const struct mpiexec_options *opt, struct placement *p);
void placement_free(struct placement *p);
/* PMI_process_mapping for MPICH's ranks, or NULL if it does not fit a value. */
char *placement_process_mapping(const struct placement *p, int nprocs);

/* local_host.c: is this host name (or address in digits) this machine? */
int host_is_local(const char *name);

/* ---------------------------------------------------------------- frame.c */

/* Frames between a proxy and the front end: a 12-byte header (payload
 * length, type, stream, rank; integers big-endian) and the payload. */
enum frame_type {
    /* proxy -> front end */
    FRAME_STATE = 'S',          /* rank's PMI state: payload "init" or "finalize" */
    FRAME_PUTS = 'P',           /* "key=value\n"...: puts since the last barrier */
    FRAME_BARRIER_IN = 'B',     /* rank entered the PMI barrier */
    FRAME_ABORT = 'A',          /* "code message": rank called abort */
    FRAME_FAIL = 'F',           /* "code message": the proxy found the job broken */
    FRAME_EXIT = 'X',           /* "pid code signal": rank ended */
    FRAME_OUTPUT = 'O',         /* rank's bytes on stream 1 or 2; empty: end of stream */
    FRAME_STDIN_ACK = 'a',      /* "n": n bytes of stdin passed to rank 0; "-1": it closed stdin */
    FRAME_DONE = 'D',           /* every rank of the proxy is gone, output all sent */
    FRAME_SPAWN = 'W',          /* one line of rank's spawn request (mcmd=spawn ... endcmd) */
    FRAME_HANG_STATE = 'H',     /* rank's state page (hang_query.c); empty: it has none */
    /* front end -> proxy */
    FRAME_SETUP = 's',          /* "name=value\0"...: what the proxy is to run */
    FRAME_BARRIER_OUT = 'b',    /* "key=value\n"...: barrier complete, new pairs */
    FRAME_KILL = 'k',           /* "signo": signal the ranks (SIGTERM: then SIGKILL) */
    FRAME_STDIN = 'i',          /* bytes for rank 0's stdin; empty: end of input */
    FRAME_SPAWN_RESULT = 'w',   /* the spawn_result line for rank's PMI channel */
    FRAME_HANG_QUERY = 'h',     /* send each rank's state page (FRAME_HANG_STATE) */
};

enum { FRAME_HEADER = 12, FRAME_PAYLOAD_MAX = 64 << 20 };

/* What a proxy writes before its first frame: the front end skips anything
 * before it (a remote shell's login scripts may print). */
#define FRAME_GREETING "UZURA-PROXY-1\n"

struct frame {
    int type, stream, rank;
    const char *payload;        /* valid until the next frame_link_read */
    size_t len;
};

struct frame_link {
    int in_fd, out_fd;          /* -1 once closed */
    char *in;
    size_t in_pos, in_len, in_cap;
    char *out;
    size_t out_len, out_cap;
    int greeted;                /* FRAME_GREETING seen (or not expected) */
};

void frame_link_init(struct frame_link *l, int in_fd, int out_fd, int greeted);
void frame_link_close_in(struct frame_link *l);
void frame_link_close_out(struct frame_link *l);
void frame_link_free(struct frame_link *l);
void frame_send(struct frame_link *l, int type, int rank, int stream, const void *payload,
                size_t len);
void frame_sendf(struct frame_link *l, int type, int rank, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void frame_link_flush(struct frame_link *l);
int frame_link_read(struct frame_link *l);
int frame_next(struct frame_link *l, struct frame *f);

/* main.c */
void standard_fds_ensure(void);
void descriptor_limit_raise(int nprocs);

/* -------------------------------------------------------------- the job */

enum rank_pmi_state {
    RANK_PMI_NONE,              /* has not said cmd=init (maybe not an MPI program) */
    RANK_PMI_INITIALIZED,
    RANK_PMI_FINALIZED,
    RANK_PMI_ABORTED,
};

/* Server end of one rank's PMI socket. */
struct pmi_channel {
    int fd;                     /* -1 once closed */
    size_t in_len;
    char in[UZ_PMI_LINE_MAX];   /* start of a request not yet complete */
    char *out;                  /* replies the socket did not take yet */
    size_t out_len, out_cap;
    enum rank_pmi_state state;
    int in_barrier;
};

/* One of a rank's stdout/stderr pipes when output is tagged. */
struct output_stream {
    int fd;                     /* read end, -1 once at EOF */
    int dest;                   /* 1 or 2 */
    int mid_line;               /* the last piece written did not end a line */
    size_t len;
    char buf[8192];             /* start of a line not yet complete */
};

struct rank {
    int rank;
    pid_t pid;                  /* 0: never started */
    int exited;                 /* its exit status is known */
    int reaped;
    int exit_code;              /* when exited by exit() */
    int term_signal;            /* when killed by a signal, else 0 */
    struct pmi_channel pmi;
    struct output_stream out[2];
};

struct stdin_forward {
    int to_rank0;               /* pipe to rank 0's stdin, -1 when not used or done */
    size_t len;
    char buf[4096];
};

struct kvs;
struct remote;
struct upstream;
struct hang_query;

struct job {
    const struct mpiexec_options *opt;
    int size;                   /* ranks in the job */
    int nranks;                 /* entries of ranks[]: the ranks this process starts
                                   (a proxy: its host's share); the front end of a
                                   multi-host job keeps every rank's state here */
    struct rank *ranks;
    int node_id, num_nodes;     /* UZURA_NODE_ID of these ranks, UZURA_NUM_NODES */
    const char *host;           /* a proxy: its host, for messages; else NULL */
    int pipe_output;            /* ranks' stdout/stderr are pipes that we read */
    struct remote *remote;      /* the front end of a multi-host job, else NULL */
    struct upstream *up;        /* a proxy: its link to the front end, else NULL */
    pid_t pgid;                 /* process group of all ranks (rank 0's pid) */
    char id[17];                /* UZURA_JOB_ID: 16 hex digits */
    char key[33];               /* UZURA_JOB_KEY: 32 hex digits */
    int alive_fd;               /* our lock on /dev/shm/uzura-<id>-alive (job_id.c), or 0 */
    char kvsname[64];
    struct kvs *kvs;
    int ranks_in_barrier;
    int ranks_running;          /* started and not yet exited */
    struct stdin_forward stdin_fwd;
    struct binding_plan *binding;  /* this host's ranks' CPUs (proxy_local.c), or NULL */

    int ending;                 /* the job is being (or has been) stopped */
    int exit_code;
    double sigkill_at;          /* monotonic time to escalate to SIGKILL, 0: none */
    double timeout_at;          /* monotonic time of --timeout, 0: none */
    double drain_until;         /* after the last rank: give up on output pipes */
    struct hang_query *hang;    /* a hang diagnosis waiting for the proxies' answers */
};

static inline double monotonic_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* job.c */
int job_init(struct job *job, const struct mpiexec_options *opt, const int *rank_numbers,
             int nranks);
void job_fail(struct job *job, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void job_kill_all(struct job *job);
void job_kill_now(struct job *job);
void job_signal_received(struct job *job, int signo);
void job_check_deadlines(struct job *job, double now);
void job_reap(struct job *job);
int job_is_done(struct job *job);
int job_finish(struct job *job);
void job_check_barrier(struct job *job);
void job_barrier_entered(struct job *job);
void job_rank_aborted(struct job *job, struct rank *r, int code, const char *message);
void job_rank_ended(struct job *job, struct rank *r);

/* profile_launch.c: --profile.  Make the directory and add UZURA_PROFILE
 * to the ranks' environment (0, or -1 after saying why); after the job,
 * write the report and print its summary on stderr. */
int profile_prepare(struct mpiexec_options *opt, const char *job_id);
void profile_finish(const struct mpiexec_options *opt);
/* hang_query.c: the hang diagnosis (--timeout, SIGUSR1; docs/launch.md) */
void hang_query_start(struct job *job, int then_kill);
void hang_query_answer(struct job *job, int rank, const char *text, size_t len);
void hang_query_check(struct job *job, double now);
double hang_query_deadline(const struct job *job);
void hang_query_proxy_answer(struct job *job);
void hang_query_end(struct job *job);

/* job_id.c */
int job_id_generate(struct job *job);
void shm_cleanup(const struct job *job);
/* Hold this host's shared lock on the job's alive file until exit. */
int job_alive_hold(struct job *job);
/* Remove /dev/shm files of jobs whose alive file nobody holds any more;
 * returns how many jobs. */
int shm_sweep_dead_jobs(void);

/* environment.c */
char **environment_base(const struct job *job);
char **environment_for_rank(char **base, int rank, int local_rank, int pmi_fd);
char **environment_propagated(const struct mpiexec_options *opt);
const char *environment_lookup(char **env, const char *name);
void environment_free(char **env);
void environment_base_free(char **base);

/* proxy_local.c */
void proxy_local_start(struct job *job, sigset_t *original_mask);

/* remote_launch.c: the front end starts the proxies */
void remote_start(struct job *job, const sigset_t *original_mask);

/* remote.c: the front end's side of the proxies */
struct proxy {
    const char *host;
    int node;
    int local;                  /* on this machine: forked, without the launcher */
    pid_t pid;                  /* the launcher process */
    int reaped;
    int wait_status;
    struct frame_link link;
    int done;                   /* said FRAME_DONE */
};

/* Bytes of mpiexec's stdin on their way to a remote rank 0 at most. */
enum { REMOTE_STDIN_WINDOW = 65536 };

struct remote_stdin {
    int open;                   /* still reading mpiexec's stdin for rank 0 */
    size_t in_flight;           /* sent but not yet acknowledged */
    int node;                   /* proxy of rank 0 */
};

struct remote {
    struct proxy *proxies;      /* [nproxies], index = node id */
    int nproxies;
    int *rank_node;             /* [size] */
    char *epoch_puts;           /* "key=value\n" put since the last barrier */
    size_t epoch_len, epoch_cap;
    int inputs_closed;          /* all proxies done: their stdin closed */
    double launchers_kill_at;   /* ending: SIGKILL to launchers still there */
    double give_up_at;          /* ending: stop waiting for them */
    struct remote_stdin in;
};

void remote_proxy_readable(struct job *job, struct proxy *p);
void remote_reap(struct job *job);
void remote_signal_ranks(struct job *job, int signo);
void remote_barrier_release(struct job *job);
void remote_check_deadlines(struct job *job, double now);
int remote_is_done(struct job *job);
void remote_finish(struct job *job);
void remote_stdin_readable(struct job *job);
void remote_spawn_result(struct job *job, const struct rank *r, const char *line);

/* proxy.c: `mpiexec --proxy` */
struct upstream {
    struct frame_link link;     /* stdin / stdout */
    char *puts;                 /* "key=value\n" not yet sent */
    size_t puts_len, puts_cap;
    int lost;                   /* the front end is gone */
    int done_sent;
    char *stdin_buf;            /* for rank 0, not yet written to its pipe */
    size_t stdin_len, stdin_cap;
    int stdin_eof;
};

int proxy_main(void);
void upstream_readable(struct job *job);
void upstream_rank_state(struct job *job, const struct rank *r);
void upstream_put(struct job *job, const char *key, const char *value);
void upstream_barrier_in(struct job *job, const struct rank *r);
void upstream_abort(struct job *job, const struct rank *r, int code, const char *message);
void upstream_fail(struct job *job, int code, const char *message);
void upstream_rank_exited(struct job *job, const struct rank *r);
void upstream_output(struct job *job, const struct rank *r, int stream, const char *data,
                     size_t len);
void upstream_stdin_writable(struct job *job);
void upstream_spawn_line(struct job *job, const struct rank *r, const char *line);
int upstream_is_done(struct job *job, int ranks_done);

/* pmi_channel.c */
void pmi_channel_init(struct pmi_channel *ch, int fd);
void pmi_channel_readable(struct job *job, struct rank *r);
void pmi_channel_writable(struct job *job, struct rank *r);
void pmi_channel_drain(struct job *job, struct rank *r);
void pmi_channel_close(struct pmi_channel *ch);
void pmi_channel_send(struct job *job, struct rank *r, const char *line);

/* pmi_server.c */
void pmi_server_handle(struct job *job, struct rank *r, char *line, size_t len);

/* spawn.c: MPI_Comm_spawn's mcmd=spawn, run by a second mpiexec (a
 * proxy passes the request's lines to the front end, which runs it) */
int spawn_in_progress(struct job *job, struct rank *r);
void spawn_line(struct job *job, struct rank *r, const char *line);
void spawn_reap(void);
int spawn_all_done(void);
void spawn_signal(int signo);
/* The launchers' reports (spawn_status.c), polled by event_loop.c: the
 * index only lists the descriptors to poll; a ready one is named by its
 * descriptor, as spawn_reap may move launchers in between. */
int spawn_launchers(void);
int spawn_launcher_status_fd(int i);
void spawn_launcher_status_readable(struct job *job, int fd);

/* spawn_status.c: a spawned job's mpiexec reporting to the one that started it */
void spawn_status_open(int fd);
void spawn_status_started(void);
void spawn_status_failed(const char *message);
void spawn_status_ended(int exit_status);      /* only if nothing was reported */

/* kvs.c */
struct kvs *kvs_create(void);
void kvs_destroy(struct kvs *kvs);
int kvs_put(struct kvs *kvs, const char *key, const char *value);
const char *kvs_get(const struct kvs *kvs, const char *key);

/* output.c */
void output_stream_init(struct output_stream *s, int fd, int dest);
void output_stream_readable(struct job *job, struct rank *r, int stream);
void output_stream_feed(struct output_stream *s, int rank, const char *data, size_t len);
void output_stream_finish(struct output_stream *s, int rank);
void output_write_raw(int dest, const char *data, size_t len);

/* stdin_forward.c */
int stdin_forward_wanted(void);
int stdin_in_foreground(void);
int stdin_forward_poll_events(const struct stdin_forward *f, short *stdin_events,
                              short *pipe_events);
void stdin_forward_stdin_ready(struct stdin_forward *f);
void stdin_forward_pipe_ready(struct stdin_forward *f);
void stdin_forward_stop(struct stdin_forward *f);

/* event_loop.c */
int event_loop_run(struct job *job, int signal_fd);
int signals_take_over(sigset_t *original_mask);

#endif /* MPIEXEC_H */
