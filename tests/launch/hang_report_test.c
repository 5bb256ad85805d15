/*
 * hang_report_test.c — the hang diagnosis (tools/mpiexec/hang_report.c)
 * on made-up state pages: the lines per rank, collectives with missing
 * ranks, cycles of waits, wildcards, and what it prints without pages.
 */
#include "hang_report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

/* Run the report on pages and check that each wanted line is in it (and,
 * for the unwanted ones, not). */
static void check(const char *name, int size, const char *const *pages, const int *flags,
                  const char *const *want, const char *const *unwanted)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    hang_report_print(f, "test", size, pages, flags);
    fclose(f);
    for (int i = 0; want && want[i]; i++) {
        char line[1024];
        snprintf(line, sizeof line, "%s\n", want[i]);
        if (!strstr(buf, line)) {
            printf("FAIL %s: missing line: %s\n--- got:\n%s", name, want[i], buf);
            failures++;
        }
    }
    for (int i = 0; unwanted && unwanted[i]; i++)
        if (strstr(buf, unwanted[i])) {
            printf("FAIL %s: unwanted text: %s\n--- got:\n%s", name, unwanted[i], buf);
            failures++;
        }
    free(buf);
}

static void two_rank_cycle(void)
{
    const char *pages[] = {
        "blocked 1\ncall MPI_Recv\nreq recv 1 1 7 0 2 MPI_COMM_WORLD\n",
        "blocked 1\ncall MPI_Recv\nreq recv 0 0 7 0 2 MPI_COMM_WORLD\n",
    };
    const char *want[] = {
        "mpiexec: hang diagnosis (test): what each rank waits in",
        "mpiexec:   rank 0 waits in MPI_Recv(from 1, tag 7, MPI_COMM_WORLD)",
        "mpiexec:   rank 1 waits in MPI_Recv(from 0, tag 7, MPI_COMM_WORLD)",
        "mpiexec: deadlock: rank 0 waits in MPI_Recv(from 1, tag 7, MPI_COMM_WORLD) ← "
        "rank 1 waits in MPI_Recv(from 0, tag 7, MPI_COMM_WORLD)",
        NULL};
    check("two_rank_cycle", 2, pages, NULL, want, NULL);
}

/* Rank 0 waits for 1, 1 for 2 which runs: no deadlock. */
static void chain_without_cycle(void)
{
    const char *pages[] = {
        "blocked 1\ncall MPI_Ssend\nreq ssend 1 1 0 0 3 MPI_COMM_WORLD\n",
        "blocked 1\ncall MPI_Recv\nreq recv 2 2 * 0 3 MPI_COMM_WORLD\n",
        "blocked 0\n",
    };
    const char *want[] = {
        "mpiexec:   rank 0 waits in MPI_Ssend(to 1, tag 0, MPI_COMM_WORLD)",
        "mpiexec:   rank 1 waits in MPI_Recv(from 2, any tag, MPI_COMM_WORLD)",
        "mpiexec:   rank 2 is running, not blocked in MPI",
        "mpiexec: no cycle of waits among the blocked ranks",
        NULL};
    const char *unwanted[] = {"deadlock", NULL};
    check("chain_without_cycle", 3, pages, NULL, want, unwanted);
}

/* Waitall on a sub-communicator whose ranks differ from the world's, and
 * a receive from any source closing the cycle. */
static void waitall_and_any_source(void)
{
    const char *pages[] = {
        "blocked 1\ncall MPI_Waitall\nreq recv 2 1 5 4 2 evens\nreq send 2 1 5 4 2 evens\n",
        "blocked 0\n",
        "blocked 1\ncall MPI_Recv\nreq recv * * * 0 3 MPI_COMM_WORLD\n",
    };
    const char *want[] = {
        "mpiexec:   rank 0 waits in MPI_Waitall(recv from 2 (its rank 1 there), tag 5, evens "
        "(size 2); send to 2 (its rank 1 there), tag 5, evens (size 2))",
        "mpiexec:   rank 2 waits in MPI_Recv(from any source, any tag, MPI_COMM_WORLD)",
        "mpiexec: deadlock: rank 0 waits in MPI_Waitall(recv from 2 (its rank 1 there), tag 5, "
        "evens (size 2); send to 2 (its rank 1 there), tag 5, evens (size 2)) ← rank 2 waits in "
        "MPI_Recv(from any source, any tag, MPI_COMM_WORLD)",
        NULL};
    check("waitall_and_any_source", 3, pages, NULL, want, NULL);
}

/* Ranks 0-2 in call #3 of a collective, rank 3 elsewhere, rank 4 (not a
 * member) exited, rank 5 without a page, rank 6 in the PMI fence, rank 7
 * finalized. */
static void collective_missing_rank(void)
{
    const char *pages[] = {
        "blocked 1\ncall MPI_Allreduce\ncoll 8 3 4 0,1,2,3 -\n",
        "blocked 1\ncall MPI_Allreduce\ncoll 8 3 4 0,1,2,3 -\n",
        "blocked 1\ncall MPI_Allreduce\ncoll 8 3 4 0,1,2,3 -\n",
        "blocked 1\ncall MPI_Bcast\ncoll 8 2 4 0,1,2,3 -\n",
        "blocked 0\n",
        NULL,
        "blocked 1\ncall -\n",
        "blocked 0\n",
    };
    int flags[] = {0, 0, 0, 0, HANG_RANK_EXITED, 0, HANG_RANK_IN_FENCE, HANG_RANK_FINALIZED};
    const char *want[] = {
        "mpiexec:   rank 0 waits in MPI_Allreduce(communicator #8 (size 4), call #3)",
        "mpiexec:   rank 4 has exited",
        "mpiexec:   rank 5 has no state page (not started yet, or not an Uzura MPI program)",
        "mpiexec:   rank 6 waits in the process manager's fence (in MPI_Init or MPI_Finalize)",
        "mpiexec:   rank 7 has finalized MPI",
        "mpiexec: rank 0,1,2 wait in MPI_Allreduce(communicator #8 (size 4), call #3); rank 3 has "
        "not entered it (it waits in MPI_Bcast(communicator #8 (size 4), call #2))",
        "mpiexec: rank 3 waits in MPI_Bcast(communicator #8 (size 4), call #2); rank 0 has not "
        "entered it (it waits in MPI_Allreduce(communicator #8 (size 4), call #3)); rank 1 has not "
        "entered it (it waits in MPI_Allreduce(communicator #8 (size 4), call #3)); rank 2 has not "
        "entered it (it waits in MPI_Allreduce(communicator #8 (size 4), call #3))",
        "mpiexec: deadlock: rank 0 waits in MPI_Allreduce(communicator #8 (size 4), call #3) ← "
        "rank 3 waits in MPI_Bcast(communicator #8 (size 4), call #2)",
        NULL};
    check("collective_missing_rank", 8, pages, flags, want, NULL);
}

/* No rank has a page (not Uzura MPI programs): nothing at all. */
static void no_pages(void)
{
    const char *pages[] = {NULL, NULL};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int n = hang_report_print(f, "test", 2, pages, NULL);
    fclose(f);
    if (n != 0 || len != 0) {
        printf("FAIL no_pages: returned %d, printed \"%s\"\n", n, buf);
        failures++;
    }
    free(buf);
}

/* Unknown lines (a newer library), a truncated request list, requests
 * that are not point-to-point. */
static void unknown_lines_and_more(void)
{
    const char *pages[] = {
        "blocked 1\ncall MPI_Waitany\nfuture thing\nreq recv 1 1 2 0 2 MPI_COMM_WORLD\nmore 3\n",
        "blocked 1\ncall MPI_Probe\n",
        "blocked 1\ncall MPI_Wait\nreq other * * * 1 3 MPI_COMM_WORLD\n",
        "blocked 1\ncall MPI_Waitall\nreq other * * * 0 0 -\nreq send 0 0 1 0 4 MPI_COMM_WORLD\n",
    };
    const char *want[] = {
        "mpiexec:   rank 0 waits in MPI_Waitany(recv from 1, tag 2, MPI_COMM_WORLD; 3 more)",
        "mpiexec:   rank 1 waits in MPI_Probe",
        "mpiexec:   rank 2 waits in MPI_Wait(a request that is not point-to-point on MPI_COMM_WORLD)",
        "mpiexec:   rank 3 waits in MPI_Waitall(a request that is not point-to-point; "
        "send to 0, tag 1, MPI_COMM_WORLD)",
        NULL};
    check("unknown_lines_and_more", 4, pages, NULL, want, NULL);
}

int main(void)
{
    two_rank_cycle();
    chain_without_cycle();
    waitall_and_any_source();
    collective_missing_rank();
    no_pages();
    unknown_lines_and_more();
    if (failures)
        return 1;
    printf("hang_report_test: all passed\n");
    return 0;
}
