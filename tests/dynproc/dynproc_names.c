/*
 * dynproc_names.c — MPI_Publish_name / MPI_Lookup_name /
 * MPI_Unpublish_name, and accept/connect inside one job: every even rank
 * opens a port and publishes it under a name of its own; the odd rank
 * after it looks the name up and connects over MPI_COMM_SELF.  Messages
 * both ways are checked, then the names are unpublished.  Errors: an
 * unknown name (MPI_ERR_NAME), publishing a name twice and unpublishing
 * one that is not published (MPI_ERR_SERVICE).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "uztest.h"

static int rank, size;

static int error_class(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void service_of(int r, long tag, char *buf, size_t len)
{
    snprintf(buf, len, "uzura-test/names %ld rank %d", tag, r);
}

static void errors(long tag)
{
    char svc[128], port[MPI_MAX_PORT_NAME];
    snprintf(svc, sizeof(svc), "uzura-test-missing-%ld-%d", tag, rank);
    CHECK_EQ(error_class(MPI_Lookup_name(svc, MPI_INFO_NULL, port)), MPI_ERR_NAME);
    CHECK_EQ(error_class(MPI_Unpublish_name(svc, MPI_INFO_NULL, "uzport1:x")), MPI_ERR_SERVICE);
    CHECK_MPI(MPI_Publish_name(svc, MPI_INFO_NULL, "first"));
    CHECK_EQ(error_class(MPI_Publish_name(svc, MPI_INFO_NULL, "second")), MPI_ERR_SERVICE);
    CHECK_MPI(MPI_Lookup_name(svc, MPI_INFO_NULL, port));
    CHECK(strcmp(port, "first") == 0, "looked up \"%s\"", port);
    CHECK_MPI(MPI_Unpublish_name(svc, MPI_INFO_NULL, "first"));
    CHECK_EQ(error_class(MPI_Lookup_name(svc, MPI_INFO_NULL, port)), MPI_ERR_NAME);
}

static void pair(long tag)
{
    char svc[128], port[MPI_MAX_PORT_NAME];
    MPI_Comm inter = MPI_COMM_NULL;
    int accepting = rank % 2 == 0, partner = accepting ? rank + 1 : rank - 1;
    if (accepting) {
        service_of(rank, tag, svc, sizeof(svc));
        CHECK_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        CHECK_MPI(MPI_Publish_name(svc, MPI_INFO_NULL, port));
    }
    CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));     /* every name is published */
    if (partner >= size) {
        if (accepting) {
            CHECK_MPI(MPI_Unpublish_name(svc, MPI_INFO_NULL, port));
            CHECK_MPI(MPI_Close_port(port));
        }
        return;
    }
    if (accepting) {
        CHECK_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
    } else {
        service_of(partner, tag, svc, sizeof(svc));
        CHECK_MPI(MPI_Lookup_name(svc, MPI_INFO_NULL, port));
        CHECK_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter));
    }
    int rsize = -1;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK_EQ(rsize, 1);
    unsigned char out[5000], in[5000];
    uzt_fill(out, sizeof(out), rank, 3);
    CHECK_MPI(MPI_Sendrecv(out, sizeof(out), MPI_BYTE, 0, 1, in, sizeof(in), MPI_BYTE, 0, 1, inter,
                           MPI_STATUS_IGNORE));
    CHECK(uzt_verify(in, sizeof(in), partner, 3) < 0, "message from rank %d damaged", partner);
    CHECK_MPI(MPI_Comm_disconnect(&inter));
    if (accepting) {
        CHECK_MPI(MPI_Unpublish_name(svc, MPI_INFO_NULL, port));
        CHECK_MPI(MPI_Close_port(port));
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    long tag = (long)getpid();
    MPI_Bcast(&tag, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    errors(tag);
    pair(tag);
    return uzt_finish("dynproc_names");
}
