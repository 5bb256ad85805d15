/*
 * info_env.c — how this process was started, as MPI_INFO_ENV and
 * MPI_Info_create_env give it (MPI-4.1 chapter 11).
 *
 * MPI_Info_create_env may be called before MPI_Init, so every key is
 * found from what a process knows without the process manager: the
 * command line (the arguments given, else /proc/self/cmdline), the
 * launcher's environment for the number of processes (PMI_SIZE, which
 * Uzura's mpiexec, Hydra and Slurm's PMI-2 set; SLURM_NTASKS), the host,
 * the machine and the working directory.  After MPI_Init the same keys
 * are given, with the job's size and thread level as MPI_Init settled
 * them.  "file" is never given: no launcher Uzura runs under passes one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/runtime.h"
#include "core/info.h"

/* An info value holds at most MPI_MAX_INFO_VAL - 1 characters. */
enum { VALUE_MAX = MPI_MAX_INFO_VAL };

/* The words of argv[first..argc-1] joined by blanks, cut to VALUE_MAX. */
static void join_args(char *out, int argc, char **argv, int first)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = first; i < argc && argv[i] && used + 1 < VALUE_MAX; i++)
        used += (size_t)snprintf(out + used, VALUE_MAX - used, "%s%s", i > first ? " " : "",
                                 argv[i]);
}

/* The process's own command line, NUL-separated words, when the caller
 * gave none (Fortran always, C when it passes 0 and NULL). */
static int read_cmdline(char *buf, size_t cap, char **words, int max_words)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (!f)
        return 0;
    size_t len = fread(buf, 1, cap - 1, f);
    fclose(f);
    buf[len] = '\0';
    int n = 0;
    for (size_t at = 0; at < len && n < max_words; at += strlen(buf + at) + 1)
        words[n++] = buf + at;
    return n;
}

static int set_command(uz_info *info, int argc, char **argv)
{
    char value[VALUE_MAX];
    if (argc < 1 || !argv || !argv[0])
        return 0;
    snprintf(value, sizeof(value), "%s", argv[0]);
    if (uz_info_set(info, "command", value) != 0)
        return -1;
    if (argc < 2)
        return 0;
    join_args(value, argc, argv, 1);
    return uz_info_set(info, "argv", value);
}

static int set_command_line(uz_info *info, int argc, char **argv)
{
    if (argc > 0 && argv)
        return set_command(info, argc, argv);
    enum { CMDLINE_MAX = 64 * 1024, WORDS_MAX = 4096 };
    char *buf = malloc(CMDLINE_MAX);
    char **words = malloc(WORDS_MAX * sizeof(*words));
    int rc = buf && words ? 0 : -1;
    if (rc == 0)
        rc = set_command(info, read_cmdline(buf, CMDLINE_MAX, words, WORDS_MAX), words);
    free(buf);
    free(words);
    return rc;
}

/* Before MPI_Init, the launcher's word; a process nobody launched is a
 * singleton. */
static int launcher_size(void)
{
    const char *names[] = { "PMI_SIZE", "SLURM_NTASKS" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        char *end;
        long n = v ? strtol(v, &end, 10) : 0;
        if (v && *v && !*end && n > 0 && n < 1L << 30)
            return (int)n;
    }
    return 1;
}

static const char *thread_level_name(int level)
{
    switch (level) {
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    default: return "MPI_THREAD_SINGLE";
    }
}

static int fill(uz_info *info, int argc, char **argv, int size, int thread_level)
{
    char value[VALUE_MAX];
    struct utsname uts;
    if (set_command_line(info, argc, argv) != 0)
        return -1;
    snprintf(value, sizeof(value), "%d", size);
    if (uz_info_set(info, "maxprocs", value) != 0 || uz_info_set(info, "soft", value) != 0)
        return -1;
    if (gethostname(value, sizeof(value) - 1) != 0)
        strcpy(value, "localhost");
    value[sizeof(value) - 1] = '\0';
    if (uz_info_set(info, "host", value) != 0)
        return -1;
    if (uname(&uts) == 0 && uz_info_set(info, "arch", uts.machine) != 0)
        return -1;
    if (getcwd(value, sizeof(value)) && uz_info_set(info, "wdir", value) != 0)
        return -1;
    return uz_info_set(info, "thread_level", thread_level_name(thread_level));
}

/* Before MPI_Init the thread level is the one MPI_Init would ask for. */
int uz_info_env_fill(uz_info *info, int argc, char **argv)
{
    if (atomic_load(&uz_rt.state) == UZ_STATE_NOT_INITIALIZED)
        return fill(info, argc, argv, launcher_size(), MPI_THREAD_SINGLE);
    return fill(info, argc, argv, uz_rt.world_size, uz_rt.thread_level);
}

/* Called by MPI_Init once the job's size and thread level are settled. */
void uz_info_env_init(void)
{
    uz_info_clear(&uz_info_env);
    (void)fill(&uz_info_env, uz_rt.argc, uz_rt.argv, uz_rt.world_size, uz_rt.thread_level);
}
