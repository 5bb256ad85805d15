/*
 * pmi_backend.h — one process-management protocol behind the uz_pmi_* calls.
 *
 * pmi_client.c picks one backend at uz_pmi_init (pmi_launcher.c reads the
 * environment to decide) and calls only through this table afterwards, so
 * that each protocol lives in its own file and knows nothing of the others:
 *
 *   uz_pmi1_backend       PMI-1 wire (Uzura's mpiexec, Hydra)     pmi1_backend.c
 *   uz_pmi2_backend       PMI-2 wire (srun --mpi=pmi2)            pmi2_backend.c
 *   uz_pmix_backend       the PMIx library, through dlopen        pmix_backend.c
 *   uz_singleton_backend  no process manager                      singleton_kvs.c
 *
 * The client checks keys and values and holds the lock around every call;
 * a backend only talks to its server.  Each member returns 0 or a negative
 * errno value with the reason recorded by uz_pmi_fail().
 */
#ifndef UZ_PMI_BACKEND_H
#define UZ_PMI_BACKEND_H

#include "pmi/pmi.h"

#include <stddef.h>

struct uz_pmi_backend {
    const char *name;   /* for messages: "PMI-1", "PMI-2", "PMIx", "singleton" */

    /* Connect and fill info (the client has zeroed it and set the local_*
     * fields to -1); *key_max and *value_max come in as Uzura's limits and
     * may be lowered to the server's.  On failure init releases what it
     * opened itself; no other member is called then. */
    int (*init)(struct uz_pmi_info *info, size_t *key_max, size_t *value_max);
    int (*put)(const char *key, const char *value);
    int (*fence)(void);
    /* -ENOENT when no rank published key; -ENOBUFS when it does not fit. */
    int (*get)(const char *key, char *value, size_t value_len);
    int (*finalize)(void);
    /* Ask the server to end the job; may return (no server, connection
     * lost), and the client then exits itself.  Prints the message with
     * uz_pmi_abort_print unless the server shows it. */
    void (*abort)(int exit_code, const char *message);
    /* Optional (NULL: this process manager offers none): uz_pmi_spawn. */
    int (*spawn)(const struct uz_pmi_spawn_cmd *cmds, int ncmds, const char *preput_key,
                 const char *preput_value, int *failed);
};

extern const struct uz_pmi_backend uz_pmi1_backend;
extern const struct uz_pmi_backend uz_pmi2_backend;
extern const struct uz_pmi_backend uz_pmix_backend;
extern const struct uz_pmi_backend uz_singleton_backend;

/* "uzura: rank R: aborting with code C: message" on stderr, when there is a
 * message.  For backends whose server does not print it. */
void uz_pmi_abort_print(int exit_code, const char *message);

/* Wait (about 3 s) for the process manager to kill us after an abort
 * request, so that it reads the request before it sees the rank exit. */
void uz_pmi_abort_wait(void);

#endif /* UZ_PMI_BACKEND_H */
