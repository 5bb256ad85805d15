/*
 * stdin_forward.c — rank 0's stdin when mpiexec's stdin is a terminal.
 *
 * The ranks run in a process group of their own, which is not the
 * terminal's foreground group: a rank reading the terminal itself would be
 * stopped by SIGTTIN.  So mpiexec reads the terminal (only while it is in
 * the foreground itself) and copies to a pipe that is rank 0's stdin.  Any
 * other stdin (file, pipe, /dev/null) is simply inherited by rank 0.
 */
#include "mpiexec.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

int stdin_forward_wanted(void)
{
    return isatty(0);
}

/* May we read stdin now?  Not a terminal that another job has. */
int stdin_in_foreground(void)
{
    return !isatty(0) || tcgetpgrp(0) == getpgrp();
}

void stdin_forward_stop(struct stdin_forward *f)
{
    if (f->to_rank0 >= 0)
        close(f->to_rank0);
    f->to_rank0 = -1;
    f->len = 0;
}

int stdin_forward_poll_events(const struct stdin_forward *f, short *stdin_events,
                              short *pipe_events)
{
    if (f->to_rank0 < 0)
        return 0;
    *stdin_events = f->len == 0 && stdin_in_foreground() ? POLLIN : 0;
    /* Even with nothing to write, polling the pipe reports POLLERR once
     * rank 0 has gone. */
    *pipe_events = f->len ? POLLOUT : 0;
    return 1;
}

void stdin_forward_pipe_ready(struct stdin_forward *f)
{
    while (f->len > 0) {
        ssize_t put = write(f->to_rank0, f->buf, f->len);
        if (put < 0 && errno == EINTR)
            continue;
        if (put < 0 && errno == EAGAIN)
            return;
        if (put < 0) {
            stdin_forward_stop(f);  /* rank 0 closed its stdin or exited */
            return;
        }
        f->len -= (size_t)put;
        memmove(f->buf, f->buf + put, f->len);
    }
}

void stdin_forward_stdin_ready(struct stdin_forward *f)
{
    ssize_t got = read(0, f->buf, sizeof f->buf);
    if (got < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (got <= 0) {
        stdin_forward_stop(f);      /* end of input: rank 0 sees it too */
        return;
    }
    f->len = (size_t)got;
    stdin_forward_pipe_ready(f);
}
