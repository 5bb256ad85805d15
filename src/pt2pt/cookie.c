/*
 * cookie.c — the table behind request cookies.
 */
#include <stdlib.h>

#include "pt2pt/cookie.h"

struct cookie_slot {
    uz_request *req;
    uint32_t generation;
};

static struct cookie_slot *slots;
static uint32_t nslots;
static uint32_t *free_list;
static uint32_t nfree;

uint64_t uz_cookie_issue(uz_request *req)
{
    if (nfree == 0) {
        uint32_t cap = nslots ? 2 * nslots : 256;
        struct cookie_slot *s = realloc(slots, sizeof(*s) * cap);
        uint32_t *f = realloc(free_list, sizeof(*f) * cap);
        if (!s || !f) {
            if (s) slots = s;
            if (f) free_list = f;
            return 0;
        }
        slots = s;
        free_list = f;
        for (uint32_t i = cap; i > nslots; i--) {
            slots[i - 1].req = NULL;
            slots[i - 1].generation = 0;
            free_list[nfree++] = i - 1;
        }
        nslots = cap;
    }
    uint32_t idx = free_list[--nfree];
    struct cookie_slot *s = &slots[idx];
    s->req = req;
    s->generation++;
    if (s->generation == 0)
        s->generation = 1;
    return ((uint64_t)s->generation << 32) | idx;
}

uz_request *uz_cookie_lookup(uint64_t cookie)
{
    uint32_t idx = (uint32_t)cookie;
    uint32_t gen = (uint32_t)(cookie >> 32);
    if (idx >= nslots || slots[idx].generation != gen)
        return NULL;
    return slots[idx].req;
}

void uz_cookie_revoke(uint64_t cookie)
{
    uint32_t idx = (uint32_t)cookie;
    uint32_t gen = (uint32_t)(cookie >> 32);
    if (idx >= nslots || slots[idx].generation != gen || !slots[idx].req)
        return;
    slots[idx].req = NULL;
    slots[idx].generation++;
    free_list[nfree++] = idx;
}

void uz_cookie_fail_peer(int world, int error)
{
    for (uint32_t i = 0; i < nslots; i++) {
        uz_request *r = slots[i].req;
        if (!r || r->peer_world != world || uz_request_is_complete(r))
            continue;
        r->status.MPI_ERROR = error;
        r->status.MPI_SOURCE = r->kind == UZ_REQ_RECV ? r->msg_src : MPI_ANY_SOURCE;
        r->status.MPI_TAG = r->kind == UZ_REQ_RECV ? r->msg_tag : MPI_ANY_TAG;
        uz_request_complete(r);
    }
}
