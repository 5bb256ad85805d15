/*
 * comm_inter.c — intercommunicators: MPI_Intercomm_create (and its
 * group-based form), MPI_Intercomm_merge and MPI_Comm_create on an
 * intercommunicator; and MPI_Comm_create_from_group, which shares the
 * group-based bootstrap.
 *
 * An intercommunicator needs a context id free in both groups: each group
 * ANDs its members' bitmaps, the two leaders swap their results (and
 * whatever else the other side must know: group members, the "high" flag
 * of a merge), and each leader broadcasts the combined answer to its
 * group — one agreement (comm_agree.h) with the leader exchange turned
 * on.  It takes two pairs: the intercommunicator's own, and one for its
 * local_comm (an intracommunicator over the local group that the
 * collectives use); a pair free in both groups is free in each.
 *
 * The group-based constructors have no parent communicator: they agree
 * over MPI_COMM_WORLD's processes on the bootstrap context
 * (UZ_CTX_BOOTSTRAP), with a tag derived from the string tag.  The
 * runtime has that context whether MPI_Init or MPI_Session_init started
 * it.  A communicator made from a session's groups derives from the
 * session: it starts with the session's error handler when given
 * MPI_ERRHANDLER_NULL, and buffered sends fall back on its buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/lock.h"
#include "base/runtime.h"
#include "core/comm_impl.h"
#include "core/info.h"
#include "core/session.h"
#include "pt2pt/proc_table.h"

static int no_mem(void)
{
    return uz_err_make(MPI_ERR_NO_MEM, "out of memory creating an intercommunicator");
}

static void release_ids(const uint32_t *ids, int npairs)
{
    for (int i = 0; i < npairs; i++)
        uz_ctx_release(ids[i]);
}

/* World ranks of a group, malloc'd. */
static int *world_ranks_of(const uz_group *g)
{
    int *w = malloc(sizeof(int) * (size_t)(g->size + 1));
    if (w)
        for (int i = 0; i < g->size; i++)
            w[i] = uz_group_world_rank(g, i);
    return w;
}

/* The members of the agreement over comm's ranks with `leader` first. */
static int *rotated_members(int n, int leader)
{
    int *m = malloc(sizeof(int) * (size_t)n);
    if (m)
        for (int i = 0; i < n; i++)
            m[i] = (leader + i) % n;
    return m;
}

static int groups_overlap(const uz_group *a, const uz_group *b)
{
    for (int i = 0; i < b->size; i++)
        if (uz_group_rank_of_world(a, uz_group_world_rank(b, i)) != MPI_UNDEFINED)
            return 1;
    return 0;
}

/* Make and activate the intercommunicator (local, remote) with ids[2];
 * takes over the group references. */
static int make_intercomm(uz_group *local, uz_group *remote, uz_comm *parent, const uint32_t *ids,
                          uz_errhandler *eh, MPI_Comm *out)
{
    uz_session *session = local->session;
    uz_comm *c = uz_comm_new(local, remote);
    if (!c) {
        release_ids(ids, 2);
        return no_mem();
    }
    int err = uz_comm_activate(c, parent, ids[0], ids[1]);
    if (!err && !parent && session) {
        uz_session_comm_attach(c, session);
        if (!eh)
            eh = uz_session_errhandler(session);
    }
    if (!err && eh) {
        uz_errhandler_retain(eh);
        uz_errhandler_release(c->errhandler);
        c->errhandler = eh;
    }
    if (err) {
        uz_comm_discard(c);
        return err;
    }
    uz_comm_return(c, out);
    return MPI_SUCCESS;
}

/* ------------------------------------------------- MPI_Intercomm_create */

int uz_mpi_Intercomm_create(uz_comm *local_comm, int local_leader, uz_comm *peer_comm,
                            int remote_leader, int tag, MPI_Comm *newintercomm)
{
    if (local_comm->is_inter)
        return uz_err_make(MPI_ERR_COMM, "local_comm must be an intracommunicator");
    if (local_leader < 0 || local_leader >= local_comm->size)
        return uz_err_make(MPI_ERR_RANK, "invalid local_leader %d for a communicator of size %d",
                           local_leader, local_comm->size);
    int leader = local_comm->rank == local_leader;
    if (leader && !peer_comm)
        return uz_err_make(MPI_ERR_COMM, "invalid communicator (argument peer_comm)");
    if (leader && (remote_leader < 0 || remote_leader >= peer_comm->remote_size))
        return uz_err_make(MPI_ERR_RANK, "invalid remote_leader %d for peer_comm of size %d",
                           remote_leader, peer_comm->remote_size);
    if (leader && uz_comm_peer_world_rank(peer_comm, remote_leader) == uz_rt.world_rank)
        return uz_err_make(MPI_ERR_RANK, "remote_leader %d is the local leader itself",
                           remote_leader);

    int *members = rotated_members(local_comm->size, local_leader);
    int *mine = leader ? world_ranks_of(local_comm->local_group) : NULL;
    if (!members || (leader && !mine)) {
        free(members);
        free(mine);
        return no_mem();
    }
    struct uz_agree_spec spec = {
        .comm = local_comm, .ctx = local_comm->context_id + 1,
        .n = local_comm->size, .members = members,
        .me = (local_comm->rank - local_leader + local_comm->size) % local_comm->size,
        .nwords = UZ_AGREE_WORDS,
    };
    if (leader) {
        spec.xcomm = peer_comm;
        spec.xctx = peer_comm->context_id;      /* the user's tag on peer_comm, as MPI says */
        spec.xtag = tag;
        spec.xpeer = remote_leader;
        spec.xsend = mine;
        spec.xsend_bytes = sizeof(int) * (size_t)local_comm->size;
    }
    uint32_t ids[2];
    struct uz_agree *a;
    uz_lock();
    spec.tag = uz_comm_next_agree_tag(local_comm);
    int err = uz_ctx_agree(&spec, local_comm->context_id, NULL, 2, 1, ids, &a);
    uz_unlock();
    free(members);
    free(mine);
    if (err)
        return err;

    size_t bytes;
    const int *theirs = uz_agree_blob(a, &bytes);
    uz_group *remote = uz_group_from_world_ranks((int)(bytes / sizeof(int)), theirs);
    uz_agree_free_unlocked(a);
    if (!remote) {
        release_ids(ids, 2);
        return no_mem();
    }
    if (remote->size == 0 || groups_overlap(local_comm->local_group, remote)) {
        uz_group_release(remote);
        release_ids(ids, 2);
        return uz_err_make(MPI_ERR_COMM, "the local and remote groups of MPI_Intercomm_create "
                           "overlap (or the remote one is empty)");
    }
    uz_group_retain(local_comm->local_group);
    return make_intercomm(local_comm->local_group, remote, local_comm, ids, NULL, newintercomm);
}

/* ------------------------------------------------- MPI_Intercomm_merge */

int uz_mpi_Intercomm_merge(uz_comm *intercomm, int high, MPI_Comm *newintracomm)
{
    if (!intercomm->is_inter)
        return uz_err_make(MPI_ERR_COMM, "MPI_Intercomm_merge needs an intercommunicator");
    int flag = high != 0;
    struct uz_agree_spec spec;
    uint32_t id;
    struct uz_agree *a;
    uz_lock();
    uz_agree_spec_for(intercomm, &spec);
    spec.xsend = &flag;
    spec.xsend_bytes = sizeof(flag);
    int err = uz_ctx_agree(&spec, intercomm->context_id, NULL, 1, 1, &id, &a);
    uz_unlock();
    if (err)
        return err;
    size_t bytes;
    const int *theirs = uz_agree_blob(a, &bytes);
    int remote_high = bytes >= sizeof(int) ? *theirs != 0 : 0;
    uz_agree_free_unlocked(a);

    /* The "low" group comes first; on a tie, the group whose leader comes
     * first in the order of processes, which both sides compute alike
     * even when the groups are of two jobs (pt2pt/proc_table.h). */
    const uz_group *lg = intercomm->local_group, *rg = intercomm->remote_group;
    int local_first = flag != remote_high ? !flag
                    : uz_proc_order(uz_group_world_rank(lg, 0), uz_group_world_rank(rg, 0)) < 0;
    const uz_group *first = local_first ? lg : rg, *second = local_first ? rg : lg;
    int n = first->size + second->size;
    int *w = malloc(sizeof(int) * (size_t)n);
    if (!w) {
        uz_ctx_release(id);
        return no_mem();
    }
    for (int i = 0; i < first->size; i++)
        w[i] = uz_group_world_rank(first, i);
    for (int i = 0; i < second->size; i++)
        w[first->size + i] = uz_group_world_rank(second, i);
    uz_group *g = uz_group_from_world_ranks(n, w);
    free(w);
    uz_comm *c = g ? uz_comm_new(g, NULL) : NULL;
    if (!c) {
        uz_ctx_release(id);
        return no_mem();
    }
    if ((err = uz_comm_activate(c, intercomm, id, 0))) {
        uz_comm_discard(c);
        return err;
    }
    uz_comm_return(c, newintracomm);
    return MPI_SUCCESS;
}

/* ------------------------------------- MPI_Comm_create on an intercomm */

int uz_comm_create_inter(uz_comm *comm, uz_group *group, MPI_Comm *newcomm)
{
    for (int i = 0; i < group->size; i++)
        if (uz_group_rank_of_world(comm->local_group, uz_group_world_rank(group, i)) == MPI_UNDEFINED)
            return uz_err_make(MPI_ERR_GROUP, "group member %d is not in the local group of the "
                               "intercommunicator", i);
    int *mine = world_ranks_of(group);
    if (!mine)
        return no_mem();
    struct uz_agree_spec spec;
    uint32_t ids[2];
    struct uz_agree *a;
    uz_lock();
    uz_agree_spec_for(comm, &spec);
    spec.xsend = mine;
    spec.xsend_bytes = sizeof(int) * (size_t)group->size;
    int err = uz_ctx_agree(&spec, comm->context_id, NULL, 2, 1, ids, &a);
    uz_unlock();
    free(mine);
    if (err)
        return err;
    size_t bytes;
    const int *theirs = uz_agree_blob(a, &bytes);
    uz_group *remote = NULL;
    if (bytes && group->my_rank != MPI_UNDEFINED)
        remote = uz_group_from_world_ranks((int)(bytes / sizeof(int)), theirs);
    uz_agree_free_unlocked(a);
    if (!remote) {
        release_ids(ids, 2);
        *newcomm = MPI_COMM_NULL;
        return bytes && group->my_rank != MPI_UNDEFINED ? no_mem() : MPI_SUCCESS;
    }
    uz_group_retain(group);
    return make_intercomm(group, remote, comm, ids, NULL, newcomm);
}

/* ------------------------------------------------ group-based bootstrap */

/* A tag for the bootstrap context from a string tag (FNV-1a). */
static int bootstrap_tag(const char *stringtag)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)stringtag; *p; p++)
        h = (h ^ *p) * 16777619u;
    return (int)(h & 0x3fffffff);
}

/* An agreement over the processes of `group` (world ranks), `leader`
 * first, on the bootstrap context. */
static int bootstrap_spec(const uz_group *group, int leader, const char *stringtag,
                          struct uz_agree_spec *spec, int **members)
{
    if (!uz_is_running())
        return uz_err_make(MPI_ERR_OTHER, "group-based communicator creation needs MPI_Init or "
                           "MPI_Session_init first");
    if (group->my_rank == MPI_UNDEFINED)
        return uz_err_make(MPI_ERR_GROUP, "the calling process is not a member of the group");
    int n = group->size;
    int *m = malloc(sizeof(int) * (size_t)n);
    if (!m)
        return no_mem();
    for (int i = 0; i < n; i++)
        m[i] = uz_group_world_rank(group, (leader + i) % n);
    memset(spec, 0, sizeof(*spec));
    spec->comm = &uz_comm_world;
    spec->ctx = UZ_CTX_BOOTSTRAP;
    spec->tag = bootstrap_tag(stringtag);
    spec->n = n;
    spec->members = m;
    spec->me = (group->my_rank - leader + n) % n;
    spec->nwords = UZ_AGREE_WORDS;
    *members = m;
    return MPI_SUCCESS;
}

int uz_mpi_Comm_create_from_group(uz_group *group, const char *stringtag, uz_info *info,
                                  uz_errhandler *errhandler, MPI_Comm *newcomm)
{
    struct uz_agree_spec spec;
    int *members;
    int err = bootstrap_spec(group, 0, stringtag, &spec, &members);
    if (err)
        return err;
    uint32_t id;
    uz_lock();
    err = uz_ctx_agree(&spec, UZ_CTX_BOOTSTRAP, NULL, 1, 1, &id, NULL);
    uz_unlock();
    free(members);
    if (err)
        return err;
    uz_group_retain(group);
    uz_comm *c = uz_comm_new(group, NULL);
    if (!c) {
        uz_ctx_release(id);
        return no_mem();
    }
    if ((err = uz_comm_activate(c, NULL, id, 0))) {
        uz_comm_discard(c);
        return err;
    }
    if (group->session) {
        uz_session_comm_attach(c, group->session);
        if (!errhandler)
            errhandler = uz_session_errhandler(group->session);
    }
    if (errhandler) {
        uz_errhandler_retain(errhandler);
        uz_errhandler_release(c->errhandler);
        c->errhandler = errhandler;
    }
    uz_comm_return(c, newcomm);
    return MPI_SUCCESS;
}

int uz_mpi_Intercomm_create_from_groups(uz_group *local_group, int local_leader,
                                        uz_group *remote_group, int remote_leader,
                                        const char *stringtag, uz_info *info,
                                        uz_errhandler *errhandler, MPI_Comm *newintercomm)
{
    if (local_leader < 0 || local_leader >= local_group->size)
        return uz_err_make(MPI_ERR_RANK, "invalid local_leader %d for a group of size %d",
                           local_leader, local_group->size);
    if (remote_leader < 0 || remote_leader >= remote_group->size)
        return uz_err_make(MPI_ERR_RANK, "invalid remote_leader %d for a group of size %d",
                           remote_leader, remote_group->size);
    if (groups_overlap(local_group, remote_group))
        return uz_err_make(MPI_ERR_GROUP, "local_group and remote_group overlap");
    struct uz_agree_spec spec;
    int *members;
    int err = bootstrap_spec(local_group, local_leader, stringtag, &spec, &members);
    if (err)
        return err;
    spec.xcomm = &uz_comm_world;
    spec.xctx = UZ_CTX_BOOTSTRAP;
    spec.xtag = spec.tag;
    spec.xpeer = uz_group_world_rank(remote_group, remote_leader);
    uint32_t ids[2];
    uz_lock();
    err = uz_ctx_agree(&spec, UZ_CTX_BOOTSTRAP, NULL, 2, 1, ids, NULL);
    uz_unlock();
    free(members);
    if (err)
        return err;
    uz_group_retain(local_group);
    uz_group_retain(remote_group);
    return make_intercomm(local_group, remote_group, NULL, ids, errhandler, newintercomm);
}
