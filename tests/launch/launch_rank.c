/*
 * launch_rank.c — a rank that misbehaves on request, for testing mpiexec
 * before the MPI library exists.  It speaks PMI through the library's client.
 *
 *   launch_rank exit R CODE      rank R exits with CODE, the others wait in a fence
 *   launch_rank kill R           rank R sends itself SIGKILL, the others wait
 *   launch_rank abort R CODE     rank R calls uz_pmi_abort(CODE, ...), the others wait
 *   launch_rank nofinalize R     rank R exits 0 without finalizing, the others wait
 *   launch_rank early-finalize R rank R finalizes while the others enter a fence
 *   launch_rank garbage R        rank R writes a malformed line on its PMI socket
 *   launch_rank shm R            every rank creates /dev/shm/uzura-<job>-test-<rank>,
 *                                rank 0 prints "job <UZURA_JOB_ID>", then rank R
 *                                dies by SIGKILL
 *   launch_rank stubborn R CODE  every rank ignores SIGTERM, rank R exits with CODE
 *   launch_rank hang PIDFILE     every rank creates its /dev/shm file, appends
 *                                "<pid> <UZURA_JOB_ID> <parent pid>" to PIDFILE
 *                                and sleeps (the parent is mpiexec or its proxy)
 *   launch_rank env NAME...      rank 0 prints NAME=value for each NAME
 *   launch_rank get KEY...       rank 0 prints KEY=value from PMI for each KEY
 *   launch_rank pwd              rank 0 prints its working directory
 *   launch_rank stdin            rank 0 echoes its stdin; others check theirs is empty
 *   launch_rank ok               init, fence, finalize, exit 0
 */
#include "pmi/pmi.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct uz_pmi_info info;

static void die(const char *what)
{
    fprintf(stderr, "launch_rank %d: %s: %s\n", info.rank, what, uz_pmi_last_error());
    exit(99);
}

static void start(void)
{
    if (uz_pmi_init(&info))
        die("init");
}

static void fence(void)
{
    if (uz_pmi_fence())
        die("fence");
}

static void finish(void)
{
    fence();
    if (uz_pmi_finalize())
        die("finalize");
    exit(0);
}

static int is_me(char **argv, int i)
{
    return argv[i] && atoi(argv[i]) == info.rank;
}

/* The others block in a fence the chosen rank never reaches: they only end
 * if mpiexec ends them. */
static void others_wait(void)
{
    fence();
    fprintf(stderr, "launch_rank %d: fence completed unexpectedly\n", info.rank);
    exit(98);
}

static void make_shm_file(void)
{
    char path[256];
    snprintf(path, sizeof path, "/dev/shm/uzura-%s-test-%d", getenv("UZURA_JOB_ID"), info.rank);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    if (fd < 0)
        die("create shm file");
    close(fd);
}

static void append_pid(const char *file)
{
    char line[96];
    int fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0600);
    int len = snprintf(line, sizeof line, "%d %s %d\n", (int)getpid(), getenv("UZURA_JOB_ID"),
                       (int)getppid());
    if (fd < 0 || write(fd, line, (size_t)len) != len)
        die("write pid file");
    close(fd);
}

static void echo_stdin(void)
{
    char buf[4096];
    ssize_t got;
    while ((got = read(0, buf, sizeof buf)) > 0)
        fwrite(buf, 1, (size_t)got, stdout);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    start();
    if (strcmp(mode, "exit") == 0) {
        if (is_me(argv, 2))
            exit(atoi(argv[3]));
        others_wait();
    } else if (strcmp(mode, "kill") == 0) {
        if (is_me(argv, 2))
            raise(SIGKILL);
        others_wait();
    } else if (strcmp(mode, "abort") == 0) {
        if (is_me(argv, 2))
            uz_pmi_abort(atoi(argv[3]), "launch_rank gives up");
        others_wait();
    } else if (strcmp(mode, "nofinalize") == 0) {
        if (is_me(argv, 2))
            exit(0);
        others_wait();
    } else if (strcmp(mode, "early-finalize") == 0) {
        if (is_me(argv, 2)) {
            uz_pmi_finalize();
            exit(0);
        }
        others_wait();
    } else if (strcmp(mode, "garbage") == 0) {
        if (is_me(argv, 2)) {
            int fd = atoi(getenv("PMI_FD"));
            if (write(fd, "cmd=put key\n", 12) != 12)
                die("write garbage");
        }
        others_wait();
    } else if (strcmp(mode, "stubborn") == 0) {
        signal(SIGTERM, SIG_IGN);
        fence();
        if (is_me(argv, 2))
            exit(atoi(argv[3]));
        others_wait();
    } else if (strcmp(mode, "shm") == 0) {
        make_shm_file();
        if (info.rank == 0) {
            printf("job %s\n", getenv("UZURA_JOB_ID"));
            fflush(stdout);
        }
        fence();
        if (is_me(argv, 2))
            raise(SIGKILL);
        others_wait();
    } else if (strcmp(mode, "hang") == 0) {
        make_shm_file();
        append_pid(argv[2]);
        for (;;)
            pause();
    } else if (strcmp(mode, "env") == 0) {
        for (int i = 2; info.rank == 0 && i < argc; i++)
            printf("%s=%s\n", argv[i], getenv(argv[i]) ? getenv(argv[i]) : "(unset)");
    } else if (strcmp(mode, "get") == 0) {
        char value[1024];
        for (int i = 2; info.rank == 0 && i < argc; i++)
            printf("%s=%s\n", argv[i], uz_pmi_get(argv[i], value, sizeof value) == 0 ? value
                                                                                   : "(none)");
    } else if (strcmp(mode, "pwd") == 0) {
        char dir[4096];
        if (info.rank == 0 && getcwd(dir, sizeof dir))
            printf("%s\n", dir);
    } else if (strcmp(mode, "stdin") == 0) {
        if (info.rank == 0) {
            echo_stdin();
        } else {
            char c;
            if (read(0, &c, 1) != 0)
                die("stdin of a rank other than 0 is not empty");
        }
    }
    fflush(stdout);
    finish();
}
