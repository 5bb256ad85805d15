/*
 * alloc_kinds.h — memory allocation kinds (MPI-4.1 §12.4.3, "Memory
 * Allocation Info"): which of the kinds a user requests through the info
 * key "mpi_memory_alloc_kinds" this library supports.
 */
#ifndef UZ_CORE_ALLOC_KINDS_H
#define UZ_CORE_ALLOC_KINDS_H

struct MPI_ABI_Info;
struct MPI_ABI_Comm;

/* The info key, and what is requested when nobody says (the standard's default). */
#define UZ_ALLOC_KINDS_KEY "mpi_memory_alloc_kinds"
#define UZ_ALLOC_KINDS_DEFAULT "mpi,system"

/* The entries of `requested` (a comma-separated list of kind[:restrictor...])
 * that Uzura supports, in the order given, each once; a malloc'd string,
 * empty when none is (the standard's "no kinds"), or NULL without memory. */
char *uz_alloc_kinds_supported(const char *requested);

/* The kinds objects of the World Model support: UZURA_MEMORY_ALLOC_KINDS
 * (mpiexec -memory-alloc-kinds) filtered, else the default; computed once. */
const char *uz_alloc_kinds_world(void);

/* Put the key into `info` for communicator c (MPI_Comm_get_info): what c's
 * session or the World Model supports, narrowed to the kinds the user gave
 * c in the same key, if any.  0, or -1 without memory. */
int uz_alloc_kinds_report(const struct MPI_ABI_Comm *c, struct MPI_ABI_Info *info);

#endif /* UZ_CORE_ALLOC_KINDS_H */
