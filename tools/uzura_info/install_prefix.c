/*
 * install_prefix.c — where this copy of Uzura is installed, found at run
 * time from the program's own location.
 *
 * The prefix the build was configured with (CMAKE_INSTALL_PREFIX) is not the
 * answer: `make install PREFIX=...` and `cmake --install --prefix` put the
 * same build anywhere, and a staged (DESTDIR) or moved tree lives elsewhere
 * again.  What is certain is where this program is: uzura_info is installed
 * as PREFIX/bin/uzura_info, so the prefix is the directory above the one
 * /proc/self/exe is in (already free of symbolic links, so a link to it
 * from another bin directory still names the real tree).
 *
 * The copy in the build tree (build/bin/uzura_info) is not installed
 * anywhere: it says so rather than calling the build tree a prefix.  It is
 * known by the CMakeCache.txt beside its bin directory, which no install
 * has (and no path of the build tree is compiled in: the installed program
 * names no build directory).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_info.h"
#include "install_prefix.h"

/* Is prefix the top of a build tree rather than an installation? */
static int is_build_tree(const char *prefix)
{
    char cache[PATH_MAX + 32];
    snprintf(cache, sizeof(cache), "%s/CMakeCache.txt", prefix);
    return access(cache, F_OK) == 0;
}

void uz_info_install_prefix(char *buf, size_t len)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        snprintf(buf, len, "(unknown: /proc/self/exe cannot be read; configured as %s)",
                 UZ_BUILD_PREFIX);
        return;
    }
    self[n] = '\0';
    *strrchr(self, '/') = '\0';         /* self: the program's directory */
    char *bin = strrchr(self, '/');
    if (!bin || strcmp(bin, "/bin") != 0) {
        snprintf(buf, len, "(unknown: %s is not a bin directory; configured as %s)", self,
                 UZ_BUILD_PREFIX);
        return;
    }
    *bin = '\0';                        /* self: the prefix */
    const char *prefix = self[0] ? self : "/";
    if (is_build_tree(prefix))
        snprintf(buf, len, "(not installed: this copy is in the build tree %s; configured as %s)",
                 prefix, UZ_BUILD_PREFIX);
    else
        snprintf(buf, len, "%s", prefix);
}
