/*
 * udp_stranger.c — datagrams from someone without the job key, sent to a
 * rank's port while the job runs, must change nothing: every message of
 * the job still arrives intact and in order, and the rank counts the
 * intruders (UZURA_VERBOSE=2 prints "rejected N; malformed M").
 *
 * Rank 1 plays the stranger from a socket of its own: it finds rank 0's
 * UDP port through /proc (rank 0's pid → its socket inodes → /proc/net/udp)
 * and, at rank 0's address, sends garbage of every length, then headers that look right (magic,
 * version, plausible ranks and sequence numbers, even a whole record) but
 * carry a tag made with a wrong key.  Prints how many it sent.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { MSGS = 200, LEN = 3000, LOOK_RIGHT = 200 };   /* LOOK_RIGHT: forged datagrams with a well-formed header */

/* The local UDP ports of process `pid`. */
static int ports_of(int pid, int *ports, int max)
{
    char path[64], link[128], line[512];
    unsigned long inodes[64];
    int ni = 0, n = 0;
    snprintf(path, sizeof(path), "/proc/%d/fd", pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) && ni < 64;) {
        char fd[600];
        snprintf(fd, sizeof(fd), "%s/%s", path, e->d_name);
        ssize_t k = readlink(fd, link, sizeof(link) - 1);
        if (k <= 0)
            continue;
        link[k] = '\0';
        if (sscanf(link, "socket:[%lu]", &inodes[ni]) == 1)
            ni++;
    }
    closedir(d);
    snprintf(path, sizeof(path), "/proc/%d/net/udp", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f) && n < max) {
        unsigned addr, port;
        unsigned long inode;
        if (sscanf(line, " %*d: %x:%x %*x:%*x %*x %*x:%*x %*x:%*x %*x %*u %*u %lu", &addr, &port, &inode) != 3)
            continue;
        for (int i = 0; i < ni; i++)
            if (inodes[i] == inode)
                ports[n++] = (int)port;
    }
    fclose(f);
    return n;
}

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* This host's first IPv4 address that is not loopback (or loopback). */
static void my_address(char *out, size_t len)
{
    struct ifaddrs *list;
    snprintf(out, len, "127.0.0.1");
    if (getifaddrs(&list) != 0)
        return;
    for (struct ifaddrs *a = list; a; a = a->ifa_next)
        if (a->ifa_addr && a->ifa_addr->sa_family == AF_INET && (a->ifa_flags & IFF_UP) &&
            !(a->ifa_flags & IFF_LOOPBACK)) {
            inet_ntop(AF_INET, &((struct sockaddr_in *)a->ifa_addr)->sin_addr, out, (socklen_t)len);
            break;
        }
    freeifaddrs(list);
}

static int intrude(const char *addr, int port)
{
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    inet_pton(AF_INET, addr, &to.sin_addr);
    static unsigned char buf[65000];
    static const size_t lens[] = { 0, 1, 7, 47, 48, 49, 100, 1400, 1472, 9000, 65000 };
    int count = 0;
    /* Garbage of every length. */
    for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
        for (int rep = 0; rep < 5; rep++) {
            for (size_t b = 0; b < lens[i]; b++)
                buf[b] = (unsigned char)next();
            count += sendto(s, buf, lens[i], 0, (struct sockaddr *)&to, sizeof(to)) >= 0;
        }
    /* Headers that look right, with a tag made under another key:
     * magic 0xB5, version 2, DATA|FIRST|LAST, src 1, dst 0, seq 0..199;
     * every other one at the datagram's end (UDP_X_TRAILER), behind a
     * payload that does not begin like a header. */
    for (uint32_t seq = 0; seq < LOOK_RIGHT; seq++) {
        unsigned char h[48];
        memset(h, 0, sizeof(h));
        h[0] = 0xB5;
        h[1] = 2;
        h[2] = 0x07;
        h[3] = seq % 2 ? 0x02 : 0;
        uint32_t f[] = { 1, 0, seq, seq, 0, 0, 52 };
        memcpy(h + 4, f, sizeof(f));
        uint16_t hl = 0, len = 52;
        memcpy(h + 32, &hl, 2);
        memcpy(h + 34, &len, 2);
        uint64_t mac = next();
        memcpy(h + 40, &mac, 8);
        unsigned char *hp = seq % 2 ? buf + 52 : buf, *payload = seq % 2 ? buf : buf + 48;
        for (int b = 0; b < 52; b++)
            payload[b] = (unsigned char)next();
        if (seq % 2)
            payload[0] = 0;
        memcpy(hp, h, sizeof(h));
        count += sendto(s, buf, 100, 0, (struct sockaddr *)&to, sizeof(to)) >= 0;
    }
    close(s);
    return count;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int pid = (int)getpid(), errors = 0;
    char addr[64];
    my_address(addr, sizeof(addr));
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(addr, sizeof(addr), MPI_CHAR, 0, MPI_COMM_WORLD);
    unsigned char *buf = malloc(LEN);
    for (int i = 0; i < MSGS; i++) {
        if (rank == 1 && (i == 10 || i == 100)) {
            int ports[8], n = ports_of(pid, ports, 8);
            if (n == 0) {
                fprintf(stderr, "udp_stranger: cannot find rank 0's UDP port\n");
                errors++;
            }
            for (int k = 0; k < n; k++)
                printf("udp_stranger: sent %d forged datagrams to rank 0 at %s:%d, %d well-formed\n",
                       intrude(addr, ports[k]), addr, ports[k], LOOK_RIGHT);
            fflush(stdout);
        }
        if (rank == 1) {
            for (int b = 0; b < LEN; b++)
                buf[b] = (unsigned char)(i * 31 + b);
            MPI_Send(buf, LEN, MPI_BYTE, 0, i, MPI_COMM_WORLD);
        } else if (rank == 0) {
            MPI_Status st;
            MPI_Recv(buf, LEN, MPI_BYTE, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int bad = st.MPI_TAG != i;
            for (int b = 0; b < LEN; b++)
                bad |= buf[b] != (unsigned char)(i * 31 + b);
            if (bad && errors++ < 5)
                fprintf(stderr, "udp_stranger: message %d arrived wrong (tag %d)\n", i, st.MPI_TAG);
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, &errors, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("udp_stranger: %s\n", errors ? "FAIL" : "all messages intact");
    free(buf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
