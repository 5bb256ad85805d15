/*
 * startup_report.c — UZURA_VERBOSE: what MPI_Init chose, one line per
 * decision, on stderr.
 *
 * At UZURA_VERBOSE=1 world rank 0 speaks, at 2 and above every rank, each
 * line "Uzura rank R: <what>: <choice>, because <why>".  The lines say which
 * transport reaches which ranks, the network endpoint and its fallbacks,
 * whether large messages on this host go by cross-memory attach or the
 * pipelined copy (and why), where eager sending stops, which collectives
 * use the shared-memory area, how a waiting rank spends its time, and the
 * thread level.  Each layer words its own choice (uz_pt2pt_describe_*,
 * uz_coll_shm_describe, uz_progress_describe): this file only gathers them,
 * so that the report cannot drift from what the layers do.
 */
#include <stdio.h>
#include <unistd.h>

#include "base/params.h"
#include "base/runtime.h"
#include "coll/coll_shm.h"
#include "core/startup_report.h"
#include "pt2pt/pt2pt.h"

static void say(const char *what, const char *text)
{
    if (what)
        fprintf(stderr, "Uzura rank %d: %s: %s\n", uz_rt.world_rank, what, text);
    else
        fprintf(stderr, "Uzura rank %d: %s\n", uz_rt.world_rank, text);
}

static const char *thread_level_text(int level)
{
    switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE (no lock on the request layer)";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED (no lock on the request layer)";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED (no lock on the request layer)";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE (calls into the request layer take one lock)";
    }
    return "unknown";
}

void uz_startup_report(void)
{
    if (uz_config.verbose <= 0 || (uz_config.verbose == 1 && uz_rt.world_rank != 0))
        return;
    char text[1024];
    int hosts = uz_pt2pt_num_hosts();
    snprintf(text, sizeof(text), "%d %s on %d %s; %d on this host (%s), which has %ld processors",
             uz_rt.world_size, uz_rt.world_size == 1 ? "rank" : "ranks", hosts, hosts == 1 ? "host" : "hosts",
             uz_rt.local_size, uz_rt.processor_name, sysconf(_SC_NPROCESSORS_ONLN));
    say("job", text);
    uz_pt2pt_describe_transports(text, sizeof(text));
    say("transports", text);
    for (int i = 0; uz_pt2pt_describe_network(i, text, sizeof(text)) == 0; i++)
        say(NULL, text);
    if (uz_pt2pt_describe_large_messages(text, sizeof(text)) == 0)
        say("large messages on this host", text);
    uz_pt2pt_describe_eager(text, sizeof(text));
    say("send protocol", text);
    uz_coll_shm_describe(text, sizeof(text));
    say("collectives", text);
    uz_progress_describe(text, sizeof(text));
    say("waiting", text);
    say("thread level", thread_level_text(uz_rt.thread_level));
}
