/*
 * hosts.c — which hosts a job runs on, and which rank goes where.
 *
 * Hosts come from "-hosts a,b:2,c" and from host files (one host per line,
 * "host", "host:N" or "host slots=N", '#' starts a comment); an IPv6
 * address is written "[::1]" or "[::1]:N" (or bare, without a count).  A
 * host named twice is one host whose slots add up, and so are the names of
 * this machine (local_host.c): its ranks are one node, started by mpiexec
 * itself rather than through the launcher.  A host without a count has one
 * slot.  Placement walks the hosts in order, giving each its slots (or
 * -ppn, when given) consecutive ranks, and goes round again until every
 * rank has a host.  So without counts ranks go round-robin, with counts
 * hosts are filled in order, and more ranks than slots wrap around.
 */
#include "mpiexec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int slots_parse(const char *text, int *out)
{
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (end == text || *end || errno || n < 1 || n > 1000000)
        return -1;
    *out = (int)n;
    return 0;
}

static int host_name_ok(const char *name)
{
    return *name && !strpbrk(name, " \t,:=#'\"\\[]");
}

/* An IPv6 address in digits, with an optional %scope. */
static int ipv6_address_ok(const char *text)
{
    char digits[INET6_ADDRSTRLEN];
    size_t len = strcspn(text, "%");
    struct in6_addr address;
    if (len >= sizeof digits || (text[len] && !text[len + 1]))
        return 0;
    memcpy(digits, text, len);
    digits[len] = '\0';
    return inet_pton(AF_INET6, digits, &address) == 1 &&
           !strpbrk(text + len, " \t,:=#'\"\\[]");
}

/* Add (name, slots) to the list, merging with an earlier entry of the
 * same name.  Returns 0 or an exit status. */
static int host_add(struct mpiexec_options *opt, const char *name, size_t len, int slots)
{
    for (int i = 0; i < opt->nhosts; i++) {
        if (strlen(opt->hosts[i].name) == len && strncmp(opt->hosts[i].name, name, len) == 0) {
            opt->hosts[i].slots += slots;
            return 0;
        }
    }
    struct host_entry *grown = realloc(opt->hosts, (size_t)(opt->nhosts + 1) * sizeof *grown);
    char *copy = strndup(name, len);
    if (!grown || !copy) {
        free(copy);
        if (grown)
            opt->hosts = grown;
        fputs("mpiexec: out of memory\n", stderr);
        return EXIT_LAUNCH_FAILED;
    }
    opt->hosts = grown;
    opt->hosts[opt->nhosts++] = (struct host_entry){copy, slots, 0};
    return 0;
}

/* Split one item of -hosts or one host-file word into the host and its
 * slot count (NULL when none is given): "name", "name:N", "[IPv6]",
 * "[IPv6]:N", or a bare IPv6 address (two colons or more: no count then).
 * Cuts item in place; -1 if the host is not a host name. */
static int host_split(char *item, char **host, char **count)
{
    *host = item;
    *count = NULL;
    if (item[0] == '[') {
        char *close = strchr(item, ']');
        if (!close || (close[1] && close[1] != ':'))
            return -1;
        *close = '\0';
        *host = item + 1;
        *count = close[1] ? close + 2 : NULL;
        return ipv6_address_ok(*host) ? 0 : -1;
    }
    char *colon = strchr(item, ':');
    if (colon && strchr(colon + 1, ':'))
        return ipv6_address_ok(item) ? 0 : -1;
    if (colon) {
        *colon = '\0';
        *count = colon + 1;
    }
    return host_name_ok(item) ? 0 : -1;
}

/* One item of -hosts or one host-file word (see host_split).  A host
 * without a count counts for `slots`; `slots_word`: the host file gave
 * them as "slots=N", so the host must not have a count of its own. */
static int host_item(struct mpiexec_options *opt, char *item, int slots, int slots_word,
                     const char *where)
{
    char *host, *count, *spelled = strdup(item);
    if (!spelled) {
        fputs("mpiexec: out of memory\n", stderr);
        return EXIT_LAUNCH_FAILED;
    }
    int status = 0;
    if (host_split(item, &host, &count) < 0) {
        fprintf(stderr, "mpiexec: %s: '%s' is not a host name\n", where, spelled);
        status = EXIT_USAGE;
    } else if (count && slots_word) {
        fprintf(stderr, "mpiexec: %s: both 'host:N' and 'slots=N'\n", where);
        status = EXIT_USAGE;
    } else if (count && slots_parse(count, &slots) < 0) {
        fprintf(stderr, "mpiexec: %s: '%s' is not a number of slots\n", where, count);
        status = EXIT_USAGE;
    } else {
        status = host_add(opt, host, strlen(host), slots);
    }
    free(spelled);
    return status;
}

int hosts_parse_list(const char *text, struct mpiexec_options *opt)
{
    char *copy = strdup(text);
    int status = copy ? 0 : EXIT_LAUNCH_FAILED;
    char *save = NULL;
    int n = 0;
    for (char *item = copy ? strtok_r(copy, ",", &save) : NULL; item && !status;
         item = strtok_r(NULL, ",", &save), n++)
        status = host_item(opt, item, 1, 0, "-hosts");
    if (!status && n == 0) {
        fprintf(stderr, "mpiexec: -hosts: '%s' names no host\n", text);
        status = EXIT_USAGE;
    }
    free(copy);
    return status;
}

/* One line of a host file, comment already cut off: "host", "host:N" or
 * "host slots=N" (host as in host_split). */
static int hostfile_line(struct mpiexec_options *opt, char *line, const char *where)
{
    char *save = NULL;
    char *host = strtok_r(line, " \t\r", &save);
    if (!host)
        return 0;
    char *word = strtok_r(NULL, " \t\r", &save);
    int slots = 1;
    if (word && (strncmp(word, "slots=", 6) != 0 || slots_parse(word + 6, &slots) < 0)) {
        fprintf(stderr, "mpiexec: %s: '%s' is not 'slots=N'\n", where, word);
        return EXIT_USAGE;
    }
    char *extra = word ? strtok_r(NULL, " \t\r", &save) : NULL;
    if (extra) {
        fprintf(stderr, "mpiexec: %s: unexpected '%s'\n", where, extra);
        return EXIT_USAGE;
    }
    return host_item(opt, host, slots, word != NULL, where);
}

int hosts_parse_file(const char *path, struct mpiexec_options *opt)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "mpiexec: cannot read host file '%s': %s\n", path, strerror(errno));
        return EXIT_USAGE;
    }
    char *line = NULL;
    size_t cap = 0;
    int status = 0, lineno = 0, before = opt->nhosts;
    while (!status && getline(&line, &cap, f) >= 0) {
        char where[512];
        snprintf(where, sizeof where, "%s:%d", path, ++lineno);
        line[strcspn(line, "#\n")] = '\0';
        status = hostfile_line(opt, line, where);
    }
    free(line);
    fclose(f);
    if (!status && opt->nhosts == before) {
        fprintf(stderr, "mpiexec: host file '%s' names no host\n", path);
        status = EXIT_USAGE;
    }
    return status;
}

/* Mark this machine's entries and merge them into the first of them:
 * "-hosts localhost,$(hostname)" is one host with two slots, whose ranks
 * share memory, and not two nodes of one machine. */
void hosts_merge_local(struct mpiexec_options *opt)
{
    int first = -1, kept = 0;
    for (int h = 0; h < opt->nhosts; h++) {
        struct host_entry *e = &opt->hosts[h];
        e->local = host_is_local(e->name);
        if (e->local && first >= 0) {
            opt->hosts[first].slots += e->slots;
            free(e->name);
            continue;
        }
        if (e->local)
            first = kept;
        opt->hosts[kept++] = *e;
    }
    opt->nhosts = kept;
}

/* ------------------------------------------------------------ placement */

void placement_free(struct placement *p)
{
    free(p->node_host);
    free(p->node_local);
    free(p->node_nranks);
    free(p->rank_node);
    *p = (struct placement){0};
}

int placement_compute(const struct mpiexec_options *opt, struct placement *p)
{
    int n = opt->nprocs, nhosts = opt->nhosts;
    int *host_of = calloc((size_t)n, sizeof *host_of);
    int *node_of_host = malloc((size_t)nhosts * sizeof *node_of_host);
    *p = (struct placement){0};
    p->node_host = calloc((size_t)nhosts, sizeof *p->node_host);
    p->node_local = calloc((size_t)nhosts, sizeof *p->node_local);
    p->node_nranks = calloc((size_t)nhosts, sizeof *p->node_nranks);
    p->rank_node = calloc((size_t)n, sizeof *p->rank_node);
    if (!host_of || !node_of_host || !p->node_host || !p->node_local || !p->node_nranks ||
        !p->rank_node) {
        free(host_of);
        free(node_of_host);
        placement_free(p);
        return -1;
    }
    for (int rank = 0, h = 0; rank < n; h = (h + 1) % nhosts) {
        int take = opt->ppn ? opt->ppn : opt->hosts[h].slots;
        for (int k = 0; k < take && rank < n; k++)
            host_of[rank++] = h;
    }
    /* Nodes: the hosts that got ranks, in host order. */
    for (int h = 0; h < nhosts; h++)
        node_of_host[h] = -1;
    for (int rank = 0; rank < n; rank++)
        node_of_host[host_of[rank]] = 0;
    for (int h = 0; h < nhosts; h++)
        if (node_of_host[h] == 0) {
            node_of_host[h] = p->nnodes;
            p->node_local[p->nnodes] = opt->hosts[h].local;
            p->node_host[p->nnodes++] = opt->hosts[h].name;
        }
    for (int rank = 0; rank < n; rank++) {
        p->rank_node[rank] = node_of_host[host_of[rank]];
        p->node_nranks[p->rank_node[rank]]++;
    }
    free(host_of);
    free(node_of_host);
    return 0;
}

/* Does the placement repeat with a period of `period` ranks? */
static int placement_periodic(const struct placement *p, int nprocs, int period)
{
    for (int rank = period; rank < nprocs; rank++)
        if (p->rank_node[rank] != p->rank_node[rank - period])
            return 0;
    return 1;
}

/* MPICH's PMI_process_mapping: "(vector,(node,count,ranks_per_node),...)"
 * in rank order; each triple stands for `count` consecutive nodes from
 * `node`, each holding `ranks_per_node` consecutive ranks.  MPICH starts
 * the list again when it ends before the job does, so a placement that
 * repeats (round-robin, -ppn wrapping around) is written for one period. */
char *placement_process_mapping(const struct placement *p, int nprocs)
{
    char *text = malloc(UZ_PMI_VALUE_MAX);
    if (!text)
        return NULL;
    size_t len = (size_t)snprintf(text, UZ_PMI_VALUE_MAX, "(vector");
    int node = -1, count = 0, per_node = 0;     /* the triple being built */
    for (int rank = 0; rank <= nprocs && len < UZ_PMI_VALUE_MAX;) {
        int here = rank < nprocs ? p->rank_node[rank] : -1, run = 0;
        while (rank < nprocs && p->rank_node[rank] == here)
            rank++, run++;
        if (here >= 0 && run == per_node && node + count == here) {
            count++;
            continue;
        }
        if (node >= 0) {
            len += (size_t)snprintf(text + len, UZ_PMI_VALUE_MAX - len, ",(%d,%d,%d)", node,
                                    count, per_node);
            /* Stop once what is written, repeated, gives every rank. */
            if (placement_periodic(p, nprocs, rank - run))
                break;
        }
        node = here, count = 1, per_node = run;
    }
    if (len < UZ_PMI_VALUE_MAX)
        len += (size_t)snprintf(text + len, UZ_PMI_VALUE_MAX - len, ")");
    if (len >= UZ_PMI_VALUE_MAX) {
        free(text);
        return NULL;
    }
    return text;
}
