/*
 * transport_registry.h — every transport built in, as the request layer's
 * wire-up finds them: the table transport_list.h describes.
 */
#ifndef UZ_TRANSPORT_REGISTRY_H
#define UZ_TRANSPORT_REGISTRY_H

#include "transport/transport.h"

#define UZ_TRANSPORT(name, summary) extern const struct uz_transport_ops uz_##name##_transport;
#include "transport/transport_list.h"

/* The transports in the order of transport_list.h, and their number. */
extern const struct uz_transport_ops *const uz_transport_table[];
extern const int uz_ntransports;

/* The transport called `name` (of length `len`), or NULL. */
const struct uz_transport_ops *uz_transport_find(const char *name, size_t len);

#endif /* UZ_TRANSPORT_REGISTRY_H */
