/*
 * dpm_port.c — MPI_Open_port and MPI_Close_port: a port is a listening
 * TCP socket of the process that opened it and a random secret, both
 * written into its name, "uzport1:<secret>@<addr:port>,<addr:port>"
 * (every IPv4 address of the host, loopback last).  Whoever has the name
 * may connect; a connection that does not present the secret is closed
 * (dpm_meet.c).  Closing the port closes the socket, so a later connect is
 * refused at once (MPI_ERR_PORT), never left waiting.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/errors.h"
#include "base/lock.h"
#include "core/dpm.h"
#include "core/info.h"
#include "pt2pt/proc_table.h"

struct open_port {
    struct open_port *next;
    int fd;
    uint8_t secret[UZ_PORT_SECRET_BYTES];
    char name[MPI_MAX_PORT_NAME];
};

static struct open_port *ports;

static const char prefix[] = "uzport1:";

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int uz_port_parse(const char *name, struct uz_port_addr *out)
{
    size_t plen = sizeof(prefix) - 1;
    if (!name || strncmp(name, prefix, plen) != 0)
        return uz_err_make(MPI_ERR_PORT, "\"%.100s\" is not a port name of this MPI (MPI_Open_port makes "
                           "them; they start with \"%s\")", name ? name : "", prefix);
    const char *h = name + plen;
    for (int i = 0; i < UZ_PORT_SECRET_BYTES; i++) {
        int hi = hexval(h[2 * i]), lo = hi < 0 ? -1 : hexval(h[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return uz_err_make(MPI_ERR_PORT, "port name \"%.100s\" is damaged (its secret)", name);
        out->secret[i] = (uint8_t)(hi << 4 | lo);
    }
    h += 2 * UZ_PORT_SECRET_BYTES;
    if (*h != '@' || !h[1])
        return uz_err_make(MPI_ERR_PORT, "port name \"%.100s\" is damaged (no address)", name);
    snprintf(out->addrs, sizeof(out->addrs), "%s", h + 1);
    return MPI_SUCCESS;
}

int uz_port_listener(const char *name, const uint8_t **secret)
{
    for (struct open_port *p = ports; p; p = p->next)
        if (strcmp(p->name, name) == 0) {
            *secret = p->secret;
            return p->fd;
        }
    return -1;
}

static int listen_any(uint16_t *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t len = sizeof(sin);
    if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) != 0 || listen(fd, 64) != 0
        || getsockname(fd, (struct sockaddr *)&sin, &len) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    *port = ntohs(sin.sin_port);
    return fd;
}

/* "uzport1:<secret>@" then each address with the port. */
static int write_name(struct open_port *p, uint16_t port)
{
    char addrs[MPI_MAX_PORT_NAME];
    uz_proc_host_addresses(addrs, sizeof(addrs));
    size_t used = (size_t)snprintf(p->name, sizeof(p->name), "%s", prefix);
    for (int i = 0; i < UZ_PORT_SECRET_BYTES; i++)
        used += (size_t)snprintf(p->name + used, sizeof(p->name) - used, "%02x", p->secret[i]);
    p->name[used++] = '@';
    p->name[used] = '\0';
    int first = 1;
    for (char *save = NULL, *a = strtok_r(addrs, ",", &save); a; a = strtok_r(NULL, ",", &save)) {
        int n = snprintf(p->name + used, sizeof(p->name) - used, "%s%s:%u", first ? "" : ",", a, (unsigned)port);
        if (n < 0 || (size_t)n >= sizeof(p->name) - used)
            break;                      /* the addresses that fit (loopback comes last) */
        used += (size_t)n;
        first = 0;
    }
    return first ? -1 : 0;
}

int uz_mpi_Open_port(uz_info *info, char *port_name)
{
    (void)info;                         /* no info keys of ports are honoured */
    return uz_port_open(port_name);
}

int uz_port_open(char *port_name)
{
    struct open_port *p = calloc(1, sizeof(*p));
    if (!p)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory");
    if (getrandom(p->secret, sizeof(p->secret), 0) != (ssize_t)sizeof(p->secret)) {
        free(p);
        return uz_err_make(MPI_ERR_OTHER, "cannot draw a secret (getrandom failed)");
    }
    uint16_t port;
    p->fd = listen_any(&port);
    if (p->fd < 0) {
        int e = errno;
        free(p);
        return uz_err_make(MPI_ERR_OTHER, "cannot listen on a tcp port: %s", strerror(e));
    }
    if (write_name(p, port) != 0) {
        close(p->fd);
        free(p);
        return uz_err_make(MPI_ERR_OTHER, "this host has no IPv4 address to publish");
    }
    snprintf(port_name, MPI_MAX_PORT_NAME, "%s", p->name);
    uz_lock();
    p->next = ports;
    ports = p;
    uz_unlock();
    return MPI_SUCCESS;
}

int uz_mpi_Close_port(const char *port_name)
{
    return uz_port_close(port_name);
}

int uz_port_close(const char *port_name)
{
    uz_lock();
    for (struct open_port **pp = &ports; *pp; pp = &(*pp)->next) {
        struct open_port *p = *pp;
        if (strcmp(p->name, port_name) == 0) {
            *pp = p->next;
            uz_unlock();
            close(p->fd);
            free(p);
            return MPI_SUCCESS;
        }
    }
    uz_unlock();
    return uz_err_make(MPI_ERR_PORT, "\"%.100s\" is not a port this process opened", port_name);
}
