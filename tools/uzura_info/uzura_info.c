/*
 * uzura_info.c — says what this copy of Uzura is: versions, how it was
 * built, the transports compiled in, and every tunable (UZURA_* environment
 * variable) with its type, default and help; with --all, --param, --pvars
 * and --events, what a tool sees through MPI_T (mpit_listing.c); with
 * --coll-table, which algorithm each collective picks (coll_table.c).
 *
 * The tunables come straight from the table in src/base/params.c, which is
 * compiled into this program, so the list can never drift from what the
 * library reads.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "base/params.h"
#include "build_info.h"
#include "coll_table.h"
#include "install_prefix.h"
#include "mpit_listing.h"
#include "transports.h"

extern char **environ;

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

static void print_version(void)
{
    printf("Uzura %d.%d.%d (MPI %d.%d, standard ABI %d.%d)\n", UZURA_VERSION_MAJOR,
           UZURA_VERSION_MINOR, UZURA_VERSION_PATCH, MPI_VERSION, MPI_SUBVERSION,
           MPI_ABI_VERSION, MPI_ABI_SUBVERSION);
}

static void print_row(const char *key, const char *value)
{
    printf("  %-22s %s\n", key, value[0] ? value : "(none)");
}

static void print_build(void)
{
    char self[4096], prefix[4096 + 128];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    self[n > 0 ? n : 0] = '\0';
    uz_info_install_prefix(prefix, sizeof(prefix));

    printf("Build:\n");
    print_row("build type", UZ_BUILD_TYPE);
    print_row("C compiler", UZ_BUILD_COMPILER);
    print_row("C flags", UZ_BUILD_CFLAGS);
    print_row("sanitizer", UZ_BUILD_SANITIZER);
    print_row("install prefix", prefix);
    print_row("this program", self);
}

/* An optional engine: built in or not, and whether this machine has its
 * library (the library loads it only when a run needs it). */
static void print_engine(const char *name, int built, const char *soname, const char *what)
{
    char row[256];
    if (!built) {
        snprintf(row, sizeof row, "not built (its headers were not found at configure time): no %s", what);
    } else {
        /* Left loaded: what its constructors allocate then stays with a
         * named module, which the leak checker's suppressions can name
         * (src/base/lsan_suppressions.c), rather than an unloaded one. */
        void *h = dlopen(soname, RTLD_LAZY | RTLD_LOCAL);
        snprintf(row, sizeof row, "built; %s %s here: %s", soname, h ? "loads" : "does not load", what);
    }
    print_row(name, row);
}

static void print_engines(void)
{
    printf("Optional engines:\n");
    print_engine("PMIx", UZ_BUILD_PMIX, "libpmix.so.2", "srun --mpi=pmix, Open MPI's mpirun");
    print_engine("libfabric", UZ_BUILD_LIBFABRIC, "libfabric.so.1", "UZURA_NET=ofi");
    print_engine("hwloc", UZ_BUILD_HWLOC, "libhwloc.so.15", "topology from hwloc (else /sys)");
}

static void print_transports(void)
{
    printf("Transports:\n");
    if (!uz_info_transports[0].name)
        printf("  (none yet)\n");
    for (const struct uz_info_transport *t = uz_info_transports; t->name; t++)
        printf("  %-22s %s\n", t->name, t->what);
}

static const struct uz_param *find_param(const char *name, size_t len)
{
    for (int i = 0; i < uz_nparams; i++)
        if (strlen(uz_params[i].name) == len && strncmp(uz_params[i].name, name, len) == 0)
            return &uz_params[i];
    return NULL;
}

static void print_param(const struct uz_param *p)
{
    char var[128];
    snprintf(var, sizeof(var), "UZURA_%s", p->name);
    const char *set = getenv(var);
    printf("  %-30s %-7s default %s", var, type_name(p->type),
           p->default_value[0] ? p->default_value : "\"\"");
    if (set)
        printf("   (set: %s)", set);
    printf("\n      %s", p->help);
    if (p->choices) {
        char words[512];
        uz_param_choice_words(p, words, sizeof(words));
        printf("; one of %s", words);
    }
    printf("\n");
    for (const struct uz_param_choice *c = p->choices; c && c->word; c++)
        if (c->help)
            printf("        %-20s %s\n", c->word, c->help);
}

static void print_params(void)
{
    static const char *const heading[] = {
        [UZ_PARAM_TUNABLE] = "Tunables (environment variables):",
        [UZ_PARAM_LAUNCHER] = "Set by mpiexec for each rank (listed, not for tuning):",
    };
    for (int scope = UZ_PARAM_TUNABLE; scope <= UZ_PARAM_LAUNCHER; scope++) {
        printf("%s%s\n", scope == UZ_PARAM_TUNABLE ? "" : "\n", heading[scope]);
        for (int i = 0; i < uz_nparams; i++)
            if ((int)uz_params[i].scope == scope)
                print_param(&uz_params[i]);
    }

    /* Say so if a value in the environment would stop MPI_Init. */
    char err[512];
    if (uz_params_load(err, sizeof(err), NULL) != 0)
        printf("\nwarning: %s\n", err);
}

/* Lists the UZURA_* variables that name no tunable; returns how many. */
static int print_unknown_env(void)
{
    int unknown = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "UZURA_", 6) != 0)
            continue;
        const char *name = *e + 6;
        const char *eq = strchr(name, '=');
        if (!find_param(name, eq ? (size_t)(eq - name) : strlen(name))) {
            printf("%s\n", *e);
            unknown++;
        }
    }
    return unknown;
}

static void usage(FILE *out)
{
    fprintf(out,
            "usage: uzura_info [--params | --all | --param NAME | --pvars | --events | --categories |\n"
            "                   --markdown | --coll-table[=hosts] | --version | --unknown-env | --help]\n"
            "  (no option)    versions, build options, transports and tunables\n"
            "  --params       only the tunables (UZURA_* environment variables)\n"
            "  --all          everything: the report, then every MPI_T control variable with its\n"
            "                 current value, performance variable, event and category\n"
            "  --param NAME   one MPI_T control variable (UZURA_NAME or NAME): type, scope,\n"
            "                 verbosity, value, default, when it may be written, its words\n"
            "  --pvars        the MPI_T performance variables\n"
            "  --events       the MPI_T events\n"
            "  --categories   the MPI_T categories and how many variables each holds\n"
            "  --markdown     the MPI_T tables of docs/tools-interface.md\n"
            "  --coll-table   the algorithm each collective picks by message size, ranks and ranks\n"
            "                 per core, blocking calls within one host, under the UZURA_COLL_*\n"
            "                 settings in the environment (docs/collectives.md)\n"
            "  --coll-table=hosts  the same for communicators spanning hosts, and for nonblocking\n"
            "                 and persistent calls (no shared area)\n"
            "  --version      only the version line\n"
            "  --unknown-env  list UZURA_* variables in the environment that are not\n"
            "                 tunables (likely misspelled); exit 1 if there are any\n"
            "  --help         this text\n");
}

static void print_report(void)
{
    print_version();
    printf("\n");
    print_build();
    printf("\n");
    print_engines();
    printf("\n");
    print_transports();
    printf("\n");
    print_params();
}

int main(int argc, char **argv)
{
    const char *opt = argc >= 2 ? argv[1] : "";
    if (argc > 2 && !(argc == 3 && strcmp(opt, "--param") == 0)) {
        usage(stderr);
        return 2;
    }
    if (strcmp(opt, "--version") == 0) {
        print_version();
    } else if (strcmp(opt, "--params") == 0) {
        print_params();
    } else if (strcmp(opt, "--unknown-env") == 0) {
        return print_unknown_env() ? 1 : 0;
    } else if (strcmp(opt, "--help") == 0 || strcmp(opt, "-h") == 0) {
        usage(stdout);
    } else if (strcmp(opt, "--param") == 0) {
        if (argc != 3) {
            usage(stderr);
            return 2;
        }
        return uz_info_print_param(argv[2]);
    } else if (strcmp(opt, "--pvars") == 0) {
        return uz_info_print_pvars();
    } else if (strcmp(opt, "--events") == 0) {
        return uz_info_print_events();
    } else if (strcmp(opt, "--categories") == 0) {
        return uz_info_print_categories();
    } else if (strcmp(opt, "--coll-table") == 0) {
        return uz_info_print_coll_table(NULL);
    } else if (strncmp(opt, "--coll-table=", 13) == 0) {
        return uz_info_print_coll_table(opt + 13);
    } else if (strcmp(opt, "--markdown") == 0) {
        return uz_info_print_markdown();
    } else if (strcmp(opt, "--all") == 0) {
        print_report();
        int rc = 0;
        printf("\n");
        rc |= uz_info_print_cvars();
        printf("\n");
        rc |= uz_info_print_pvars();
        printf("\n");
        rc |= uz_info_print_events();
        printf("\n");
        rc |= uz_info_print_categories();
        return rc;
    } else if (opt[0] == '\0') {
        print_report();
    } else {
        fprintf(stderr, "uzura_info: unknown option '%s'\n", opt);
        usage(stderr);
        return 2;
    }
    return 0;
}
