/*
 * cookie.h — names for requests that peers can quote back (ACK, CTS, DATA).
 *
 * A cookie is a slot index and a generation; looking one up checks both,
 * so a late or forged cookie finds nothing instead of a reused request.
 */
#ifndef UZ_PT2PT_COOKIE_H
#define UZ_PT2PT_COOKIE_H

#include <stdint.h>

#include "pt2pt/request.h"

uint64_t uz_cookie_issue(uz_request *req);
uz_request *uz_cookie_lookup(uint64_t cookie);
void uz_cookie_revoke(uint64_t cookie);

/* Complete with `error` every request holding a cookie that waits on world
 * rank `world` (a send waiting for its ACK or CTS, a receive for its DATA). */
void uz_cookie_fail_peer(int world, int error);

#endif /* UZ_PT2PT_COOKIE_H */
