/*
 * transports.h — the transports compiled into Uzura, as uzura_info lists them.
 *
 * One line per transport under src/transport/; add the line in the same
 * change that adds the transport, so that uzura_info never claims one that
 * is not there.  The table ends with a { NULL, NULL } line.
 */
#ifndef UZ_INFO_TRANSPORTS_H
#define UZ_INFO_TRANSPORTS_H

struct uz_info_transport {
    const char *name;   /* as in src/transport/<name>/ */
    const char *what;   /* one line: where it works and how */
};

static const struct uz_info_transport uz_info_transports[] = {
    { "self", "a rank sending to itself: handed to the receive side at once" },
    { "shm", "ranks on one host: cache-line rings, one-copy large messages by cross-memory attach" },
    { "tcp", "ranks on other hosts: one connection per peer pair, opened on demand, job key checked" },
    { NULL, NULL }
};

#endif /* UZ_INFO_TRANSPORTS_H */
