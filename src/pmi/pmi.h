/*
 * pmi.h — the process-management interface as the rest of the library sees it.
 *
 * This is the RPIM layer of DESIGN.md: how a rank learns who it is and
 * exchanges business cards with its peers.  Behind it, chosen once from the
 * environment: the PMI-1 wire protocol (Uzura's own mpiexec, MPICH's Hydra),
 * the PMI-2 wire protocol (srun --mpi=pmi2), the PMIx library (srun
 * --mpi=pmix, Open MPI's mpirun/PRRTE), or a singleton when no launcher is
 * present.  Nothing above this header knows which protocol is in use.
 *
 * Every function returns 0 on success or a negative errno-style value; on
 * failure uz_pmi_last_error() describes what went wrong in one line.
 */
#ifndef UZ_PMI_H
#define UZ_PMI_H

#include <stddef.h>

struct uz_pmi_info {
    int rank;           /* this process in the job, 0..size-1 */
    int size;           /* processes in the job */
    int appnum;         /* which executable of an MPMD launch, 0 if unknown */
    int universe_size;  /* as reported by the server, or size */
    int singleton;      /* 1 when started without a process manager */
    char kvsname[256];  /* name of the job's key-value space (unique per job) */
    /* Where the ranks are, when the process manager says (PMI-2's
     * PMI_process_mapping, PMIx's job data); -1 when it does not. */
    int local_rank;     /* this process among the job's ranks on its node */
    int local_size;     /* the job's ranks on this node */
    int node_id;        /* this node among the job's nodes, 0.. */
    int num_nodes;      /* nodes the job runs on */
    char protocol[16];  /* "PMI-1", "PMI-2", "PMIx" or "singleton", for reports */
    int spawned;        /* the server says another job spawned this one (PMI-2's
                           spawner-jobid, PMIx's parent); PMI-1: PMI_SPAWNED=1 */
};

/* Connect to the process manager named by the environment (PMI_FD, or
 * PMI_PORT + PMI_ID, or PMIX_*), or become a singleton when none is set.
 * Fails (-EPROTONOSUPPORT) rather than become a singleton when a launcher
 * started several processes but left none we can use (srun --mpi=none,
 * PMIx without libpmix): the message says what is missing. */
int uz_pmi_init(struct uz_pmi_info *info);

/* Publish key=value in the job's key-value space; visible to others after the
 * next uz_pmi_fence().  Keys ≤ 63 bytes, values ≤ 1023 bytes, no spaces or
 * '=' in keys, no newlines in values; since PMI-1 separates fields by spaces,
 * no spaces in values either (-EINVAL). */
int uz_pmi_put(const char *key, const char *value);

/* Collective over every rank of the job: commit puts and wait for all. */
int uz_pmi_fence(void);

/* Read a key published by any rank (after a fence).  Returns -ENOENT when
 * the key does not exist. */
int uz_pmi_get(const char *key, char *value, size_t value_len);

/* Keys of a runtime started again in the same process (epoch 1, 2, ...)
 * are kept apart from earlier ones': uz_pmi_put and uz_pmi_get add
 * ".e<epoch>" to every key after this, nothing for epoch 0.  Every rank
 * must use the same epoch for the same exchange. */
void uz_pmi_key_epoch(unsigned epoch);

/* One program of a spawn (MPI_Comm_spawn_multiple's entries). */
struct uz_pmi_spawn_cmd {
    const char *command;
    char **argv;                        /* its arguments, NULL-terminated, or NULL */
    int maxprocs;
    int ninfo;                          /* info keys passed to the process manager */
    const char *const *info_keys;
    const char *const *info_values;
};

/* Ask the process manager to start one new job running these programs
 * (cmds[0]'s processes first), with preput_key=preput_value in its
 * key-value space before it starts.  0 when it started; otherwise a
 * negative errno value, and failed[i] (ncmds entries, may be NULL) is 1
 * for each program that caused it.  -ENOTSUP when the process manager
 * offers no spawn (the message names it). */
int uz_pmi_spawn(const struct uz_pmi_spawn_cmd *cmds, int ncmds, const char *preput_key,
                 const char *preput_value, int *failed);

/* 1 when this job was started by another job's spawn (uz_pmi_info.spawned). */
int uz_pmi_spawned(void);

/* Tell the process manager that this rank finished cleanly. */
int uz_pmi_finalize(void);

/* Ask the process manager to kill the whole job with this exit code and
 * message.  Never returns: a singleton (or a rank whose connection is lost)
 * prints the message and exits with the code itself. */
int uz_pmi_abort(int exit_code, const char *message);

/* This process's rank as the launcher's environment gives it before
 * uz_pmi_init (PMI_RANK, PMIX_RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK), or
 * -1: so that only rank 0 prints what every rank would say alike. */
int uz_pmi_env_rank(void);

/* One line describing the last failure of a uz_pmi_* call. */
const char *uz_pmi_last_error(void);

#endif /* UZ_PMI_H */
