/*
 * info.h — MPI_Info objects: an ordered list of (key, value) strings.
 */
#ifndef UZ_CORE_INFO_H
#define UZ_CORE_INFO_H

#include "base/object.h"

struct uz_info_entry {
    char *key;
    char *value;
};

typedef struct MPI_ABI_Info {
    struct uz_object obj;
    int nentries;
    int capacity;
    struct uz_info_entry *entries;
} uz_info;

extern uz_info uz_info_env;     /* MPI_INFO_ENV, filled at start-up */

/* MPI_INFO_NULL converts to NULL, which every function here accepts as an
 * empty info; an invalid handle also gives NULL, so callers that must tell
 * the two apart check the handle first. */
static inline uz_info *uz_info_get(MPI_Info h)
{
    if (uz_handle_is_predefined(h))
        return h == MPI_INFO_ENV ? &uz_info_env : NULL;
    return uz_object_check(h, UZ_MAGIC_INFO);
}

static inline MPI_Info uz_info_handle(uz_info *info)
{
    if (info == NULL) return MPI_INFO_NULL;
    if (info == &uz_info_env) return MPI_INFO_ENV;
    return (MPI_Info)info;
}

uz_info *uz_info_new(void);
uz_info *uz_info_dup(const uz_info *src);           /* src may be NULL */
void uz_info_free(uz_info *info);
void uz_info_clear(uz_info *info);                  /* remove every key */
int uz_info_set(uz_info *info, const char *key, const char *value);
const char *uz_info_lookup(const uz_info *info, const char *key);   /* or NULL */
void uz_info_env_init(void);

/* Add the keys of MPI_INFO_ENV to info: command and argv from argc/argv
 * (when argc is 0, from the process's own command line), then maxprocs,
 * soft, host, arch, wdir, thread_level.  Before MPI_Init too.  Returns 0,
 * or -1 when out of memory. */
int uz_info_env_fill(uz_info *info, int argc, char **argv);

#endif /* UZ_CORE_INFO_H */
