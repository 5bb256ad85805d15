/*
 * pmi_kvs_check.c — a rank that exercises the PMI client end to end: init,
 * publish its own key, fence, read every other rank's key, finalize.
 *
 * Run under any PMI-1 process manager (Uzura's mpiexec, MPICH's Hydra, with
 * or without -pmi-port).  Exits 0 when everything checked out; rank 0 prints
 * one summary line so that a test can check the output exactly.
 *
 *   pmi_kvs_check [--expect-size N]
 */
#include "pmi/pmi.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what, int rank, int err)
{
    if (ok)
        return;
    fprintf(stderr, "pmi_kvs_check: rank %d: %s failed (%d): %s\n", rank, what, err,
            uz_pmi_last_error());
    failures++;
}

static void check_peer(int rank, int peer, int size)
{
    char key[64], want[128], got[1024];
    snprintf(key, sizeof key, "card-%d", peer);
    snprintf(want, sizeof want, "rank-%d-of-%d-%064x", peer, size, peer * 2654435761u);
    int err = uz_pmi_get(key, got, sizeof got);
    check(err == 0, "get of a peer's key", rank, err);
    if (err == 0 && strcmp(got, want) != 0) {
        fprintf(stderr, "pmi_kvs_check: rank %d: key %s is '%s', expected '%s'\n", rank, key,
                got, want);
        failures++;
    }
}

int main(int argc, char **argv)
{
    int expect_size = argc == 3 && strcmp(argv[1], "--expect-size") == 0 ? atoi(argv[2]) : 0;
    struct uz_pmi_info info;
    int err = uz_pmi_init(&info);
    if (err) {
        fprintf(stderr, "pmi_kvs_check: init failed (%d): %s\n", err, uz_pmi_last_error());
        return 1;
    }
    if (expect_size && info.size != expect_size) {
        fprintf(stderr, "pmi_kvs_check: rank %d: size %d, expected %d\n", info.rank, info.size,
                expect_size);
        failures++;
    }
    char key[64], value[128];
    snprintf(key, sizeof key, "card-%d", info.rank);
    snprintf(value, sizeof value, "rank-%d-of-%d-%064x", info.rank, info.size,
             info.rank * 2654435761u);
    err = uz_pmi_put(key, value);
    check(err == 0, "put", info.rank, err);
    err = uz_pmi_fence();
    check(err == 0, "fence", info.rank, err);
    for (int peer = 0; peer < info.size; peer++)
        check_peer(info.rank, (info.rank + peer) % info.size, info.size);
    char missing[16];
    err = uz_pmi_get("no-such-key", missing, sizeof missing);
    check(err == -ENOENT, "get of a missing key (expected -ENOENT)", info.rank, err);
    err = uz_pmi_fence();
    check(err == 0, "second fence", info.rank, err);
    err = uz_pmi_finalize();
    check(err == 0, "finalize", info.rank, err);
    if (info.rank == 0 && !failures)
        printf("pmi_kvs_check: %d ranks ok (universe %d, appnum %d, %s)\n", info.size,
               info.universe_size, info.appnum, info.singleton ? "singleton" : "server");
    return failures ? 1 : 0;
}
