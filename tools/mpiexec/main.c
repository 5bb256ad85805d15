/*
 * main.c — mpiexec (also installed as mpirun): start N ranks of a program on
 * this host, or on several hosts through one proxy each, serve them PMI-1,
 * and exit with the job's status.  `mpiexec --proxy` is the proxy (proxy.c).
 *
 * The launcher is a standalone program; it shares only the PMI-1 line
 * grammar (src/pmi/wire_format.c) with the library.  How it works, its
 * options and exit codes: docs/launch.md.
 */
#include "mpiexec.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* If mpiexec was started with stdin, stdout or stderr closed, the first
 * socket or pipe it makes would take that number and a rank's dup2 onto
 * 0-2 would then clobber it. */
void standard_fds_ensure(void)
{
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0)
            open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
}

/* Each rank takes one descriptor of mpiexec's (three with -l): do not let
 * the usual soft limit of 1024 cap the job size when the hard limit allows
 * more.  Only as far as needed, since the ranks inherit the limit and some
 * programs loop over every possible descriptor. */
void descriptor_limit_raise(int nprocs)
{
    struct rlimit lim;
    rlim_t need = 3 * (rlim_t)nprocs + 64;
    if (getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < need) {
        lim.rlim_cur = need < lim.rlim_max ? need : lim.rlim_max;
        setrlimit(RLIMIT_NOFILE, &lim);
    }
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--proxy") == 0) {
        standard_fds_ensure();
        return proxy_main();
    }
    struct mpiexec_options opt;
    int status = options_parse(argc, argv, &opt);
    if (status >= 0) {
        options_free(&opt);
        return status;
    }
    standard_fds_ensure();
    descriptor_limit_raise(opt.hosts ? 2 * opt.nhosts : opt.nprocs);
    sigset_t original_mask;
    int signal_fd = signals_take_over(&original_mask);
    if (signal_fd < 0) {
        perror("mpiexec: signalfd");
        return EXIT_LAUNCH_FAILED;
    }
    spawn_status_open(opt.spawn_status_fd);
    struct job job;
    if (job_init(&job, &opt, NULL, opt.nprocs) < 0) {
        spawn_status_failed("cannot set up the job");
        return EXIT_LAUNCH_FAILED;
    }
    if (opt.profile && profile_prepare(&opt, job.id) < 0) {
        spawn_status_failed("cannot prepare the profile directory");
        return EXIT_LAUNCH_FAILED;
    }
    if (opt.hosts) {
        remote_start(&job, &original_mask);     /* started: when every proxy greets (remote.c) */
    } else {
        proxy_local_start(&job, &original_mask);
        if (!job.ending)
            spawn_status_started();
    }
    event_loop_run(&job, signal_fd);
    status = job_finish(&job);
    spawn_status_ended(status);
    profile_finish(&opt);
    options_free(&opt);
    return status;
}
