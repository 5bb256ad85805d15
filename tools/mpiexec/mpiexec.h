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
 * Multi-host runs will add a remote proxy per host that starts its ranks the
 * same way and relays their PMI lines; the server side only sees channels.
 */
#ifndef MPIEXEC_H
#define MPIEXEC_H

#include "pmi/wire_format.h"

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

/* -------------------------------------------------------------- options.c */

struct env_assignment {
    const char *name;
    const char *value;          /* NULL: -x NAME, pass mpiexec's own value */
};

struct mpiexec_options {
    int nprocs;
    char **program_argv;        /* the program and its arguments, NULL-terminated */
    struct env_assignment *env; /* -genv, -env, -x in command-line order */
    int nenv;
    int tag_output;             /* -l: prefix lines with "[rank] " */
    double timeout_seconds;     /* 0: none */
    const char *timeout_text;   /* as given, for the message */
    const char *wdir;           /* NULL: mpiexec's own */
    int verbose;                /* trace PMI traffic on stderr */
};

/* Parse argv.  Returns -1 when the job should run, otherwise the status to
 * exit with at once (after --help, --version or an error, already printed). */
int options_parse(int argc, char **argv, struct mpiexec_options *opt);
void options_free(struct mpiexec_options *opt);

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

struct job {
    const struct mpiexec_options *opt;
    int size;
    struct rank *ranks;
    pid_t pgid;                 /* process group of all ranks (rank 0's pid) */
    char id[17];                /* UZURA_JOB_ID: 16 hex digits */
    char key[33];               /* UZURA_JOB_KEY: 32 hex digits */
    char kvsname[64];
    struct kvs *kvs;
    int ranks_in_barrier;
    int ranks_running;          /* started and not yet exited */
    struct stdin_forward stdin_fwd;

    int ending;                 /* the job is being (or has been) stopped */
    int exit_code;
    double sigkill_at;          /* monotonic time to escalate to SIGKILL, 0: none */
    double timeout_at;          /* monotonic time of --timeout, 0: none */
    double drain_until;         /* after the last rank: give up on output pipes */
};

static inline double monotonic_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* job.c */
int job_init(struct job *job, const struct mpiexec_options *opt);
void job_fail(struct job *job, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void job_kill_all(struct job *job);
void job_signal_received(struct job *job, int signo);
void job_check_deadlines(struct job *job, double now);
void job_reap(struct job *job);
int job_is_done(const struct job *job);
int job_finish(struct job *job);
void job_check_barrier(struct job *job);
void job_rank_aborted(struct job *job, struct rank *r, int code, const char *message);

/* job_id.c */
int job_id_generate(struct job *job);
void shm_cleanup(const struct job *job);

/* environment.c */
char **environment_base(const struct job *job);
char **environment_for_rank(char **base, int rank, int pmi_fd);
void environment_free(char **env);
void environment_base_free(char **base);

/* proxy_local.c */
void proxy_local_start(struct job *job, sigset_t *original_mask);

/* pmi_channel.c */
void pmi_channel_init(struct pmi_channel *ch, int fd);
void pmi_channel_readable(struct job *job, struct rank *r);
void pmi_channel_writable(struct job *job, struct rank *r);
void pmi_channel_drain(struct job *job, struct rank *r);
void pmi_channel_close(struct pmi_channel *ch);
void pmi_channel_send(struct job *job, struct rank *r, const char *line);

/* pmi_server.c */
void pmi_server_handle(struct job *job, struct rank *r, char *line, size_t len);

/* kvs.c */
struct kvs *kvs_create(void);
void kvs_destroy(struct kvs *kvs);
int kvs_put(struct kvs *kvs, const char *key, const char *value);
const char *kvs_get(const struct kvs *kvs, const char *key);

/* output.c */
void output_stream_init(struct output_stream *s, int fd, int dest);
void output_stream_readable(struct output_stream *s, int rank);
void output_stream_finish(struct output_stream *s, int rank);

/* stdin_forward.c */
int stdin_forward_wanted(void);
int stdin_forward_poll_events(const struct stdin_forward *f, short *stdin_events,
                              short *pipe_events);
void stdin_forward_stdin_ready(struct stdin_forward *f);
void stdin_forward_pipe_ready(struct stdin_forward *f);
void stdin_forward_stop(struct stdin_forward *f);

/* event_loop.c */
int event_loop_run(struct job *job, int signal_fd);
int signals_take_over(sigset_t *original_mask);

#endif /* MPIEXEC_H */
