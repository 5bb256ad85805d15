/*
 * transport_table.c — the registration table of transports
 * (src/transport/transport_list.h) against the ops tables it names: every
 * listed transport is in the library under its folder's name, fills the
 * members every transport must have, and fills the optional groups all or
 * none (bulk transfers, put/get, waiting), as writing-a-transport.md says.
 * A unit test: it links the library's objects and runs no MPI.
 */
#include <stdio.h>
#include <string.h>

#include "transport/transport_registry.h"

static int failures;

static void check(int ok, const char *name, const char *what)
{
    if (!ok) {
        printf("FAIL: transport %s: %s\n", name, what);
        failures++;
    }
}

static const char *const listed[] = {
#define UZ_TRANSPORT(name, summary) #name,
#include "transport/transport_list.h"
};

int main(void)
{
    int n = (int)(sizeof(listed) / sizeof(listed[0])), reach_count[3] = { 0, 0, 0 };
    check(uz_ntransports == n, "(table)", "as many entries as transport_list.h has lines");
    for (int i = 0; i < uz_ntransports && i < n; i++) {
        const struct uz_transport_ops *t = uz_transport_table[i];
        const char *name = listed[i];
        check(t->name && strcmp(t->name, name) == 0, name, "its ops table has the name of its line");
        check(uz_transport_find(name, strlen(name)) == t, name, "found by name");
        check(t->open && t->caps && t->close && t->send, name, "open, caps, close and send are set");
        check(t->reach == UZ_REACH_SELF || t->reach == UZ_REACH_HOST || t->reach == UZ_REACH_NETWORK, name,
              "a known reach");
        if (t->reach <= UZ_REACH_NETWORK)
            reach_count[t->reach]++;
        int bulk = !!t->bulk_offer + !!t->bulk_pull + !!t->bulk_withdraw + !!t->bulk_pending;
        check(bulk == 0 || bulk == 4, name, "bulk_offer, bulk_pull, bulk_withdraw, bulk_pending: all or none");
        check(!t->put == !t->get, name, "put and get: both or none");
        check(!t->coll || t->reach == UZ_REACH_HOST, name, "a collective offload only on a host transport");
        check(!t->coll || (t->coll->area_map && t->coll->area_unlink && t->coll->area_unmap &&
                           t->coll->wake_if_sleeping), name, "a collective offload has every member");
        check(t->reach != UZ_REACH_NETWORK || t->progress, name, "a network has progress()");
        check(!t->sleep || t->work_pending, name, "a doorbell has work_pending() for the sleeper's last look");
    }
    check(reach_count[UZ_REACH_SELF] >= 1, "(table)", "some transport reaches this process");
    check(uz_transport_find("tc", 2) == NULL && uz_transport_find("tcpx", 4) == NULL, "(table)",
          "names match whole");
    printf("transport_table: %s (%d transports)\n", failures ? "FAILED" : "passed", uz_ntransports);
    return failures != 0;
}
