/*
 * spawn_status.c — the spawned job's mpiexec telling the mpiexec that
 * started it (spawn.c) whether the job got going: "ok" once every rank is
 * started (one host) or every proxy has answered (several hosts), or
 * "fail <message>" when it fails first.
 *
 * Why: MPI_Comm_spawn's answer waits for this.  Without it a spawn onto a
 * host that cannot be reached (ssh refused, mpiexec missing there) would
 * look like success, and the parents would wait UZURA_PORT_TIMEOUT for
 * children that never come, and then not know why.  The descriptor is
 * given by the hidden option -spawn-status-fd N; anything after the first
 * report is the job's own business.  An mpiexec that ends without having
 * reported says so itself (spawn_status_ended), so the spawning rank gets a
 * reason with an exit status rather than just the pipe's end.
 */
#include "mpiexec.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int status_fd = -1;

void spawn_status_open(int fd)
{
    /* Ranks and proxies must not hold it open: its end is a report too. */
    if (fd > 2 && fcntl(fd, F_SETFD, FD_CLOEXEC) == 0)
        status_fd = fd;
}

static void report(const char *text)
{
    if (status_fd < 0)
        return;
    size_t len = strlen(text), done = 0;
    while (done < len) {
        ssize_t put = write(status_fd, text + done, len - done);
        if (put <= 0)
            break;
        done += (size_t)put;
    }
    close(status_fd);
    status_fd = -1;
}

void spawn_status_started(void)
{
    report("ok\n");
}

void spawn_status_failed(const char *message)
{
    char line[UZ_PMI_LINE_MAX];
    snprintf(line, sizeof line, "fail %s\n", message);
    report(line);
}

void spawn_status_ended(int exit_status)
{
    char line[128];
    snprintf(line, sizeof line, "mpiexec of the spawned job ended (exit status %d) "
             "before all its processes were started", exit_status);
    spawn_status_failed(line);
}
