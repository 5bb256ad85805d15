/*
 * ofi_dl.c — loading libfabric at run time.
 *
 * The library is built and runs without libfabric: it is opened with
 * dlopen only when a pair of ranks chooses ofi (UZURA_NET=ofi), and a
 * machine without it gets an error that says so instead of a library that
 * fails to load.  Only the few real functions of libfabric's API are
 * looked up; the fi_* calls of the headers are inline and go through the
 * objects' ops tables.
 */
#ifdef UZ_HAVE_LIBFABRIC

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "base/errors.h"
#include "transport/ofi/ofi.h"

struct ofi_lib ofi_lib;
static void *handle;

static int missing(const char *what)
{
    return uz_err_make(MPI_ERR_OTHER, "ofi: %s (UZURA_NET=ofi needs libfabric 1.9 or later: on Debian "
                       "`apt-get install libfabric1`, or put its directory in LD_LIBRARY_PATH)", what);
}

static int lookup(void **fn, const char *name)
{
    *fn = dlsym(handle, name);
    return *fn ? 0 : -1;
}

int ofi_dl_load(void)
{
    if (handle)
        return MPI_SUCCESS;
    handle = dlopen("libfabric.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        char what[512];
        const char *e = dlerror();
        snprintf(what, sizeof(what), "cannot load libfabric.so.1: %s", e ? e : "not found");
        return missing(what);
    }
    static const struct { size_t offset; const char *name; } syms[] = {
        { offsetof(struct ofi_lib, getinfo), "fi_getinfo" },
        { offsetof(struct ofi_lib, freeinfo), "fi_freeinfo" },
        { offsetof(struct ofi_lib, dupinfo), "fi_dupinfo" },
        { offsetof(struct ofi_lib, fabric), "fi_fabric" },
        { offsetof(struct ofi_lib, strerror), "fi_strerror" },
        { offsetof(struct ofi_lib, version), "fi_version" },
    };
    for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
        if (lookup((void **)((char *)&ofi_lib + syms[i].offset), syms[i].name) != 0) {
            char what[128];
            snprintf(what, sizeof(what), "libfabric.so.1 has no %s", syms[i].name);
            dlclose(handle);
            handle = NULL;
            return missing(what);
        }
    }
    return MPI_SUCCESS;
}

void ofi_dl_unload(void)
{
    /* Kept loaded: provider threads and atexit handlers may still point
     * into it after close. */
}

#endif /* UZ_HAVE_LIBFABRIC */
