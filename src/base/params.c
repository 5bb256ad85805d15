/*
 * params.c — the table of tunables and its parser.
 *
 * A misspelled variable is the commonest tuning mistake (Open MPI issue #3),
 * so any UZURA_* variable that is not in this table draws a warning.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/params.h"
#include "base/params_coll.h"

struct uz_config uz_config;

#define FIELD(f) offsetof(struct uz_config, f)

/* ------------------------------------------------ words of enum tunables */

static const struct uz_param_choice shm_cma_choices[] = {
    { UZ_SHM_CMA_AUTO, "auto", NULL },
    { UZ_SHM_CMA_ON, "on", NULL },
    { UZ_SHM_CMA_OFF, "off", NULL },
    { 0, NULL, NULL },
};

static const struct uz_param_choice shm_fence_choices[] = {
    { UZ_SHM_FENCE_AUTO, "auto", "senders skip the fence and a rank going to sleep issues membarrier(2), where every rank on the host could register for it" },
    { UZ_SHM_FENCE_FULL, "full", "every record a sender publishes is followed by a full fence" },
    { 0, NULL, NULL },
};

static const struct uz_param_choice trace_choices[] = {
    { UZ_TRACE_NONE, "none", "nothing is recorded" },
    { UZ_TRACE_STAGES, "stages", "stamp each stage of every message (UZURA_Trace_stages, docs/performance.md)" },
    { 0, NULL, NULL },
};

/* Each collective's table from its list in params_coll.h. */
#define COLL_CHOICE(id, word, help) { id, word, help },
#define COLL_CHOICES(list) { list(COLL_CHOICE) { 0, NULL, NULL } }
static const struct uz_param_choice coll_barrier_choices[] = COLL_CHOICES(UZ_COLL_BARRIER_ALGORITHMS);
static const struct uz_param_choice coll_bcast_choices[] = COLL_CHOICES(UZ_COLL_BCAST_ALGORITHMS);
static const struct uz_param_choice coll_reduce_choices[] = COLL_CHOICES(UZ_COLL_REDUCE_ALGORITHMS);
static const struct uz_param_choice coll_allreduce_choices[] = COLL_CHOICES(UZ_COLL_ALLREDUCE_ALGORITHMS);
static const struct uz_param_choice coll_gather_choices[] = COLL_CHOICES(UZ_COLL_GATHER_ALGORITHMS);
static const struct uz_param_choice coll_scatter_choices[] = COLL_CHOICES(UZ_COLL_SCATTER_ALGORITHMS);
static const struct uz_param_choice coll_allgather_choices[] = COLL_CHOICES(UZ_COLL_ALLGATHER_ALGORITHMS);
static const struct uz_param_choice coll_alltoall_choices[] = COLL_CHOICES(UZ_COLL_ALLTOALL_ALGORITHMS);
static const struct uz_param_choice coll_alltoallv_choices[] = COLL_CHOICES(UZ_COLL_ALLTOALLV_ALGORITHMS);
static const struct uz_param_choice coll_reduce_scatter_choices[] =
    COLL_CHOICES(UZ_COLL_REDUCE_SCATTER_ALGORITHMS);
static const struct uz_param_choice coll_scan_choices[] = COLL_CHOICES(UZ_COLL_SCAN_ALGORITHMS);
#undef COLL_CHOICES
#undef COLL_CHOICE

/* ------------------------------------------------------------ the table */

const struct uz_param uz_params[] = {
    { "VERBOSE", UZ_PARAM_INT, "0",
      "Print what the library chooses at start-up (transports, fallbacks): 0 silent, 1 rank 0, 2 every rank",
      NULL, FIELD(verbose), UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE },
    { "PROFILE", UZ_PARAM_STRING, "",
      "Directory where each rank writes its traffic profile (rank-N.prof: calls, time inside MPI, bytes per destination, message sizes) at MPI_Finalize; `mpiexec --profile` sets it and merges the files into a report (docs/profile.md); empty: off",
      NULL, FIELD(profile), UZ_PARAM_TUNABLE },


    /* Request layer */
    { "EAGER_LIMIT", UZ_PARAM_SIZE, "0",
      "Messages up to this size go eagerly to ranks on this host (copied through the ring; 0: 64k when every rank "
      "has a processor, 16k when ranks share them); "
      "larger ones by rendezvous (one copy)",
      NULL, FIELD(eager_limit), UZ_PARAM_TUNABLE },
    { "NET_EAGER_LIMIT", UZ_PARAM_SIZE, "512k",
      "Messages up to this size go eagerly to ranks on other hosts; larger ones by rendezvous",
      NULL, FIELD(net_eager_limit), UZ_PARAM_TUNABLE },
    { "WAIT_SPIN_US", UZ_PARAM_INT, "-1",
      "Microseconds a waiting rank polls before yielding the core (-1: 50 when every rank has a core, 0 when oversubscribed)",
      NULL, FIELD(wait_spin_us), UZ_PARAM_TUNABLE },
    { "WAIT_YIELD_US", UZ_PARAM_INT, "-1",
      "Microseconds a waiting rank yields before sleeping until a peer wakes it (-1: automatic)",
      NULL, FIELD(wait_yield_us), UZ_PARAM_TUNABLE },
    { "WAIT_SLEEP_MAX_US", UZ_PARAM_INT, "2000",
      "Longest a rank sleeps waiting for a message before it looks again (a safety net: the sender rings its "
      "doorbell); 0: until rung, for tests, so that a lost wake-up hangs instead of costing this long",
      NULL, FIELD(wait_sleep_max_us), UZ_PARAM_TUNABLE },

    /* One-sided communication */
    { "ASYNC_PROGRESS", UZ_PARAM_INT, "0",
      "1: a thread per rank serves one-sided requests from ranks that reach it by messages (other hosts), so their "
      "operations complete while the rank computes; also on for a window whose info sets uzura_async_progress=true",
      NULL, FIELD(async_progress), UZ_PARAM_TUNABLE },

    /* MPI-IO */
    { "IO_AGGREGATORS", UZ_PARAM_INT, "0",
      "Collective I/O aggregators per host (0: as many as the host has cores and ranks); the cb_nodes hint "
      "overrides it for a file",
      NULL, FIELD(io_aggregators), UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "IO_CB_BUFFER", UZ_PARAM_SIZE, "16m",
      "Bytes of file each collective I/O aggregator gathers per round (the default of the cb_buffer_size hint)",
      NULL, FIELD(io_cb_buffer), UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "IO_CB_MIN_RUN", UZ_PARAM_SIZE, "16k",
      "A collective access whose ranks interleave goes through aggregators (two-phase) only when its contiguous "
      "pieces in the file average fewer bytes than this; longer pieces are read and written by their own ranks "
      "(the romio_cb_read/romio_cb_write hints override it)",
      NULL, FIELD(io_cb_min_run), UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },

    /* Network transports */
    { "NET", UZ_PARAM_STRING, "tcp",
      "Network transports between ranks on different hosts, comma-separated in order of preference: tcp (one connection per peer), udp (the GigaE PM reliable-datagram protocol), ofi (libfabric: RDMA fabrics, UZURA_OFI_PROVIDER); a pair of ranks uses the first in the lower rank's list that the other lists too",
      NULL, FIELD(net), UZ_PARAM_TUNABLE },
    { "NET_IF", UZ_PARAM_STRING, "",
      "Comma-separated network interfaces to publish (default: every interface that is up, loopback only within a host)",
      NULL, FIELD(net_if), UZ_PARAM_TUNABLE },
    { "SHM", UZ_PARAM_BOOL, "1",
      "Use shared memory between ranks of the same host (0: use the network transport between them too)",
      NULL, FIELD(shm), UZ_PARAM_TUNABLE },

    /* tcp transport: one connection per peer pair (docs/transports-net.md) */
    { "TCP_RECORD", UZ_PARAM_SIZE, "512k",
      "tcp: payload bytes of the largest record the request layer hands over at once (rendezvous data goes in records this big)",
      NULL, FIELD(tcp_record), UZ_PARAM_TUNABLE },
    { "TCP_QUEUE", UZ_PARAM_SIZE, "256k",
      "tcp: bytes of small records a rank copies behind a busy connection before it refuses more",
      NULL, FIELD(tcp_queue), UZ_PARAM_TUNABLE },
    { "TCP_SNDBUF", UZ_PARAM_SIZE, "0",
      "tcp: SO_SNDBUF of each connection (0: the kernel's default, which grows as needed)",
      NULL, FIELD(tcp_sndbuf), UZ_PARAM_TUNABLE },
    { "TCP_RCVBUF", UZ_PARAM_SIZE, "0",
      "tcp: SO_RCVBUF of each connection (0: the kernel's default, which grows as needed)",
      NULL, FIELD(tcp_rcvbuf), UZ_PARAM_TUNABLE },

    /* ofi transport: libfabric (docs/transports-net.md) */
    { "OFI_PROVIDER", UZ_PARAM_STRING, "",
      "ofi (UZURA_NET=ofi): the libfabric provider, as fi_info -l names it (\"verbs;ofi_rxm\", \"efa\", \"cxi\", \"tcp;ofi_rxm\", \"udp;ofi_rxd\"; empty: libfabric's own order, shm only when named)",
      NULL, FIELD(ofi_provider), UZ_PARAM_TUNABLE },
    { "OFI_PEER_TIMEOUT", UZ_PARAM_DOUBLE, "600",
      "ofi: seconds a silent peer may refuse our messages (ofi_rxm cannot connect) or leave them unacknowledged (ofi_rxd) before it is declared dead",
      NULL, FIELD(ofi_peer_timeout), UZ_PARAM_TUNABLE },

    /* udp transport: the GigaE PM protocol (docs/transports-net.md) */
    { "UDP_MTU", UZ_PARAM_SIZE, "0",
      "udp: MTU of the path between hosts (0: the interface's; 9000 for jumbo frames); datagrams are cut to fit",
      NULL, FIELD(udp_mtu), UZ_PARAM_TUNABLE },
    { "UDP_RECORD", UZ_PARAM_SIZE, "512k",
      "udp: payload bytes of the largest record the request layer hands over at once (segmented into datagrams)",
      NULL, FIELD(udp_record), UZ_PARAM_TUNABLE },
    { "UDP_WINDOW", UZ_PARAM_INT, "1024",
      "udp: send window N, in datagrams in flight to one peer (rounded up to a power of two)",
      NULL, FIELD(udp_window), UZ_PARAM_TUNABLE },
    { "UDP_WINDOW_BYTES", UZ_PARAM_SIZE, "4m",
      "udp: bytes of one peer's window, which caps UDP_WINDOW for large datagrams",
      NULL, FIELD(udp_window_bytes), UZ_PARAM_TUNABLE },
    { "UDP_SOCKBUF", UZ_PARAM_SIZE, "8m",
      "udp: send and receive buffer of the socket (the receive buffer is what STOP/GO watches)",
      NULL, FIELD(udp_sockbuf), UZ_PARAM_TUNABLE },
    { "UDP_RTO_US", UZ_PARAM_INT, "10000",
      "udp: first retransmission timeout T in microseconds (doubles on each expiry)",
      NULL, FIELD(udp_rto_us), UZ_PARAM_TUNABLE },
    { "UDP_RTO_MAX_US", UZ_PARAM_INT, "500000",
      "udp: largest retransmission timeout in microseconds", NULL, FIELD(udp_rto_max_us), UZ_PARAM_TUNABLE },
    { "UDP_PEER_TIMEOUT", UZ_PARAM_DOUBLE, "600",
      "udp: seconds a peer may leave our data unacknowledged before it is declared dead",
      NULL, FIELD(udp_peer_timeout), UZ_PARAM_TUNABLE },
    { "UDP_RETRIES", UZ_PARAM_INT, "0",
      "udp: retransmissions without an answer before the peer is declared dead (0: only UDP_PEER_TIMEOUT counts)",
      NULL, FIELD(udp_retries), UZ_PARAM_TUNABLE },
    { "UDP_HOLD_US", UZ_PARAM_INT, "200",
      "udp: how long a large send read from the user's buffer waits for its ACK before its unacknowledged bytes are copied so the send completes without it",
      NULL, FIELD(udp_hold_us), UZ_PARAM_TUNABLE },
    { "UDP_ACK_EVERY", UZ_PARAM_INT, "256",
      "udp: send an ACK of its own after this many datagrams (otherwise it rides on reverse traffic); at most a quarter of UDP_WINDOW",
      NULL, FIELD(udp_ack_every), UZ_PARAM_TUNABLE },
    { "UDP_ACK_DELAY_US", UZ_PARAM_INT, "200",
      "udp: longest an ACK waits for reverse traffic to ride on, in microseconds",
      NULL, FIELD(udp_ack_delay_us), UZ_PARAM_TUNABLE },
    { "UDP_STOP_HIGH", UZ_PARAM_DOUBLE, "0.5",
      "udp: receive-queue fill (fraction of the socket buffer) above which senders get STOP",
      NULL, FIELD(udp_stop_high), UZ_PARAM_TUNABLE },
    { "UDP_STOP_LOW", UZ_PARAM_DOUBLE, "0.125",
      "udp: receive-queue fill below which stopped senders get GO", NULL, FIELD(udp_stop_low), UZ_PARAM_TUNABLE },
    { "UDP_MAC_PAYLOAD", UZ_PARAM_BOOL, "0",
      "udp: the keyed MAC covers the payload too, not only the header (integrity beyond the UDP checksum)",
      NULL, FIELD(udp_mac_payload), UZ_PARAM_TUNABLE },
    { "UDP_ETHER", UZ_PARAM_BOOL, "0",
      "udp: raw Ethernet frames with EtherType 0x88B5 instead of UDP datagrams (needs CAP_NET_RAW)",
      NULL, FIELD(udp_ether), UZ_PARAM_TUNABLE },
    { "UDP_GSO", UZ_PARAM_BOOL, "1",
      "udp: segmentation offload: runs of segments leave as one UDP_SEGMENT send and arrive coalesced (UDP_GRO)",
      NULL, FIELD(udp_gso), UZ_PARAM_TUNABLE },
    { "UDP_FAULTS", UZ_PARAM_STRING, "",
      "udp, for tests: drop, duplicate and reorder outgoing datagrams, e.g. loss=0.1,dup=0.05,reorder=0.2,seed=1",
      NULL, FIELD(udp_faults), UZ_PARAM_TUNABLE },

    /* Shared-memory transport */
    { "SHM_RING_SIZE", UZ_PARAM_SIZE, "0",
      "Bytes of the ring that carries messages from one rank to another on the same host (power of two); 0: 256k, halved down to 64k while a rank's rings would take more than 4m",
      NULL, FIELD(shm_ring_size), UZ_PARAM_TUNABLE },
    { "SHM_RING_HOT", UZ_PARAM_SIZE, "8k",
      "Bytes at the start of each ring that a sender goes back to as soon as the receiver has read them (when it has read everything, or little comes back the other way), so that a stream keeps to lines still in the first-level cache; the rest of the ring takes bursts; 0: go round the whole ring",
      NULL, FIELD(shm_ring_hot), UZ_PARAM_TUNABLE },
    { "SHM_FRAGMENT", UZ_PARAM_SIZE, "8k",
      "Largest piece of a message written to a ring at once (an eager message of two pieces is copied out by the receiver while the sender writes the second)",
      NULL, FIELD(shm_fragment), UZ_PARAM_TUNABLE },
    { "SHM_CMA", UZ_PARAM_ENUM, "auto",
      "Large messages by cross-memory attach (process_vm_readv): auto (if it works), on (fail if not), off (copy through the ring)",
      shm_cma_choices, FIELD(shm_cma), UZ_PARAM_TUNABLE },
    { "SHM_FENCE", UZ_PARAM_ENUM, "auto",
      "The fence between a sender publishing a record and reading whether its receiver sleeps: auto (one-sided by membarrier where the kernel has it), full (every record fenced)",
      shm_fence_choices, FIELD(shm_fence), UZ_PARAM_TUNABLE },
    { "SHM_BULK_CHUNK", UZ_PARAM_SIZE, "128k",
      "Bytes a rank claims at a time when sender and receiver copy a large message together",
      NULL, FIELD(shm_bulk_chunk), UZ_PARAM_TUNABLE },
    { "SHM_BULK_RECORDS", UZ_PARAM_INT, "64",
      "Large sends a rank can have offered at once (more wait their turn)", NULL,
      FIELD(shm_bulk_records), UZ_PARAM_TUNABLE },
    { "SHM_STAGED_MAX", UZ_PARAM_SIZE, "512k",
      "Largest rendezvous between a contiguous buffer and one of short runs that the strided side copies alone through a staging buffer (larger ones are packed through the ring by both ranks)",
      NULL, FIELD(shm_staged_max), UZ_PARAM_TUNABLE },
    { "SHM_BULK_HELP", UZ_PARAM_BOOL, "1",
      "A waiting sender helps copy its large message into the receiver's memory",
      NULL, FIELD(shm_bulk_help), UZ_PARAM_TUNABLE },
    { "SHM_BULK_PREFAULT", UZ_PARAM_BOOL, "1",
      "A receiver pulling a large message into memory it has not written yet makes the pages present in one call per chunk (MADV_POPULATE_WRITE) instead of a fault per page",
      NULL, FIELD(shm_bulk_prefault), UZ_PARAM_TUNABLE },

    /* Collectives: algorithm choices (auto: by message size and ranks,
     * see docs/collectives.md) and the sizes where auto switches. */
    { "COLL_BARRIER", UZ_PARAM_ENUM, "auto", "Barrier algorithm", coll_barrier_choices, FIELD(coll_barrier),
      UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_BCAST", UZ_PARAM_ENUM, "auto", "Bcast algorithm", coll_bcast_choices, FIELD(coll_bcast),
      UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_REDUCE", UZ_PARAM_ENUM, "auto", "Reduce algorithm", coll_reduce_choices, FIELD(coll_reduce),
      UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_ALLREDUCE", UZ_PARAM_ENUM, "auto", "Allreduce algorithm", coll_allreduce_choices,
      FIELD(coll_allreduce), UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_GATHER", UZ_PARAM_ENUM, "auto", "Gather(v) algorithm", coll_gather_choices, FIELD(coll_gather),
      UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_SCATTER", UZ_PARAM_ENUM, "auto", "Scatter(v) algorithm", coll_scatter_choices, FIELD(coll_scatter),
      UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_ALLGATHER", UZ_PARAM_ENUM, "auto", "Allgather(v) algorithm", coll_allgather_choices,
      FIELD(coll_allgather), UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_ALLTOALL", UZ_PARAM_ENUM, "auto", "Alltoall algorithm", coll_alltoall_choices, FIELD(coll_alltoall),
      UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_ALLTOALLV", UZ_PARAM_ENUM, "auto", "Alltoallv/Alltoallw algorithm", coll_alltoallv_choices,
      FIELD(coll_alltoallv), UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_REDUCE_SCATTER", UZ_PARAM_ENUM, "auto", "Reduce_scatter(_block) algorithm",
      coll_reduce_scatter_choices, FIELD(coll_reduce_scatter), UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_SCAN", UZ_PARAM_ENUM, "auto", "Scan/Exscan algorithm", coll_scan_choices, FIELD(coll_scan),
      UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_BCAST_LONG", UZ_PARAM_SIZE, "128k",
      "Bcast messages from this size use scatter_allgather when auto", NULL, FIELD(coll_bcast_long), UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_REDUCE_LONG", UZ_PARAM_SIZE, "128k",
      "Reduce messages from this size use reduce_scatter_gather when auto", NULL, FIELD(coll_reduce_long),
      UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_ALLREDUCE_LONG", UZ_PARAM_SIZE, "64k",
      "Allreduce messages from this size use rabenseifner or ring when auto", NULL, FIELD(coll_allreduce_long),
      UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_ALLGATHER_LONG", UZ_PARAM_SIZE, "64k",
      "Allgather results from this total size use ring when auto", NULL, FIELD(coll_allgather_long),
      UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_ALLTOALL_SHORT", UZ_PARAM_SIZE, "256",
      "Alltoall blocks up to this size use bruck when auto (with 8 ranks or more)", NULL,
      FIELD(coll_alltoall_short), UZ_PARAM_TUNABLE, UZ_PARAM_EVERY_USE_ALL_EQ },
    { "COLL_SHM_MAX", UZ_PARAM_SIZE, "64k",
      "Largest message synchronizing collectives (barrier, allreduce, allgather, alltoall, reduce_scatter) take "
      "through shared memory when auto and every rank has a core (more ranks than cores: any size); 0: never "
      "use shared memory", NULL, FIELD(coll_shm_max), UZ_PARAM_TUNABLE },
    { "COLL_SHM_ROOTED_MIN", UZ_PARAM_SIZE, "256",
      "Rooted collectives (bcast, reduce, gather, scatter) use shared memory when auto only with more ranks "
      "than cores and for messages above this size", NULL, FIELD(coll_shm_rooted_min), UZ_PARAM_TUNABLE },
    { "COLL_PULL_MIN", UZ_PARAM_SIZE, "16k",
      "Alltoall and Allgather(v) blocks from this size (Allgatherv: the mean block; Reduce_scatter: the "
      "block; Allreduce, with a core per rank: the vector over the ranks; Gather and Scatter: see their "
      "algorithms), between ranks of one host that can read each other's memory (cross-memory attach), are "
      "pulled by each receiver straight from the sender's buffer: one copy instead of two through the shared "
      "area; 0: never", NULL, FIELD(coll_pull_min), UZ_PARAM_TUNABLE },
    { "COLL_SLEEP_MAX_US", UZ_PARAM_INT, "2000",
      "Longest a rank sleeps waiting in a collective's shared area before it looks again (a safety net: the "
      "rank it waits for rings its doorbell); 0: until rung, for tests, so that a missing ring hangs instead "
      "of costing this long", NULL, FIELD(coll_sleep_max_us), UZ_PARAM_TUNABLE },
    { "COLL_SHM_SLOT", UZ_PARAM_SIZE, "64k",
      "Bytes per rank in a communicator's shared collective area (larger messages go through in pieces)", NULL,
      FIELD(coll_shm_slot), UZ_PARAM_TUNABLE },

    /* Dynamic processes: ports, names, spawn (docs/dynamic-processes.md) */
    { "PORT_TIMEOUT", UZ_PARAM_DOUBLE, "60",
      "MPI_Comm_connect: seconds to reach the port and be accepted before failing with MPI_ERR_PORT; also how long an accepting root waits for a connecting process to introduce itself",
      NULL, FIELD(port_timeout), UZ_PARAM_TUNABLE },
    { "NAME_DIR", UZ_PARAM_STRING, "",
      "MPI_Publish_name without a name service in the launcher: the directory of published names (empty: $XDG_RUNTIME_DIR/uzura-names, else /tmp/uzura-names-<uid>; created private to the user)",
      NULL, FIELD(name_dir), UZ_PARAM_TUNABLE },

    /* Memory allocation kinds (MPI-4.1 §11.4.3, docs/sessions.md) */
    { "MEMORY_ALLOC_KINDS", UZ_PARAM_STRING, "",
      "The memory allocation kinds the World Model requests (info key mpi_memory_alloc_kinds; set by mpiexec -memory-alloc-kinds); empty: mpi,system. Uzura supports system and mpi (restrictors alloc_mem, win_allocate, win_allocate_shared)",
      NULL, FIELD(memory_alloc_kinds), UZ_PARAM_TUNABLE },

    /* Topology and binding (docs/binding.md); BIND_TO and MAP_BY are read by mpiexec. */
    { "HWLOC", UZ_PARAM_BOOL, "1",
      "Read the machine's topology with hwloc (libhwloc.so.15) when it can be loaded; 0: from /sys", NULL,
      FIELD(hwloc), UZ_PARAM_TUNABLE },
    { "BIND_TO", UZ_PARAM_STRING, "",
      "mpiexec: bind each rank to a core|hwthread|socket|numa or none, as -bind-to (empty: cores when every "
      "rank has one, else none)", NULL, FIELD(bind_to), UZ_PARAM_TUNABLE },
    { "MAP_BY", UZ_PARAM_STRING, "",
      "mpiexec: the order ranks take the objects they are bound to, core|hwthread|socket|numa|slot, as -map-by",
      NULL, FIELD(map_by), UZ_PARAM_TUNABLE },

    /* Tracing (docs/performance.md "Per-stage latency breakdown") */
    { "TRACE", UZ_PARAM_ENUM, "none",
      "stages: stamp each stage of every message's path (send entry, transport enqueue, arrival, matching, copy, "
      "completion) with the cycle counter into a per-process ring that the program reads with UZURA_Trace_stages "
      "(uzura_ext.h); none: record nothing (costs one predicted branch per stage)",
      trace_choices, FIELD(trace), UZ_PARAM_TUNABLE },
    { "TRACE_RECORDS", UZ_PARAM_INT, "65536",
      "UZURA_TRACE=stages: stamps each process keeps (24 bytes each); a full ring overwrites the oldest",
      NULL, FIELD(trace_records), UZ_PARAM_TUNABLE },
    { "TRACE_FILE", UZ_PARAM_STRING, "",
      "UZURA_TRACE=stages: at MPI_Finalize each rank writes the stamps still in its ring (those the program did "
      "not read) as text to <this>.<world rank> (empty: no file)",
      NULL, FIELD(trace_file), UZ_PARAM_TUNABLE },

    /* Given to every rank by mpiexec. */
    { "JOB_ID", UZ_PARAM_STRING, "",
      "Job identifier (names the job's shared-memory segments)", NULL, FIELD(job_id), UZ_PARAM_LAUNCHER },
    { "JOB_KEY", UZ_PARAM_STRING, "",
      "Random key every rank presents to its peers; strangers without it are dropped",
      NULL, FIELD(job_key), UZ_PARAM_LAUNCHER },
    { "LOCAL_RANK", UZ_PARAM_INT, "-1", "Rank among the processes on this host", NULL,
      FIELD(local_rank), UZ_PARAM_LAUNCHER },
    { "LOCAL_SIZE", UZ_PARAM_INT, "-1", "Processes of the job on this host", NULL,
      FIELD(local_size), UZ_PARAM_LAUNCHER },
    { "NODE_ID", UZ_PARAM_INT, "-1", "Which host of the job this is", NULL,
      FIELD(node_id), UZ_PARAM_LAUNCHER },
    { "NUM_NODES", UZ_PARAM_INT, "-1", "How many hosts the job runs on", NULL,
      FIELD(num_nodes), UZ_PARAM_LAUNCHER },
    { "LOCAL_CPUS", UZ_PARAM_INT, "0", "CPUs mpiexec may use on this host (0: not told)", NULL,
      FIELD(local_cpus), UZ_PARAM_LAUNCHER },
};

const int uz_nparams = sizeof(uz_params) / sizeof(uz_params[0]);

static const char *type_name(enum uz_param_type t)
{
    switch (t) {
    case UZ_PARAM_BOOL: return "bool";
    case UZ_PARAM_INT: return "int";
    case UZ_PARAM_SIZE: return "size";
    case UZ_PARAM_DOUBLE: return "double";
    case UZ_PARAM_STRING: return "string";
    case UZ_PARAM_ENUM: return "enum";
    }
    return "?";
}

static int parse_bool(const char *s, int *out)
{
    static const char *const yes[] = { "1", "yes", "true", "on", "y" };
    static const char *const no[] = { "0", "no", "false", "off", "n" };
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(s, yes[i]) == 0) { *out = 1; return 0; }
        if (strcasecmp(s, no[i]) == 0) { *out = 0; return 0; }
    }
    return -1;
}

static int parse_int(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 0);
    if (errno || end == s || *end || v < INT32_MIN || v > INT32_MAX)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s || *s == '-')
        return -1;
    unsigned long long mult = 1;
    switch (tolower((unsigned char)*end)) {
    case 'k': mult = 1ull << 10; end++; break;
    case 'm': mult = 1ull << 20; end++; break;
    case 'g': mult = 1ull << 30; end++; break;
    default: break;
    }
    if (tolower((unsigned char)*end) == 'b' || tolower((unsigned char)*end) == 'i')
        end++;
    if (*end || v > SIZE_MAX / mult)
        return -1;
    *out = (size_t)(v * mult);
    return 0;
}

static int parse_enum(const char *s, const struct uz_param_choice *choices, int *out)
{
    for (const struct uz_param_choice *c = choices; c->word; c++) {
        if (strcasecmp(c->word, s) == 0) {
            *out = c->value;
            return 0;
        }
    }
    return -1;
}

void uz_param_choice_words(const struct uz_param *p, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (const struct uz_param_choice *c = p->choices; c && c->word && used < len; c++) {
        int n = snprintf(buf + used, len - used, "%s%s", c == p->choices ? "" : "|", c->word);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

static int parse_one(const struct uz_param *p, const char *value, char *err, size_t errlen)
{
    void *slot = (char *)&uz_config + p->offset;
    int rc = 0;
    switch (p->type) {
    case UZ_PARAM_BOOL: rc = parse_bool(value, slot); break;
    case UZ_PARAM_INT: rc = parse_int(value, slot); break;
    case UZ_PARAM_SIZE: rc = parse_size(value, slot); break;
    case UZ_PARAM_ENUM: rc = parse_enum(value, p->choices, slot); break;
    case UZ_PARAM_DOUBLE: {
        char *end;
        double d = strtod(value, &end);
        rc = (end == value || *end) ? -1 : 0;
        if (!rc)
            *(double *)slot = d;
        break;
    }
    case UZ_PARAM_STRING: {
        char **s = slot;
        free(*s);
        *s = strdup(value);
        rc = *s ? 0 : -1;
        break;
    }
    }
    if (rc) {
        char words[512];
        uz_param_choice_words(p, words, sizeof(words));
        snprintf(err, errlen, "UZURA_%s=\"%s\" is not a valid %s%s%s%s", p->name, value, type_name(p->type),
                 p->choices ? " (choose one of " : "", words, p->choices ? ")" : "");
    }
    return rc;
}

int uz_param_set(const struct uz_param *p, const char *value, char *err, size_t errlen)
{
    return parse_one(p, value, err, errlen);    /* a bad value leaves the slot as it was */
}

static const struct uz_param *find_param(const char *name, size_t len)
{
    for (int i = 0; i < uz_nparams; i++)
        if (strlen(uz_params[i].name) == len && strncmp(uz_params[i].name, name, len) == 0)
            return &uz_params[i];
    return NULL;
}

int uz_params_load(char *err, size_t errlen, FILE *warn)
{
    extern char **environ;
    for (int i = 0; i < uz_nparams; i++) {
        const struct uz_param *p = &uz_params[i];
        char var[128];
        snprintf(var, sizeof(var), "UZURA_%s", p->name);
        const char *value = getenv(var);
        if (parse_one(p, p->default_value, err, errlen) != 0)
            return -1;          /* a bad default is a bug in the table */
        if (value && parse_one(p, value, err, errlen) != 0)
            return -1;
    }
    for (char **e = environ; warn && e && *e; e++) {
        if (strncmp(*e, "UZURA_", 6) != 0)
            continue;
        const char *name = *e + 6;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        if (!find_param(name, len))
            fprintf(warn, "Uzura: warning: %.*s is not a known tunable (see uzura_info)\n",
                    (int)(len + 6), *e);
    }
    return 0;
}

void uz_param_value_string(const struct uz_param *p, char *buf, size_t len)
{
    const void *slot = (const char *)&uz_config + p->offset;
    switch (p->type) {
    case UZ_PARAM_BOOL: snprintf(buf, len, "%s", *(const int *)slot ? "1" : "0"); break;
    case UZ_PARAM_INT: snprintf(buf, len, "%d", *(const int *)slot); break;
    case UZ_PARAM_SIZE: snprintf(buf, len, "%zu", *(const size_t *)slot); break;
    case UZ_PARAM_DOUBLE: snprintf(buf, len, "%g", *(const double *)slot); break;
    case UZ_PARAM_STRING: snprintf(buf, len, "%s", *(char *const *)slot ? *(char *const *)slot : ""); break;
    case UZ_PARAM_ENUM: {
        const struct uz_param_choice *c = p->choices;
        while (c->word && c->value != *(const int *)slot)
            c++;
        snprintf(buf, len, "%s", c->word ? c->word : "");
        break;
    }
    }
}

void uz_params_print(FILE *out)
{
    for (int scope = UZ_PARAM_TUNABLE; scope <= UZ_PARAM_LAUNCHER; scope++) {
        fprintf(out, scope == UZ_PARAM_TUNABLE ? "Tunables (environment variables):\n"
                                               : "\nSet by mpiexec for each rank:\n");
        for (int i = 0; i < uz_nparams; i++) {
            const struct uz_param *p = &uz_params[i];
            if ((int)p->scope != scope)
                continue;
            char value[256];
            uz_param_value_string(p, value, sizeof(value));
            fprintf(out, "  UZURA_%-28s %-6s default %-10s current %s\n", p->name, type_name(p->type),
                    p->default_value[0] ? p->default_value : "\"\"", value[0] ? value : "\"\"");
            char words[512];
            uz_param_choice_words(p, words, sizeof(words));
            fprintf(out, "      %s%s%s\n", p->help, p->choices ? "; one of " : "", words);
            for (const struct uz_param_choice *c = p->choices; c && c->word; c++)
                if (c->help)
                    fprintf(out, "        %-20s %s\n", c->word, c->help);
        }
    }
}
