/*
 * dpm_connect.c — MPI_Comm_accept and MPI_Comm_connect, and the collective
 * part every way of meeting another job shares (spawn, join): after the
 * roots met (dpm_meet.c), every member learns the other side's processes,
 * numbers them (pt2pt/proc_table.h) and the intercommunicator is made.
 *
 * Steps, over the local communicator:
 *   1. gather every member's descriptor at the root;
 *   2. the root meets the other root and swaps the lists;
 *   3. broadcast the outcome (an error class, or the other side's list);
 *   4. every member numbers the other side's processes: now it can send
 *      to them, and the remote group is those numbers;
 *   5. agree on two context-id pairs free in both jobs, as
 *      MPI_Intercomm_create does (comm_agree.h), the roots exchanging
 *      over a two-process "bridge" communicator on the bootstrap context
 *      with the meeting's tag.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/lock.h"
#include "coll/coll.h"
#include "core/comm_impl.h"
#include "core/dpm.h"
#include "core/info.h"
#include "pt2pt/proc_table.h"

/* What the root broadcasts after the meeting. */
struct outcome {
    int err_class;                      /* MPI_SUCCESS or the root's error class */
    int n;                              /* processes on the other side */
    int tag;
    int other_root;                     /* the other root's index in its side's descriptors */
};

static int no_mem(void)
{
    return uz_err_make(MPI_ERR_NO_MEM, "out of memory");
}

/* A communicator of this root and the other one, for the leaders'
 * exchange of the context agreement; never handed out. */
static uz_comm *bridge_new(int other_root)
{
    uz_group *me = uz_group_from_world_ranks(1, &uz_rt.world_rank);
    uz_group *them = uz_group_from_world_ranks(1, &other_root);
    if (!me || !them) {
        if (me)
            uz_group_release(me);
        if (them)
            uz_group_release(them);
        return NULL;
    }
    uz_comm *b = uz_comm_new(me, them);
    if (b) {
        b->context_id = UZ_CTX_BOOTSTRAP;
        uz_comm_p2p_update(b);
    }
    return b;
}

/* Steps 4 and 5: number the other side and make the intercommunicator. */
static int make_intercomm(uz_comm *comm, int root, const struct outcome *o, const char *descs,
                          MPI_Comm *newcomm)
{
    int *members = malloc(sizeof(int) * (size_t)o->n);
    if (!members)
        return no_mem();
    int err = MPI_SUCCESS;
    for (int i = 0; i < o->n && !err; i++)
        err = uz_proc_add(descs + (size_t)i * UZ_PROC_DESC_MAX, &members[i]);
    uz_comm *bridge = NULL;
    if (!err && comm->rank == root && !(bridge = bridge_new(members[o->other_root])))
        err = no_mem();
    /* Every member must take part in the agreement even when its own
     * numbering failed, or the others would wait: a failed one offers no
     * context ids and reports its error after. */
    int *order = malloc(sizeof(int) * (size_t)comm->size);
    if (!order) {
        free(members);
        if (bridge)
            uz_comm_release(bridge);
        return no_mem();
    }
    for (int i = 0; i < comm->size; i++)
        order[i] = (root + i) % comm->size;
    struct uz_agree_spec spec = {
        .comm = comm, .ctx = comm->context_id + 1, .n = comm->size, .members = order,
        .me = (comm->rank - root + comm->size) % comm->size, .nwords = UZ_AGREE_WORDS,
    };
    if (bridge) {
        spec.xcomm = bridge;
        spec.xctx = UZ_CTX_BOOTSTRAP;
        spec.xtag = -1 - o->tag;
        spec.xpeer = 0;
    }
    uint32_t ids[2];
    uz_lock();
    spec.tag = uz_comm_next_agree_tag(comm);
    int aerr = uz_ctx_agree(&spec, comm->context_id, NULL, 2, !err, ids, NULL);
    uz_unlock();
    free(order);
    if (bridge)
        uz_comm_release(bridge);
    if (!err)
        err = aerr;
    if (err) {
        if (!aerr) {
            uz_ctx_release(ids[0]);
            uz_ctx_release(ids[1]);
        }
        free(members);
        return err;
    }
    uz_group *remote = uz_group_from_world_ranks(o->n, members);
    free(members);
    uz_comm *c = remote ? (uz_group_retain(comm->local_group), uz_comm_new(comm->local_group, remote)) : NULL;
    if (!c) {
        uz_ctx_release(ids[0]);
        uz_ctx_release(ids[1]);
        return no_mem();
    }
    if ((err = uz_comm_activate(c, comm, ids[0], ids[1]))) {
        uz_comm_discard(c);
        return err;
    }
    uz_comm_return(c, newcomm);
    return MPI_SUCCESS;
}

int uz_dpm_meet_collective(uz_comm *comm, int root, uz_meet_fn meet, void *arg,
                           MPI_Comm *newcomm)
{
    if (comm->is_inter)
        return uz_err_make(MPI_ERR_COMM, "comm must be an intracommunicator");
    if (root < 0 || root >= comm->size)
        return uz_err_make(MPI_ERR_ROOT, "invalid root %d for a communicator of size %d", root,
                           comm->size);
    uz_datatype *bytes = uz_datatype_get(MPI_BYTE), *ints = uz_datatype_get(MPI_INT);
    char *mine = calloc(1, UZ_PROC_DESC_MAX);
    int is_root = comm->rank == root;
    struct uz_meet_side local = { comm->size, is_root ? calloc((size_t)comm->size, UZ_PROC_DESC_MAX) : NULL, root };
    if (!mine || (is_root && !local.descs)) {
        free(mine);
        free(local.descs);
        return no_mem();
    }
    /* A member that cannot describe itself still takes part, with an
     * empty descriptor, so that nobody waits for it; the root then fails. */
    int own = uz_proc_describe_self(mine, UZ_PROC_DESC_MAX);
    int err = uz_coll_gather(mine, UZ_PROC_DESC_MAX, bytes, local.descs, UZ_PROC_DESC_MAX, bytes, root, comm);
    free(mine);
    struct outcome o = { 0 };
    struct uz_meet_side remote = { 0, NULL, 0 };
    int root_err = MPI_SUCCESS;
    if (is_root && !err) {
        for (int i = 0; i < comm->size && !root_err; i++)
            if (!local.descs[(size_t)i * UZ_PROC_DESC_MAX])
                root_err = own ? own : uz_err_make(MPI_ERR_OTHER, "rank %d cannot be reached by "
                                                   "other jobs (see its error)", i);
        if (!root_err)
            root_err = meet(arg, &local, &remote, &o.tag);
        o.err_class = root_err ? uz_err_class(root_err) : MPI_SUCCESS;
        o.n = remote.n;
        o.other_root = remote.root;
    }
    free(local.descs);
    if (err)
        return err;
    if ((err = uz_coll_bcast(&o, 4, ints, root, comm))) {
        free(remote.descs);
        return err;
    }
    if (o.err_class) {
        /* Every member says why: the root's message travels with its class
         * (an error code means something only where it was made). */
        char why[MPI_MAX_ERROR_STRING] = "";
        free(remote.descs);
        if (is_root)
            uz_err_string(root_err, why, (int)sizeof(why));
        if ((err = uz_coll_bcast(why, (MPI_Count)sizeof(why), bytes, root, comm)))
            return is_root ? root_err : err;
        why[sizeof(why) - 1] = '\0';
        return is_root ? root_err : uz_err_make(o.err_class, "the root (rank %d) failed: %s", root, why);
    }
    if (!is_root && !(remote.descs = malloc((size_t)o.n * UZ_PROC_DESC_MAX)))
        return no_mem();              /* the others then fail in the agreement */
    err = uz_coll_bcast(remote.descs, (MPI_Count)o.n * UZ_PROC_DESC_MAX, bytes, root, comm);
    if (!err)
        err = make_intercomm(comm, root, &o, remote.descs, newcomm);
    free(remote.descs);
    return err;
}

/* ------------------------------------------------------------ accept, connect */

struct port_arg {
    const char *port_name;
};

static int meet_accept(void *arg, const struct uz_meet_side *mine, struct uz_meet_side *theirs, int *tag)
{
    const struct port_arg *a = arg;
    const uint8_t *secret;
    uz_lock();
    int fd = uz_port_listener(a->port_name, &secret);
    uz_unlock();
    if (fd < 0)
        return uz_err_make(MPI_ERR_PORT, "\"%.100s\" is not a port this process opened (MPI_Open_port "
                           "at the root)", a->port_name);
    return uz_meet_accept(fd, secret, mine, theirs, tag);
}

static int meet_connect(void *arg, const struct uz_meet_side *mine, struct uz_meet_side *theirs, int *tag)
{
    const struct port_arg *a = arg;
    struct uz_port_addr port;
    int err = uz_port_parse(a->port_name, &port);
    return err ? err : uz_meet_connect(&port, mine, theirs, tag);
}

int uz_mpi_Comm_accept(const char *port_name, uz_info *info, int root, uz_comm *comm, MPI_Comm *newcomm)
{
    (void)info;
    struct port_arg a = { port_name };
    return uz_dpm_meet_collective(comm, root, meet_accept, &a, newcomm);
}

int uz_dpm_connect(const char *port_name, uz_comm *comm, int root, MPI_Comm *newcomm)
{
    struct port_arg a = { port_name };
    return uz_dpm_meet_collective(comm, root, meet_connect, &a, newcomm);
}

int uz_mpi_Comm_connect(const char *port_name, uz_info *info, int root, uz_comm *comm, MPI_Comm *newcomm)
{
    (void)info;
    return uz_dpm_connect(port_name, comm, root, newcomm);
}
