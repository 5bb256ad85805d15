/*
 * profile_launch.c — `mpiexec --profile[=DIR]`: make the directory, point
 * every rank at it through UZURA_PROFILE, and after the job merge what the
 * ranks wrote into the report (profile_report.c) and print its summary.
 *
 * The ranks write their files themselves at MPI_Finalize, so on several
 * hosts DIR must be one shared directory (the same absolute path on every
 * host, docs/profile.md); mpiexec reads it on its own host.
 */
#include "mpiexec.h"
#include "profile.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Rank files left by an earlier run into the same directory would be
 * merged with this one's. */
static void remove_old_rank_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, "rank-", 5) == 0 && strstr(e->d_name, ".prof"))
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
}

int profile_prepare(struct mpiexec_options *opt, const char *job_id)
{
    char fallback[64];
    const char *dir = opt->profile_dir;
    if (!dir || !*dir) {
        snprintf(fallback, sizeof fallback, "uzura-profile-%s", job_id);
        dir = fallback;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "mpiexec: --profile: cannot make the directory %s: %s\n", dir, strerror(errno));
        return -1;
    }
    opt->profile_path = realpath(dir, NULL);
    if (!opt->profile_path) {
        fprintf(stderr, "mpiexec: --profile: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    remove_old_rank_files(opt->profile_path);
    opt->env[opt->nenv++] = (struct env_assignment){ "UZURA_PROFILE", opt->profile_path };
    return 0;
}

void profile_finish(const struct mpiexec_options *opt)
{
    if (opt->profile_path)
        profile_report(opt->profile_path, opt->nprocs, stderr);
}
