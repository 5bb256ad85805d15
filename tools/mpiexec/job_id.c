/*
 * job_id.c — the job's random identity, and removing what it left in
 * /dev/shm.
 *
 * UZURA_JOB_ID names the job's shared-memory segments (/dev/shm/uzura-<id>-*)
 * so that mpiexec can remove them however the ranks ended; UZURA_JOB_KEY is a
 * secret the ranks present to each other over the network.  Both come from
 * the kernel's random source, never from time or pid.
 *
 * mpiexec removes them when the job ends, but cannot when it is killed
 * outright (SIGKILL from a harness's timeout; its ranks then die too, by
 * PR_SET_PDEATHSIG, with no chance to clean up).  So each mpiexec or proxy
 * running ranks here holds a shared flock on /dev/shm/uzura-<id>-alive for
 * the job's life (the kernel drops it however the process dies), and every
 * mpiexec starting ranks here first removes the files of jobs whose alive
 * file nobody holds.
 */
#include "mpiexec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static int random_bytes(unsigned char *buf, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t got = getrandom(buf + done, len - done, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -errno;
        done += (size_t)got;
    }
    return 0;
}

static void to_hex(const unsigned char *bytes, size_t len, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < len; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * len] = '\0';
}

int job_id_generate(struct job *job)
{
    unsigned char bytes[8 + 16];
    int err = random_bytes(bytes, sizeof bytes);
    if (err) {
        fprintf(stderr, "mpiexec: cannot get random bytes for the job key: %s\n",
                strerror(-err));
        return err;
    }
    to_hex(bytes, 8, job->id);
    to_hex(bytes + 8, 16, job->key);
    snprintf(job->kvsname, sizeof job->kvsname, "uzura_%s", job->id);
    return 0;
}

void shm_cleanup(const struct job *job)
{
    char prefix[64];
    int len = snprintf(prefix, sizeof prefix, "uzura-%s-", job->id);
    DIR *dir = opendir("/dev/shm");
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir)))
        if (strncmp(e->d_name, prefix, (size_t)len) == 0)
            unlinkat(dirfd(dir), e->d_name, 0);
    closedir(dir);
}

/* The name of a job's alive file, for the job id `id`. */
static void alive_name(char *buf, size_t len, const char *id, const char *suffix)
{
    snprintf(buf, len, "/dev/shm/uzura-%s-alive%s", id, suffix);
}

/* 16 hex digits, then "-alive" and nothing more. */
static int alive_id_of(const char *name, char *id)
{
    const char *prefix = "uzura-";
    size_t plen = strlen(prefix);
    if (strncmp(name, prefix, plen) != 0 || strlen(name) != plen + 16 + strlen("-alive") ||
        strcmp(name + plen + 16, "-alive") != 0)
        return 0;
    for (int i = 0; i < 16; i++) {
        char c = name[plen + (size_t)i];
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
            return 0;
        id[i] = c;
    }
    id[16] = '\0';
    return 1;
}

/* One try of job_alive_hold(): 0, or -1 (retry: a process of the same
 * job renamed its file first). */
static int alive_hold_once(struct job *job)
{
    char tmp[96], name[96];
    alive_name(tmp, sizeof tmp, job->id, ".new");
    alive_name(name, sizeof name, job->id, "");
    /* Another process of the job on this host (the front end, when the
     * "hosts" are namespaces of one machine) may hold it already: join
     * its lock, if the name still means that file once we hold it (a
     * sweeper may have removed it meanwhile). */
    int fd = open(name, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0) {
        struct stat held, named;
        if (flock(fd, LOCK_SH) == 0 && fstat(fd, &held) == 0 && stat(name, &named) == 0 &&
            held.st_ino == named.st_ino && held.st_dev == named.st_dev) {
            job->alive_fd = fd;
            return 0;
        }
        close(fd);
    }
    /* Locked before it has its name, so that a sweeper never sees the
     * name unlocked while we are alive. */
    fd = open(tmp, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -1;
    if (flock(fd, LOCK_SH) != 0 || rename(tmp, name) != 0) {
        unlink(tmp);
        close(fd);
        return -1;
    }
    job->alive_fd = fd;
    return 0;
}

int job_alive_hold(struct job *job)
{
    if (job->alive_fd > 0)
        return 0;
    return alive_hold_once(job) == 0 || alive_hold_once(job) == 0 ? 0 : -1;
}

int shm_sweep_dead_jobs(void)
{
    DIR *dir = opendir("/dev/shm");
    if (!dir)
        return 0;
    int swept = 0;
    struct dirent *e;
    char id[17];
    while ((e = readdir(dir))) {
        if (!alive_id_of(e->d_name, id))
            continue;
        int fd = openat(dirfd(dir), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            /* Nobody holds it: the job's mpiexec and proxies are gone. */
            struct job dead = { 0 };
            snprintf(dead.id, sizeof dead.id, "%s", id);
            shm_cleanup(&dead);
            swept++;
        }
        close(fd);
    }
    closedir(dir);
    return swept;
}
