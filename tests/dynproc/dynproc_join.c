/*
 * dynproc_join.c — MPI_Comm_join: ranks 2k and 2k+1 connect a TCP socket
 * on the loopback interface (2k listens and sends its port over
 * MPI_COMM_WORLD), join over it and check messages both ways and an
 * allreduce over the intercommunicator.  The socket stays usable: after
 * the join the two swap a byte over it.  Needs two ranks.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "uztest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        printf("SKIPPED: MPI_Comm_join needs two processes\n");
        MPI_Finalize();
        return 77;
    }
    int listener = rank % 2 == 0, partner = listener ? rank + 1 : rank - 1;
    int fd = -1;
    if (partner < size) {
        struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        socklen_t len = sizeof(sin);
        if (listener) {
            int l = socket(AF_INET, SOCK_STREAM, 0);
            CHECK(l >= 0 && bind(l, (struct sockaddr *)&sin, sizeof(sin)) == 0 && listen(l, 1) == 0
                  && getsockname(l, (struct sockaddr *)&sin, &len) == 0, "cannot listen");
            int port = ntohs(sin.sin_port);
            MPI_Send(&port, 1, MPI_INT, partner, 0, MPI_COMM_WORLD);
            fd = accept(l, NULL, NULL);
            close(l);
        } else {
            int port;
            MPI_Recv(&port, 1, MPI_INT, partner, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sin.sin_port = htons((uint16_t)port);
            fd = socket(AF_INET, SOCK_STREAM, 0);
            CHECK(connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0, "cannot connect");
        }
        CHECK(fd >= 0, "no socket");
        MPI_Comm inter;
        CHECK_MPI(MPI_Comm_join(fd, &inter));
        int rsize = -1, lsize = -1;
        MPI_Comm_remote_size(inter, &rsize);
        MPI_Comm_size(inter, &lsize);
        CHECK_EQ(rsize, 1);
        CHECK_EQ(lsize, 1);
        unsigned char out[70000], in[70000];
        uzt_fill(out, sizeof(out), rank, 5);
        CHECK_MPI(MPI_Sendrecv(out, sizeof(out), MPI_BYTE, 0, 2, in, sizeof(in), MPI_BYTE, 0, 2, inter,
                               MPI_STATUS_IGNORE));
        CHECK(uzt_verify(in, sizeof(in), partner, 5) < 0, "message from rank %d damaged", partner);
        int mine = rank + 1, theirs = 0;
        CHECK_MPI(MPI_Allreduce(&mine, &theirs, 1, MPI_INT, MPI_SUM, inter));
        CHECK_EQ(theirs, partner + 1);
        CHECK_MPI(MPI_Comm_disconnect(&inter));
        char b = (char)('a' + rank % 2), got = 0;
        CHECK(write(fd, &b, 1) == 1 && read(fd, &got, 1) == 1, "the socket is unusable after the join");
        CHECK_EQ(got, 'a' + partner % 2);
        close(fd);
    }
    return uzt_finish("dynproc_join");
}
