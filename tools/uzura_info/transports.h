/*
 * transports.h — the transports compiled into Uzura, as uzura_info lists them.
 *
 * Made from the library's registration table (src/transport/transport_list.h),
 * so that uzura_info lists exactly the transports the library may choose.
 * The table ends with a { NULL, NULL } line.
 */
#ifndef UZ_INFO_TRANSPORTS_H
#define UZ_INFO_TRANSPORTS_H

struct uz_info_transport {
    const char *name;   /* as in src/transport/<name>/ */
    const char *what;   /* one line: where it works and how */
};

static const struct uz_info_transport uz_info_transports[] = {
#define UZ_TRANSPORT(name, summary) { #name, summary },
#include "transport/transport_list.h"
    { NULL, NULL }
};

#endif /* UZ_INFO_TRANSPORTS_H */
