/*
 * hwtopo_hwloc.c — the topology from hwloc, loaded with dlopen.
 *
 * Compiled with hwloc's headers when the build found them (UZ_HAVE_HWLOC,
 * src/CMakeLists.txt) but never linked to libhwloc: the library and mpiexec
 * must start on a machine without it, and then read /sys instead
 * (hwtopo_sysfs.c) and say why.  Only exported functions are called
 * through pointers; hwloc's inline helpers would call the library directly,
 * so the walk over the objects is done here by depth.
 *
 * Keys given to hwtopo.c: one per object (its depth and logical index),
 * so that a type found at several depths (caches on hybrid CPUs) still
 * names distinct instances.  I/O objects are not wanted and not loaded.
 */
#include <stdio.h>

#include "base/hwtopo.h"

#ifdef UZ_HAVE_HWLOC

#include <dlfcn.h>
#include <hwloc.h>

/* The soname of hwloc 2.x (Debian's libhwloc15): the ABI the headers describe. */
static const char hwloc_soname[] = "libhwloc.so.15";

struct hwloc_api {
    __typeof__(&hwloc_get_api_version) get_api_version;
    __typeof__(&hwloc_topology_init) topology_init;
    __typeof__(&hwloc_topology_set_io_types_filter) set_io_types_filter;
    __typeof__(&hwloc_topology_load) topology_load;
    __typeof__(&hwloc_topology_destroy) topology_destroy;
    __typeof__(&hwloc_topology_get_depth) get_depth;
    __typeof__(&hwloc_get_depth_type) get_depth_type;
    __typeof__(&hwloc_get_nbobjs_by_depth) get_nbobjs_by_depth;
    __typeof__(&hwloc_get_obj_by_depth) get_obj_by_depth;
    __typeof__(&hwloc_bitmap_next) bitmap_next;
};

static int api_symbol(void *handle, const char *name, void **out, char *why, size_t whylen)
{
    *out = dlsym(handle, name);
    if (!*out)
        snprintf(why, whylen, "%s lacks %s", hwloc_soname, name);
    return *out ? 0 : -1;
}

static int api_load(struct hwloc_api *api, char *why, size_t whylen)
{
    void *h = dlopen(hwloc_soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, whylen, "%s cannot be loaded (%s)", hwloc_soname, dlerror());
        return -1;
    }
    struct { const char *name; void **slot; } syms[] = {
        { "hwloc_get_api_version", (void **)&api->get_api_version },
        { "hwloc_topology_init", (void **)&api->topology_init },
        { "hwloc_topology_set_io_types_filter", (void **)&api->set_io_types_filter },
        { "hwloc_topology_load", (void **)&api->topology_load },
        { "hwloc_topology_destroy", (void **)&api->topology_destroy },
        { "hwloc_topology_get_depth", (void **)&api->get_depth },
        { "hwloc_get_depth_type", (void **)&api->get_depth_type },
        { "hwloc_get_nbobjs_by_depth", (void **)&api->get_nbobjs_by_depth },
        { "hwloc_get_obj_by_depth", (void **)&api->get_obj_by_depth },
        { "hwloc_bitmap_next", (void **)&api->bitmap_next },
    };
    for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
        if (api_symbol(h, syms[i].name, syms[i].slot, why, whylen) < 0)
            return -1;
    /* Objects are read by their layout in the headers: the major API
     * version must be the one they describe. */
    unsigned version = api->get_api_version();
    if (version >> 16 != HWLOC_API_VERSION >> 16) {
        snprintf(why, whylen, "%s has API version %#x, this build expects %#x", hwloc_soname, version,
                 HWLOC_API_VERSION);
        return -1;
    }
    /* The handle stays open: the topology is read at most a few times. */
    return 0;
}

static int level_of_type(hwloc_obj_type_t type)
{
    switch (type) {
    case HWLOC_OBJ_NUMANODE: return UZ_HWTOPO_NUMANODE;
    case HWLOC_OBJ_PACKAGE: return UZ_HWTOPO_SOCKET;
    case HWLOC_OBJ_L3CACHE: return UZ_HWTOPO_L3CACHE;
    case HWLOC_OBJ_L2CACHE: return UZ_HWTOPO_L2CACHE;
    case HWLOC_OBJ_L1CACHE: return UZ_HWTOPO_L1CACHE;
    case HWLOC_OBJ_CORE: return UZ_HWTOPO_CORE;
    case HWLOC_OBJ_PU: return UZ_HWTOPO_HWTHREAD;
    default: return -1;
    }
}

/* Record the objects of one depth in the table. */
static void depth_read(const struct hwloc_api *api, hwloc_topology_t topo, int depth, struct uz_hwtopo *t)
{
    int level = level_of_type(api->get_depth_type(topo, depth));
    if (level < 0)
        return;
    unsigned n = api->get_nbobjs_by_depth(topo, depth);
    for (unsigned i = 0; i < n; i++) {
        hwloc_obj_t obj = api->get_obj_by_depth(topo, depth, i);
        if (!obj || !obj->cpuset)
            continue;
        int key = (depth + 16) * (1 << 20) + (int)(obj->logical_index & 0xfffff);
        for (int cpu = api->bitmap_next(obj->cpuset, -1); cpu >= 0 && cpu < CPU_SETSIZE;
             cpu = api->bitmap_next(obj->cpuset, cpu)) {
            t->instance[level][cpu] = key;
            if (level == UZ_HWTOPO_HWTHREAD && cpu + 1 > t->ncpus)
                t->ncpus = cpu + 1;
        }
    }
}

int uz_hwtopo_read_hwloc(struct uz_hwtopo *t, char *why, size_t whylen)
{
    static struct hwloc_api api;
    static int loaded;          /* 1 loaded, -1 failed (why is then kept in failure) */
    static char failure[256];
    if (loaded == 0)
        loaded = api_load(&api, failure, sizeof(failure)) == 0 ? 1 : -1;
    if (loaded < 0) {
        snprintf(why, whylen, "%s", failure);
        return -1;
    }
    hwloc_topology_t topo;
    if (api.topology_init(&topo) != 0) {
        snprintf(why, whylen, "hwloc_topology_init failed");
        return -1;
    }
    api.set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE);
    if (api.topology_load(topo) != 0) {
        api.topology_destroy(topo);
        snprintf(why, whylen, "hwloc_topology_load failed");
        return -1;
    }
    int depth = api.get_depth(topo);
    for (int d = 0; d < depth; d++)
        depth_read(&api, topo, d, t);
    depth_read(&api, topo, HWLOC_TYPE_DEPTH_NUMANODE, t);
    api.topology_destroy(topo);
    unsigned v = api.get_api_version();
    snprintf(t->source, sizeof(t->source), "hwloc (%s, API %u.%u)", hwloc_soname, v >> 16,
             (v >> 8) & 0xff);
    if (t->ncpus == 0)
        snprintf(why, whylen, "hwloc found no processor");
    return t->ncpus > 0 ? 0 : -1;
}

#else /* !UZ_HAVE_HWLOC */

int uz_hwtopo_read_hwloc(struct uz_hwtopo *t, char *why, size_t whylen)
{
    (void)t;
    snprintf(why, whylen, "this build has no hwloc support (hwloc.h was not found when it was configured)");
    return -1;
}

#endif
