/*
 * job_id.c — the job's random identity, and removing what it left in
 * /dev/shm.
 *
 * UZURA_JOB_ID names the job's shared-memory segments (/dev/shm/uzura-<id>-*)
 * so that mpiexec can remove them however the ranks ended; UZURA_JOB_KEY is a
 * secret the ranks present to each other over the network.  Both come from
 * the kernel's random source, never from time or pid.
 */
#include "mpiexec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
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
