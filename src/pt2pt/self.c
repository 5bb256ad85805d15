/*
 * self.c — messages a process sends to itself.
 *
 * The record is assembled in contiguous memory and handed to the receive
 * side at once, which matches it against posted receives or queues it as
 * unexpected; the self path has no size limit, so every self message is a
 * single eager record and a standard-mode send to self never blocks.
 */
#include <stdlib.h>
#include <string.h>

#include "core/runtime.h"
#include "pt2pt/path.h"

int uz_self_send(const void *hdr, size_t hdr_len, const struct uz_payload *pl)
{
    unsigned char stackbuf[256];
    size_t len = hdr_len + pl->len;
    unsigned char *rec = len <= sizeof(stackbuf) ? stackbuf : malloc(len);
    if (!rec)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory sending %zu bytes to self", pl->len);
    memcpy(rec, hdr, hdr_len);
    /* The payload says how to get its bytes by which of `pack` and
     * `contig` it sets; a NULL `contig` does not mean "packed" (data at
     * address NULL once made this call a NULL packer).  A payload with
     * neither is refused rather than followed. */
    if (pl->len && pl->pack) {
        pl->pack(pl->pack_ctx, rec + hdr_len, pl->len);
    } else if (pl->len && pl->contig) {
        memcpy(rec + hdr_len, pl->contig, pl->len);
    } else if (pl->len) {
        if (rec != stackbuf)
            free(rec);
        return uz_err_make(MPI_ERR_BUFFER, "invalid buffer: %zu bytes to send to self from address NULL",
                           pl->len);
    }
    uz_pt2pt_on_record(uz_rt.world_rank, rec, len);
    if (rec != stackbuf)
        free(rec);
    return 0;
}
