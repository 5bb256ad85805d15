/*
 * dt_engine.h — what the request layer, the transports' users and one-sided
 * operations use to move data described by a datatype.
 *
 * The "packed stream" of (buf, count, datatype) is the bytes of its basic
 * elements in type-map order, in native representation: what MPI_Pack
 * produces and what goes on the wire between ranks of one host.
 *
 * Fast path first: when uz_dt_is_contig(dt, count) holds, the data is
 * count * dt->size bytes at (char *)buf + dt->true_lb and no cursor is
 * needed.  Otherwise a cursor walks the stream: it lives on the caller's
 * stack (or in a request), needs no malloc for any type, and can copy the
 * next bytes out (pack), scatter the next bytes in (unpack), or list the
 * next runs of user memory as iovecs (for process_vm_readv/writev and
 * writev-style transports, with no staging copy at all).  A cursor may be
 * copied with memcpy; it holds no pointer into itself.
 *
 * Datatypes used by a pending operation must be retained with
 * uz_dt_retain() and released when the operation completes, so that a
 * type the user frees meanwhile stays valid until then.
 */
#ifndef UZ_DATATYPE_DT_ENGINE_H
#define UZ_DATATYPE_DT_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "datatype/datatype.h"

/* ------------------------------------------------------------- fast path */

/* Is (buf, count, dt) exactly count*dt->size bytes at buf + dt->true_lb,
 * in packed order?  True for every count when dt->contiguous, and for a
 * single element when dt->single_run (a padded or resized type). */
static inline int uz_dt_is_contig(const uz_datatype *dt, MPI_Count count)
{
    return dt->contiguous || (count <= 1 && dt->single_run);
}

/* ---------------------------------------------------------------- cursor */

enum { UZ_DT_CURSOR_FRAMES = 16 };

/* Fields are private to src/datatype/. */
struct uz_dt_cursor {
    const struct uz_dt_layout *layout;
    uintptr_t buf;
    size_t offset;              /* bytes of the packed stream done */
    size_t total;               /* bytes of the whole stream */
    uintptr_t run;              /* rest of a run the last call stopped inside */
    size_t run_left;
    int64_t top_stride;         /* the extent: elements follow one another */
    uint64_t top_count;         /* elements */
    int depth;                  /* frames in use */
    struct uz_dt_frame {
        uint32_t item;          /* current item (frame 0: the elements) */
        uint32_t end;           /* one past the node's last item */
        uintptr_t base;         /* address of this node instance */
        uint64_t rep;           /* copies of the current item started */
    } stack[UZ_DT_CURSOR_FRAMES];
};

void   uz_dt_cursor_init(struct uz_dt_cursor *c, const void *buf, MPI_Count count,
                         const uz_datatype *dt);
/* Move to `offset` bytes into the packed stream (clamped to its end). */
void   uz_dt_cursor_seek(struct uz_dt_cursor *c, size_t offset);
/* Copy the next <= max bytes of the stream to dst; returns bytes copied. */
size_t uz_dt_cursor_pack(struct uz_dt_cursor *c, void *dst, size_t max);
/* Scatter the next <= len bytes of the stream from src into the buffer;
 * returns bytes consumed (less than len only at the end of the stream). */
size_t uz_dt_cursor_unpack(struct uz_dt_cursor *c, const void *src, size_t len);
/* The next runs of user memory as (address, length), adjacent runs
 * merged, covering at most max_bytes of the stream; advances past them.
 * Returns the number of iovecs written (0 at the end), *bytes their total. */
int    uz_dt_cursor_iov(struct uz_dt_cursor *c, struct iovec *iov, int max_iov,
                        size_t max_bytes, size_t *bytes);
size_t uz_dt_cursor_remaining(const struct uz_dt_cursor *c);

/* ------------------------------------------------------- whole buffers */

/* Pack all of (inbuf, count, dt) into out; returns the bytes written
 * (count * dt->size). */
size_t uz_dt_pack(const void *inbuf, MPI_Count count, const uz_datatype *dt, void *out);
/* Unpack up to len bytes of packed data into (outbuf, count, dt); returns
 * the bytes used (min(len, count * dt->size)). */
size_t uz_dt_unpack(void *outbuf, MPI_Count count, const uz_datatype *dt, const void *in,
                    size_t len);

/* ------------------------------------------------------------- queries */

/* Basic elements in the first `bytes` bytes of packed (…, dt) data, for
 * MPI_Get_elements; MPI_UNDEFINED if they end inside an element. */
MPI_Count uz_dt_elements(const uz_datatype *dt, MPI_Count bytes);
/* The inverse, for MPI_Status_set_elements: the packed bytes of the first
 * `elements` basic elements of a stream of dt. */
MPI_Count uz_dt_elements_to_bytes(const uz_datatype *dt, MPI_Count elements);

/* Mean length in bytes of the contiguous runs of one element of dt: how
 * well scatter/gather suits the type.  One iovec per run costs far more
 * than copying a short run, so below a few hundred bytes per run, moving
 * the data through a buffer with the cursor's pack/unpack beats handing
 * iovecs to process_vm_readv (docs/datatypes.md has the measurements). */
size_t uz_dt_mean_run(const uz_datatype *dt);

/* If every basic element of dt is the same predefined type (a MINLOC pair
 * type counts as one), that type, else NULL.  For reductions. */
const uz_datatype *uz_dt_homogeneous_basic(const uz_datatype *dt);

/* ------------------------------------------------------------ external32 */

/* The external32 bytes of (count, dt) (MPI_ERR_COUNT on overflow), and
 * conversions between memory and a packed external32 stream (big-endian,
 * the standard's sizes): MPI_Pack_external and external32 files. */
int  uz_dt_ext32_size(const uz_datatype *dt, MPI_Count count, MPI_Count *bytes);
void uz_dt_ext32_pack(const void *inbuf, MPI_Count count, const uz_datatype *dt, void *out);
void uz_dt_ext32_unpack(void *outbuf, MPI_Count count, const uz_datatype *dt, const void *in);

/* -------------------------------------------- serialized form (one-sided) */

/* A type sent to another rank of the same job (same architecture) and
 * rebuilt there as a committed equivalent: same size, bounds, packed
 * stream and signature.  The form is the flattened layout plus a header. */
size_t uz_dt_serialized_size(const uz_datatype *dt);
void   uz_dt_serialize(const uz_datatype *dt, void *buf);
/* Rebuild; the result is owned by the caller (release with uz_dt_release).
 * A malformed buffer gives MPI_ERR_TYPE, never a crash. */
int    uz_dt_deserialize(const void *buf, size_t len, uz_datatype **out);

/* ------------------------------------------------------------- lifetime */

void uz_dt_retain(uz_datatype *dt);
/* A new type like MPI_Type_dup's (combiner MPI_COMBINER_DUP), or an error. */
int uz_dt_dup(uz_datatype *oldtype, uz_datatype **out);
void uz_dt_release(uz_datatype *dt);

#endif /* UZ_DATATYPE_DT_ENGINE_H */
