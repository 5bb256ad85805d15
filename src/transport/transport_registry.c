/*
 * transport_registry.c — the table of built-in transports, made from
 * transport_list.h so that adding a transport is one line there.
 */
#include <string.h>

#include "transport/transport_registry.h"

const struct uz_transport_ops *const uz_transport_table[] = {
#define UZ_TRANSPORT(name, summary) &uz_##name##_transport,
#include "transport/transport_list.h"
};

const int uz_ntransports = (int)(sizeof(uz_transport_table) / sizeof(uz_transport_table[0]));

const struct uz_transport_ops *uz_transport_find(const char *name, size_t len)
{
    for (int i = 0; i < uz_ntransports; i++) {
        const char *n = uz_transport_table[i]->name;
        if (strlen(n) == len && memcmp(n, name, len) == 0)
            return uz_transport_table[i];
    }
    return NULL;
}
