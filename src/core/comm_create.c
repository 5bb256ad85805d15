/*
 * comm_create.c — making and freeing communicators: the common steps every
 * constructor shares (comm_impl.h), MPI_Comm_dup and its variants,
 * MPI_Comm_create, MPI_Comm_create_group and MPI_Comm_free.
 *
 * Freeing follows the standard: MPI_Comm_free runs the attribute delete
 * callbacks and drops the user's reference at once; operations still
 * pending hold their own references (uz_comm_retain), and the context id,
 * topology and collective state go only when the last one is released
 * (uz_comm_destroy_parts, called by uz_comm_release).
 */
#include <stdlib.h>
#include <string.h>

#include "base/attr.h"
#include "base/errors.h"
#include "base/lock.h"
#include "coll/coll.h"
#include "core/comm_impl.h"
#include "core/dpm.h"
#include "core/info.h"
#include "core/topo.h"
#include "core/p2p_bsend.h"
#include "core/session.h"
#include "pt2pt/pt2pt.h"

/* ------------------------------------------------------ common steps */

int uz_comm_next_agree_tag(uz_comm *parent)
{
    uint32_t seq = parent->coll_seq++;
    return UZ_TAG_AGREE_BASE - (int)(seq & UZ_TAG_AGREE_SPAN);
}

void uz_agree_spec_for(uz_comm *parent, struct uz_agree_spec *spec)
{
    memset(spec, 0, sizeof(*spec));
    int tag = uz_comm_next_agree_tag(parent);
    uz_comm *local = parent->is_inter ? parent->local_comm : parent;
    spec->comm = local;
    spec->ctx = local->context_id + 1;
    spec->tag = tag;
    spec->n = local->size;
    spec->me = local->rank;
    spec->nwords = UZ_AGREE_WORDS;
    if (parent->is_inter) {
        spec->xcomm = parent;
        spec->xctx = parent->context_id + 1;
        spec->xtag = tag;
        spec->xpeer = 0;
    }
}

uz_comm *uz_comm_new(uz_group *local, uz_group *remote)
{
    uz_comm *c = uz_object_alloc(sizeof(*c));
    if (!c) {
        uz_group_release(local);
        if (remote)
            uz_group_release(remote);
        return NULL;
    }
    uz_object_init(&c->obj, UZ_MAGIC_COMM);
    c->local_group = local;
    c->remote_group = remote ? remote : local;
    c->is_inter = remote != NULL;
    c->rank = local->my_rank;
    c->size = local->size;
    c->remote_size = c->remote_group->size;
    c->errhandler = &uz_errhandler_fatal;
    uz_errhandler_retain(c->errhandler);
    return c;
}

/* From here on the ids belong to c: discarding it gives them back. */
int uz_comm_activate(uz_comm *c, uz_comm *parent, uint32_t id, uint32_t local_id)
{
    c->context_id = id;
    c->has_context = 1;
    uz_comm_p2p_update(c);
    if (parent && parent->errhandler) {
        uz_errhandler_retain(parent->errhandler);
        uz_errhandler_release(c->errhandler);
        c->errhandler = parent->errhandler;
    }
    if (parent && parent->session)
        uz_session_comm_attach(c, parent->session);
    if (c->is_inter) {
        uz_group_retain(c->local_group);
        uz_comm *lc = uz_comm_new(c->local_group, NULL);
        if (!lc) {
            uz_ctx_release(local_id);
            return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a communicator");
        }
        c->local_comm = lc;
        int err = uz_comm_activate(lc, NULL, local_id, 0);
        if (err)
            return err;
    }
    int err = uz_coll_comm_init(c);
    if (err)
        return err;
    c->coll_ready = 1;
    return MPI_SUCCESS;
}

void uz_comm_discard(uz_comm *c)
{
    if (!c)
        return;
    uz_attr_delete_all(UZ_ATTR_COMM, uz_comm_handle(c), &c->attrs);
    uz_comm_release(c);
}

void uz_comm_return(uz_comm *c, MPI_Comm *out)
{
    *out = c ? uz_comm_handle(c) : MPI_COMM_NULL;
}

/* Called by uz_comm_release when the last reference goes. */
void uz_comm_destroy_parts(uz_comm *c)
{
    if (c->coll_ready)
        uz_coll_comm_destroy(c);
    if (c->attrs)       /* a communicator discarded half-made, or freed by Finalize */
        uz_attr_delete_all(UZ_ATTR_COMM, uz_comm_handle(c), &c->attrs);
    uz_topo_free(c->topo);
    c->topo = NULL;
    if (c->info)
        uz_info_free(c->info);
    c->info = NULL;
    if (c->local_comm)
        uz_comm_release(c->local_comm);
    c->local_comm = NULL;
    uz_bsend_comm_free(c);
    uz_session_comm_detach(c);
    if (c->has_context)
        uz_ctx_release(c->context_id);
}

/* Agree on the ids of a communicator over all of `parent` (one pair for an
 * intracommunicator result, two for an intercommunicator: its own and its
 * local_comm's). */
static int agree_over(uz_comm *parent, int take, int npairs, uint32_t *ids)
{
    struct uz_agree_spec spec;
    uz_lock();
    uz_agree_spec_for(parent, &spec);
    int err = uz_ctx_agree(&spec, parent->context_id, NULL, npairs, take, ids, NULL);
    uz_unlock();
    return err;
}

/* ------------------------------------------------------------ dup */

/* The dup of `comm` with context ids[], before attributes are copied. */
static int dup_object(uz_comm *comm, const uint32_t *ids, uz_info *info, uz_comm **out)
{
    uz_group_retain(comm->local_group);
    if (comm->is_inter)
        uz_group_retain(comm->remote_group);
    uz_comm *c = uz_comm_new(comm->local_group, comm->is_inter ? comm->remote_group : NULL);
    int err = MPI_SUCCESS;
    if (!c) {
        uz_ctx_release(ids[0]);
        if (comm->is_inter)
            uz_ctx_release(ids[1]);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory duplicating a communicator");
    }
    if ((err = uz_comm_activate(c, comm, ids[0], ids[1])))
        goto fail;
    if (comm->topo && !(c->topo = uz_topo_dup(comm->topo, &err)))
        goto fail;
    if (info && !(c->info = uz_info_dup(info))) {
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory duplicating a communicator");
        goto fail;
    }
    *out = c;
    return MPI_SUCCESS;
fail:
    uz_comm_discard(c);
    return err;
}

/* Copy the attributes: a copy callback that fails makes the dup fail (the
 * other members may well have succeeded; MPI leaves that to the user).
 * The attributes copied before it are deleted again by copy_all; the
 * caller discards the half-made communicator. */
static int dup_attrs(uz_comm *comm, uz_comm *c)
{
    return uz_attr_copy_all(UZ_ATTR_COMM, uz_comm_handle(comm), comm->attrs, uz_comm_handle(c),
                            &c->attrs);
}

static int dup_with(uz_comm *comm, uz_info *info, MPI_Comm *newcomm)
{
    uint32_t ids[2] = { 0, 0 };
    uz_comm *c = NULL;
    /* A failed dup returns MPI_COMM_NULL, as MPICH does, so that a program
     * that checks the handle rather than the code does not use garbage. */
    *newcomm = MPI_COMM_NULL;
    int err = agree_over(comm, 1, comm->is_inter ? 2 : 1, ids);
    if (err)
        return err;
    if ((err = dup_object(comm, ids, info, &c)))
        return err;
    if ((err = dup_attrs(comm, c))) {
        uz_comm_discard(c);
        return err;
    }
    uz_comm_return(c, newcomm);
    return MPI_SUCCESS;
}

int uz_comm_dup_private(uz_comm *comm, uz_comm **out)
{
    uint32_t ids[2] = { 0, 0 };
    int err = agree_over(comm, 1, comm->is_inter ? 2 : 1, ids);
    if (err)
        return err;
    return dup_object(comm, ids, NULL, out);
}

int uz_mpi_Comm_dup(uz_comm *comm, MPI_Comm *newcomm)
{
    return dup_with(comm, comm->info, newcomm);
}

int uz_mpi_Comm_dup_with_info(uz_comm *comm, uz_info *info, MPI_Comm *newcomm)
{
    return dup_with(comm, info, newcomm);
}

/* --------------------------------------------------------- nonblocking dup */

/* MPI_Comm_idup: the communicator object (with its attributes copied) is
 * made at once and its handle returned, as MPICH does; the context id is
 * agreed in the background (the agreement's rounds run from the progress
 * engine) and the request completes when it is set. */
struct idup_state {
    uz_comm *newcomm;
    struct uz_ctx_agreement *agreement;
    uz_request *req;
};

/* Runs inside the progress engine when the agreement finishes. */
static void idup_done(struct uz_ctx_agreement *g, void *arg)
{
    struct idup_state *st = arg;
    uz_comm *c = st->newcomm;
    const uint32_t *ids = uz_ctx_agreement_ids(g);
    int err = uz_ctx_agreement_error(g);
    if (!err && c->is_inter) {
        uz_group_retain(c->local_group);
        uz_comm *lc = uz_comm_new(c->local_group, NULL);
        if (!lc) {
            uz_ctx_release(ids[0]);
            uz_ctx_release(ids[1]);
            err = uz_err_make(MPI_ERR_NO_MEM, "out of memory duplicating a communicator");
        } else {
            c->local_comm = lc;
            lc->context_id = ids[1];
            lc->has_context = 1;
            uz_comm_p2p_update(lc);
        }
    }
    if (!err) {
        c->context_id = ids[0];
        c->has_context = 1;
        uz_comm_p2p_update(c);
        /* uz_coll_comm_init must not communicate here (it may set up
         * lazily, at the first collective). */
        if (!(err = uz_coll_comm_init(c)))
            c->coll_ready = 1;
    }
    st->req->status.MPI_ERROR = err;
    uz_request_complete(st->req);
}

/* The request goes when the user has it back (MPI_Wait and friends), or,
 * after MPI_Request_free, when it completes: the agreement has finished. */
static void idup_destroy(uz_request *req)
{
    struct idup_state *st = req->ops_state;
    uz_ctx_agreement_free(st->agreement);
    free(st);
}

static int idup_poll(uz_request *req)
{
    return 0;
}

static const struct uz_request_ops idup_ops = { .poll = idup_poll, .destroy = idup_destroy };

static int idup_with(uz_comm *comm, uz_info *info, MPI_Comm *newcomm, MPI_Request *request)
{
    struct idup_state *st = calloc(1, sizeof(*st));
    if (!st)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory in MPI_Comm_idup");
    uz_group_retain(comm->local_group);
    if (comm->is_inter)
        uz_group_retain(comm->remote_group);
    uz_comm *c = uz_comm_new(comm->local_group, comm->is_inter ? comm->remote_group : NULL);
    int err = MPI_SUCCESS;
    if (!c) {
        free(st);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory in MPI_Comm_idup");
    }
    uz_errhandler_retain(comm->errhandler);
    uz_errhandler_release(c->errhandler);
    c->errhandler = comm->errhandler;
    if (comm->session)
        uz_session_comm_attach(c, comm->session);
    if (comm->topo && !(c->topo = uz_topo_dup(comm->topo, &err)))
        goto fail;
    if (info && !(c->info = uz_info_dup(info))) {
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory in MPI_Comm_idup");
        goto fail;
    }
    if ((err = dup_attrs(comm, c)))
        goto fail;

    uz_lock();
    st->req = uz_request_new(UZ_REQ_OTHER);
    if (!st->req) {
        uz_unlock();
        err = uz_err_make(MPI_ERR_NO_MEM, "out of memory in MPI_Comm_idup");
        goto fail;
    }
    st->req->comm = comm;          /* errors go to its handler; released with the request */
    uz_comm_retain(comm);
    st->newcomm = c;
    st->req->ops = &idup_ops;
    st->req->ops_state = st;
    struct uz_agree_spec spec;
    uz_agree_spec_for(comm, &spec);
    err = uz_ctx_agreement_start(&spec, comm->context_id, NULL, comm->is_inter ? 2 : 1, 1, 0,
                                 idup_done, st, &st->agreement);
    if (err) {
        st->req->status.MPI_ERROR = err;        /* nothing started: reported at once */
        uz_request_complete(st->req);
        uz_request_release(st->req);            /* frees st */
        uz_unlock();
        uz_comm_discard(c);
        return err;
    }
    uz_unlock();
    *request = uz_request_handle(st->req);
    uz_comm_return(c, newcomm);
    return MPI_SUCCESS;
fail:
    free(st);
    uz_comm_discard(c);
    *newcomm = MPI_COMM_NULL;
    *request = MPI_REQUEST_NULL;
    return err;
}

int uz_mpi_Comm_idup(uz_comm *comm, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup_with(comm, comm->info, newcomm, request);
}

int uz_mpi_Comm_idup_with_info(uz_comm *comm, uz_info *info, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup_with(comm, info, newcomm, request);
}

/* ------------------------------------------------------------ create */

/* Is every member of `group` a member of comm's local group? */
static int check_subgroup(uz_comm *comm, const uz_group *group)
{
    for (int i = 0; i < group->size; i++) {
        int w = uz_group_world_rank(group, i);
        if (uz_group_rank_of_world(comm->local_group, w) == MPI_UNDEFINED)
            return uz_err_make(MPI_ERR_GROUP, "group member %d (world rank %d) is not in the "
                               "communicator", i, w);
    }
    return MPI_SUCCESS;
}

int uz_mpi_Comm_create(uz_comm *comm, uz_group *group, MPI_Comm *newcomm)
{
    if (comm->is_inter)
        return uz_comm_create_inter(comm, group, newcomm);
    int err = check_subgroup(comm, group);
    if (err)
        return err;
    int member = group->my_rank != MPI_UNDEFINED;
    uint32_t id;
    if ((err = agree_over(comm, member, 1, &id)))
        return err;
    if (!member) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    uz_group_retain(group);
    uz_comm *c = uz_comm_new(group, NULL);
    if (!c) {
        uz_ctx_release(id);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a communicator");
    }
    if ((err = uz_comm_activate(c, comm, id, 0))) {
        uz_comm_discard(c);
        return err;
    }
    uz_comm_return(c, newcomm);
    return MPI_SUCCESS;
}

int uz_mpi_Comm_create_group(uz_comm *comm, uz_group *group, int tag, MPI_Comm *newcomm)
{
    if (comm->is_inter)
        return uz_err_make(MPI_ERR_COMM, "MPI_Comm_create_group needs an intracommunicator");
    if (tag < 0)
        return uz_err_make(MPI_ERR_TAG, "invalid tag %d", tag);
    int err = check_subgroup(comm, group);
    if (err)
        return err;
    if (group->my_rank == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    int *members = malloc(sizeof(int) * (size_t)group->size);
    if (!members)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a communicator");
    for (int i = 0; i < group->size; i++)
        members[i] = uz_group_rank_of_world(comm->local_group, uz_group_world_rank(group, i));
    struct uz_agree_spec spec = {
        .comm = comm, .ctx = comm->context_id + 1,
        .tag = UZ_TAG_GROUP_BASE + (tag & UZ_TAG_GROUP_SPAN),
        .n = group->size, .members = members, .me = group->my_rank, .nwords = UZ_AGREE_WORDS,
    };
    uint32_t id;
    uz_lock();
    err = uz_ctx_agree(&spec, comm->context_id, NULL, 1, 1, &id, NULL);
    uz_unlock();
    free(members);
    if (err)
        return err;
    uz_group_retain(group);
    uz_comm *c = uz_comm_new(group, NULL);
    if (!c) {
        uz_ctx_release(id);
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating a communicator");
    }
    if ((err = uz_comm_activate(c, comm, id, 0))) {
        uz_comm_discard(c);
        return err;
    }
    uz_comm_return(c, newcomm);
    return MPI_SUCCESS;
}

/* -------------------------------------------------------------- free */

int uz_comm_delete_attrs(uz_comm *c)
{
    return uz_attr_delete_all(UZ_ATTR_COMM, uz_comm_handle(c), &c->attrs);
}

int uz_mpi_Comm_free(MPI_Comm *comm)
{
    uz_comm *c = uz_comm_get(*comm);
    if (!c)
        return uz_err_make(MPI_ERR_COMM, "invalid communicator (argument comm)");
    if (c == &uz_comm_world || c == &uz_comm_self)
        return uz_err_make(MPI_ERR_COMM, "cannot free the predefined communicator %s", c->name);
    int err = uz_comm_delete_attrs(c);
    if (err)
        return err;
    *comm = MPI_COMM_NULL;
    uz_dpm_forget(c);                   /* MPI_Comm_get_parent says MPI_COMM_NULL from now on */
    uz_comm_release(c);
    return MPI_SUCCESS;
}
