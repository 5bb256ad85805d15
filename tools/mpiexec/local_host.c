/*
 * local_host.c — does a host name of -hosts / -hostfile mean this machine?
 *
 * A job's share on this host must be forked by mpiexec itself: going
 * through ssh to reach ourselves fails wherever no sshd runs (a laptop, a
 * container, a batch node that only allows ssh between allocated nodes),
 * and MPICH's Hydra and Open MPI both start local ranks directly.
 *
 * This host is:
 *   - its name (gethostname), the first label of it, and its fully
 *     qualified name (the canonical name our own name resolves to);
 *   - `localhost` and the loopback names distributions put in /etc/hosts;
 *   - any address written in digits that is a loopback address (127.0.0.0/8,
 *     ::1, their IPv4-mapped form) or is assigned to one of its interfaces
 *     (getifaddrs), or is an address its own name resolves to.
 *
 * Other names are not looked up, as in Hydra (MPL_host_is_local): a name
 * whose lookup would wait for a name server (the test namespaces' `uzh0`,
 * a node that is down) costs no time, and a name that /etc/hosts happens to
 * point at this machine under another spelling is taken for another host,
 * which still works through the launcher.  Names compare without regard to
 * case or a final dot, as DNS names do.
 */
#include "mpiexec.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* This host's own names, worked out once. */
struct own_names {
    int ready;
    char name[256];             /* gethostname */
    char fqdn[256];             /* the canonical name of `name`, "" if unknown */
    struct ifaddrs *interfaces;
    struct addrinfo *name_addresses;    /* what `name` resolves to */
};

static struct own_names own;

static void own_names_load(void)
{
    if (own.ready)
        return;
    own.ready = 1;
    if (gethostname(own.name, sizeof own.name - 1) != 0)
        own.name[0] = '\0';
    if (getifaddrs(&own.interfaces) != 0)
        own.interfaces = NULL;
    if (!own.name[0])
        return;
    struct addrinfo hints = {.ai_flags = AI_CANONNAME, .ai_socktype = SOCK_STREAM};
    if (getaddrinfo(own.name, NULL, &hints, &own.name_addresses) != 0) {
        own.name_addresses = NULL;
        return;
    }
    if (own.name_addresses->ai_canonname)
        snprintf(own.fqdn, sizeof own.fqdn, "%s", own.name_addresses->ai_canonname);
}

/* Equal as DNS names: case-blind, a final dot ignored on either side, and
 * `b_len` bytes of b (the first label of a name). */
static int same_name(const char *a, const char *b, size_t b_len)
{
    size_t a_len = strlen(a);
    if (a_len > 1 && a[a_len - 1] == '.')
        a_len--;
    if (b_len > 1 && b[b_len - 1] == '.')
        b_len--;
    return a_len == b_len && b_len > 0 && strncasecmp(a, b, a_len) == 0;
}

static int is_loopback_name(const char *name)
{
    static const char *const loopback[] = {
        "localhost", "localhost.localdomain", "localhost4", "localhost4.localdomain4",
        "localhost6", "localhost6.localdomain6", "ip6-localhost", "ip6-loopback",
    };
    for (size_t i = 0; i < sizeof loopback / sizeof loopback[0]; i++)
        if (same_name(name, loopback[i], strlen(loopback[i])))
            return 1;
    /* RFC 6761: every name under .localhost is loopback. */
    size_t len = strlen(name);
    return len > 10 && same_name(name + len - 10, ".localhost", 10);
}

static int is_own_name(const char *name)
{
    own_names_load();
    if (own.name[0] && (same_name(name, own.name, strlen(own.name)) ||
                        same_name(name, own.name, strcspn(own.name, "."))))
        return 1;
    return own.fqdn[0] && same_name(name, own.fqdn, strlen(own.fqdn));
}

/* ------------------------------------------------------------ addresses */

/* An address in digits, IPv4 or IPv6 (with an optional %scope). */
static struct addrinfo *numeric_address(const char *name)
{
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    return getaddrinfo(name, NULL, &hints, &res) == 0 ? res : NULL;
}

/* The IPv4 address inside an IPv4-mapped IPv6 address, or of an IPv4 one;
 * 0 for any other. */
static int address_v4(const struct sockaddr *sa, struct in_addr *out)
{
    if (sa->sa_family == AF_INET) {
        *out = ((const struct sockaddr_in *)sa)->sin_addr;
        return 1;
    }
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (IN6_IS_ADDR_V4MAPPED(a)) {
            memcpy(&out->s_addr, a->s6_addr + 12, 4);
            return 1;
        }
    }
    return 0;
}

static int is_loopback_address(const struct sockaddr *sa)
{
    struct in_addr v4;
    if (address_v4(sa, &v4))
        return (ntohl(v4.s_addr) >> 24) == 127;
    return sa->sa_family == AF_INET6 &&
           IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)sa)->sin6_addr);
}

/* The same host address, whatever the port or scope. */
static int same_address(const struct sockaddr *a, const struct sockaddr *b)
{
    struct in_addr a4, b4;
    if (address_v4(a, &a4) && address_v4(b, &b4))
        return a4.s_addr == b4.s_addr;
    return a->sa_family == AF_INET6 && b->sa_family == AF_INET6 &&
           memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
                  &((const struct sockaddr_in6 *)b)->sin6_addr, sizeof(struct in6_addr)) == 0;
}

static int is_own_address(const struct sockaddr *sa)
{
    own_names_load();
    if (is_loopback_address(sa))
        return 1;
    for (const struct ifaddrs *i = own.interfaces; i; i = i->ifa_next)
        if (i->ifa_addr && same_address(sa, i->ifa_addr))
            return 1;
    for (const struct addrinfo *a = own.name_addresses; a; a = a->ai_next)
        if (same_address(sa, a->ai_addr))
            return 1;
    return 0;
}

int host_is_local(const char *name)
{
    struct addrinfo *address = numeric_address(name);
    if (address) {
        int local = is_own_address(address->ai_addr);
        freeaddrinfo(address);
        return local;
    }
    return is_loopback_name(name) || is_own_name(name);
}
