/*
 * options.c — mpiexec's command line.
 *
 * Accepts the options of MPICH's Hydra and of Open MPI's mpirun that make
 * sense for one host, so that scripts written for either run unchanged: every
 * long option works with one dash or two, and "--name=value" works too.
 * With -hosts or -hostfile the job runs through one proxy per host
 * (remote_launch.c); without them, or when they name only this machine,
 * nothing about a run changes.
 */
#include "mpiexec.h"
#include "profile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef UZURA_VERSION
#define UZURA_VERSION "unknown"
#endif

enum option_id {
    OPT_NPROCS,
    OPT_GENV,
    OPT_ENV,
    OPT_EXPORT,
    OPT_TAG_OUTPUT,
    OPT_TIMEOUT,
    OPT_WDIR,
    OPT_VERBOSE,
    OPT_ACCEPTED,       /* meaningful elsewhere, nothing to do here */
    OPT_HOSTS,
    OPT_HOSTFILE,
    OPT_PPN,
    OPT_LAUNCHER,
    OPT_LAUNCHER_EXEC,
    OPT_GENVALL,
    OPT_BIND_TO,
    OPT_MAP_BY,
    OPT_REPORT_BINDINGS,
    OPT_USIZE,
    OPT_PREPUT,
    OPT_PROFILE,
    OPT_PROFILE_REPORT,
    OPT_SPAWN_STATUS_FD,
    OPT_MEMORY_ALLOC_KINDS,
    OPT_HELP,
    OPT_VERSION,
};

struct option_spec {
    const char *names;  /* aliases separated by spaces, without dashes */
    enum option_id id;
    int nargs;          /* OPTIONAL_VALUE: none, or one given as --name=value */
};

enum { OPTIONAL_VALUE = -1 };

static const struct option_spec option_table[] = {
    {"n np", OPT_NPROCS, 1},
    {"genv", OPT_GENV, 2},
    {"env", OPT_ENV, 2},
    {"x", OPT_EXPORT, 1},
    {"l prepend-rank tag-output", OPT_TAG_OUTPUT, 0},
    {"timeout", OPT_TIMEOUT, 1},
    {"wdir wd", OPT_WDIR, 1},
    {"v verbose", OPT_VERBOSE, 0},
    {"oversubscribe allow-run-as-root", OPT_ACCEPTED, 0},
    {"hosts host H", OPT_HOSTS, 1},
    {"hostfile f machinefile", OPT_HOSTFILE, 1},
    {"ppn npernode", OPT_PPN, 1},
    {"launcher bootstrap", OPT_LAUNCHER, 1},
    {"launcher-exec bootstrap-exec", OPT_LAUNCHER_EXEC, 1},
    {"genvall envall", OPT_GENVALL, 0},
    {"bind-to binding", OPT_BIND_TO, 1},
    {"map-by", OPT_MAP_BY, 1},
    {"report-bindings", OPT_REPORT_BINDINGS, 0},
    {"usize universe-size", OPT_USIZE, 1},
    {"preput", OPT_PREPUT, 1},
    {"profile", OPT_PROFILE, OPTIONAL_VALUE},
    {"profile-report", OPT_PROFILE_REPORT, 1},
    {"spawn-status-fd", OPT_SPAWN_STATUS_FD, 1},
    {"memory-alloc-kinds memory-allocation-kinds", OPT_MEMORY_ALLOC_KINDS, 1},
    {"h help", OPT_HELP, 0},
    {"version V", OPT_VERSION, 0},
};

static const char usage_text[] =
    "Usage: mpiexec [options] program [arguments...]\n"
    "       mpirun  [options] program [arguments...]\n"
    "\n"
    "Starts N copies of program as the ranks of one MPI job and serves them the\n"
    "PMI-1 protocol: on this host, or through one proxy per host with -hosts.\n"
    "\n"
    "  -n, -np N                number of ranks (default 1)\n"
    "  -genv NAME VALUE         set NAME=VALUE in every rank's environment\n"
    "  -env NAME VALUE          the same (there is one program per job)\n"
    "  -x NAME[=VALUE]          export NAME (with VALUE, or mpiexec's own value)\n"
    "  -l, --tag-output         prefix each line of output with \"[rank] \"\n"
    "  --timeout SECONDS        kill the job after SECONDS; mpiexec exits 124\n"
    "                           (default: $MPIEXEC_TIMEOUT, else none); first it\n"
    "                           prints what each rank is blocked in (hang diagnosis)\n"
    "  -wdir, --wdir DIR        run the ranks in DIR\n"
    "  -v, --verbose            trace the PMI traffic on stderr\n"
    "\n"
    "  -hosts H1,H2:N,...       run on these hosts (N: slots, default 1); this\n"
    "                           host, by any name or address, is forked directly\n"
    "  -hostfile, -f FILE       hosts from FILE: \"host\", \"host:N\" or \"host slots=N\"\n"
    "                           per line, # comments\n"
    "  -ppn N                   N ranks per host (default: each host's slots);\n"
    "                           hosts are filled in order, round again if needed;\n"
    "                           without hosts: this host (N ranks if no -n)\n"
    "  -launcher ssh|rsh|fork   how to start the proxies (default ssh; fork: here)\n"
    "  -launcher-exec 'CMD'     start each proxy as: CMD host mpiexec --proxy\n"
    "                           (e.g. 'ip netns exec' to use namespaces as hosts)\n"
    "  -genvall                 pass all of mpiexec's environment to remote ranks\n"
    "                           (default: PATH, LD_LIBRARY_PATH, UZURA_*, -genv/-x)\n"
    "\n"
    "  -bind-to, --bind-to WHAT bind each rank to a core|hwthread|socket|numa|\n"
    "                           l3cache|l2cache|l1cache, or none (default: a core\n"
    "                           each when the ranks fit on the cores mpiexec may\n"
    "                           use, else none; $UZURA_BIND_TO, $HYDRA_BINDING)\n"
    "  -map-by, --map-by WHAT   order ranks take them: core|hwthread|socket|numa|\n"
    "                           slot ($UZURA_MAP_BY, $HYDRA_MAPPING)\n"
    "  --report-bindings        print each rank's CPUs on stderr\n"
    "\n"
    "  -usize N                 MPI_UNIVERSE_SIZE: processes the job may have with\n"
    "                           those it spawns (default: this host's processors,\n"
    "                           at least -n)\n"
    "  -preput KEY=VALUE        put KEY=VALUE in the job's PMI key-value space\n"
    "                           before it starts (how MPI_Comm_spawn hands its\n"
    "                           children the parents' port)\n"
    "  --profile[=DIR]          count messages, bytes per peer and time inside MPI\n"
    "                           per call in every rank; at the end write a report\n"
    "                           (heat map, size histogram, time per rank and call:\n"
    "                           DIR/report.html) and print a summary on stderr\n"
    "                           (default DIR: uzura-profile-<job id>; shared by\n"
    "                           all hosts; see docs/profile.md)\n"
    "  --profile-report DIR     merge the rank files that UZURA_PROFILE=DIR left\n"
    "                           (under another launcher) into the report, and exit\n"
    "  -memory-alloc-kinds LIST the memory allocation kinds the ranks request\n"
    "                           (info mpi_memory_alloc_kinds; default mpi,system)\n"
    "  -spawn-status-fd N       (MPI_Comm_spawn's own) write \"ok\" or \"fail why\" on\n"
    "                           descriptor N once the ranks are started or not\n"
    "  prog1 ... : -n N prog2 ...\n"
    "                           several programs in one job (MPMD): each\n"
    "                           program's ranks follow the previous one's, with\n"
    "                           MPI_APPNUM 0, 1, ...\n"
    "\n"
    "  --oversubscribe, --allow-run-as-root\n"
    "                           accepted for Open MPI command lines; no effect\n"
    "  -h, --help               this text\n"
    "  --version                the version of mpiexec\n"
    "\n"
    "Hang diagnosis: on --timeout, and on SIGUSR1 (kill -USR1 <mpiexec's pid>;\n"
    "the job goes on), mpiexec prints on stderr the MPI call each rank waits in\n"
    "(peer, tag, communicator), the collectives some ranks have not entered,\n"
    "and any cycle of waits (\"deadlock: rank 0 waits in ... \u2190 rank 1 ...\").\n"
    "\n"
    "Options may be given with one dash or two, and as --name=value.\n"
    "Exit status: 0 when every rank exits 0; otherwise the exit code of the\n"
    "first rank to fail (128+N when killed by signal N), the code given to\n"
    "MPI_Abort, 124 on timeout, 1 for a rank that exits without MPI_Finalize\n"
    "or breaks the PMI protocol, 2 for a bad command line, 126/127 when the\n"
    "program cannot be run / found.  See docs/launch.md.\n";

static int __attribute__((format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("mpiexec: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs(" (see mpiexec --help)\n", stderr);
    va_end(ap);
    return EXIT_USAGE;
}

/* Is name one of the space-separated aliases? */
static int names_match(const char *names, const char *name, size_t len)
{
    for (const char *p = names; *p;) {
        size_t n = strcspn(p, " ");
        if (n == len && strncmp(p, name, len) == 0)
            return 1;
        p += n;
        p += *p == ' ';
    }
    return 0;
}

static const struct option_spec *option_find(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof option_table / sizeof option_table[0]; i++)
        if (names_match(option_table[i].names, name, len))
            return &option_table[i];
    return NULL;
}

static int parse_nprocs(const char *text, int *out)
{
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (end == text || *end || errno || n < 1 || n > 1000000)
        return usage_error("-n: '%s' is not a number of ranks between 1 and 1000000",
                           text);
    *out = (int)n;
    return 0;
}

static int parse_timeout(const char *text, const char *from, struct mpiexec_options *opt)
{
    char *end;
    double t = strtod(text, &end);
    if (end == text || *end || !isfinite(t) || t <= 0)
        return usage_error("%s: '%s' is not a positive number of seconds", from, text);
    opt->timeout_seconds = t;
    opt->timeout_text = text;
    return 0;
}

static int env_name_ok(const char *name, size_t len)
{
    return len > 0 && !memchr(name, '=', len);
}

static int add_env(struct mpiexec_options *opt, const char *name, const char *value)
{
    if (!env_name_ok(name, strlen(name)))
        return usage_error("'%s' is not a valid environment variable name", name);
    opt->env[opt->nenv++] = (struct env_assignment){name, value};
    return 0;
}

/* -x NAME=VALUE sets; -x NAME passes mpiexec's own value along. */
static int add_export(struct mpiexec_options *opt, char *arg)
{
    char *equals = strchr(arg, '=');
    if (!equals) {
        if (!getenv(arg))
            fprintf(stderr, "mpiexec: warning: -x %s: %s is not set in mpiexec's "
                    "environment\n", arg, arg);
        return add_env(opt, arg, NULL);
    }
    if (equals == arg)
        return usage_error("-x '%s': no variable name before '='", arg);
    *equals = '\0';
    return add_env(opt, arg, equals + 1);
}

/* -ppn N: ranks per host per round of placement. */
static int parse_ppn(const char *text, struct mpiexec_options *opt)
{
    char *end;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (end == text || *end || errno || n < 1 || n > 1000000)
        return usage_error("-ppn: '%s' is not a number of ranks per host", text);
    opt->ppn = (int)n;
    return 0;
}

/* The default remote shell: no X11, and fail rather than wait for a
 * password that nobody can type (the proxies are not in the terminal's
 * foreground process group). */
static const char ssh_command[] = "ssh -x -o BatchMode=yes";

static int parse_launcher(const char *name, struct mpiexec_options *opt)
{
    opt->launcher_fork = strcmp(name, "fork") == 0;
    if (strcmp(name, "ssh") == 0)
        opt->launcher = ssh_command;
    else if (strcmp(name, "rsh") == 0)
        opt->launcher = "rsh";
    else if (!opt->launcher_fork)
        return usage_error("-launcher: '%s' is not one of ssh, rsh, fork", name);
    return 0;
}

static int parse_launcher_exec(const char *command, struct mpiexec_options *opt)
{
    if (!command[strspn(command, " \t")])
        return usage_error("-launcher-exec: empty command");
    opt->launcher = command;
    opt->launcher_fork = 0;
    return 0;
}

static int parse_bind_to(const char *text, const char *from, struct mpiexec_options *opt)
{
    if (binding_parse_bind_to(text, &opt->bind_to) < 0)
        return usage_error("%s: '%s' is not one of core, hwthread, socket, numa, l3cache, l2cache, "
                           "l1cache, none", from, text);
    return 0;
}

static int parse_map_by(const char *text, const char *from, struct mpiexec_options *opt)
{
    if (binding_parse_map_by(text, &opt->map_by) < 0)
        return usage_error("%s: '%s' is not one of core, hwthread, socket, numa, l3cache, l2cache, "
                           "l1cache, slot", from, text);
    return 0;
}

/* The binding's environment variables, ours first, then Hydra's; the
 * command line overrides both. */
static const char *first_set(const char *a, const char *b, const char **which)
{
    const char *v = getenv(a);
    *which = a;
    if (v && *v)
        return v;
    *which = b;
    v = getenv(b);
    return v && *v ? v : NULL;
}

static int binding_from_environment(struct mpiexec_options *opt)
{
    const char *from;
    const char *bind = first_set("UZURA_BIND_TO", "HYDRA_BINDING", &from);
    int status = bind ? parse_bind_to(bind, from, opt) : 0;
    const char *map = first_set("UZURA_MAP_BY", "HYDRA_MAPPING", &from);
    return status ? status : map ? parse_map_by(map, from, opt) : 0;
}

static int option_apply(const struct option_spec *spec, char **args,
                        struct mpiexec_options *opt)
{
    switch (spec->id) {
    case OPT_NPROCS:
        opt->nprocs_given = 1;
        return parse_nprocs(args[0], &opt->nprocs);
    case OPT_GENV:
    case OPT_ENV:
        return add_env(opt, args[0], args[1]);
    case OPT_EXPORT:
        return add_export(opt, args[0]);
    case OPT_TAG_OUTPUT:
        opt->tag_output = 1;
        return 0;
    case OPT_TIMEOUT:
        return parse_timeout(args[0], "--timeout", opt);
    case OPT_WDIR:
        opt->wdir = args[0];
        return 0;
    case OPT_VERBOSE:
        opt->verbose = 1;
        return 0;
    case OPT_ACCEPTED:
        return 0;
    case OPT_HOSTS:
        return hosts_parse_list(args[0], opt);
    case OPT_HOSTFILE:
        return hosts_parse_file(args[0], opt);
    case OPT_PPN:
        return parse_ppn(args[0], opt);
    case OPT_LAUNCHER:
        return parse_launcher(args[0], opt);
    case OPT_LAUNCHER_EXEC:
        return parse_launcher_exec(args[0], opt);
    case OPT_GENVALL:
        opt->genvall = 1;
        return 0;
    case OPT_BIND_TO:
        return parse_bind_to(args[0], "-bind-to", opt);
    case OPT_MAP_BY:
        return parse_map_by(args[0], "-map-by", opt);
    case OPT_REPORT_BINDINGS:
        opt->report_bindings = 1;
        return 0;
    case OPT_USIZE: {
        char *end;
        long v = strtol(args[0], &end, 10);
        if (end == args[0] || *end || v < 1 || v > 1000000)
            return usage_error("-usize needs a number of processes, not '%s'", args[0]);
        opt->universe_size = (int)v;
        return 0;
    }
    case OPT_PREPUT:
        if (!strchr(args[0], '=') || args[0][0] == '=')
            return usage_error("-preput needs KEY=VALUE, not '%s'", args[0]);
        opt->preput = args[0];
        return 0;
    case OPT_PROFILE:
        opt->profile = 1;
        opt->profile_dir = args[0];
        if (args[0] && !*args[0])
            return usage_error("--profile=: empty directory name");
        return 0;
    case OPT_PROFILE_REPORT:
        return profile_report(args[0], 0, stderr);
    case OPT_MEMORY_ALLOC_KINDS:
        /* The World Model's requested kinds (MPI-4.1 §12.4.3), read by the library. */
        return add_env(opt, "UZURA_MEMORY_ALLOC_KINDS", args[0]);
    case OPT_SPAWN_STATUS_FD: {
        char *end;
        long v = strtol(args[0], &end, 10);
        if (end == args[0] || *end || v < 3 || v > 1000000)
            return usage_error("-spawn-status-fd needs a descriptor above 2, not '%s'", args[0]);
        opt->spawn_status_fd = (int)v;
        return 0;
    }
    case OPT_HELP:
        fputs(usage_text, stdout);
        return 0;
    case OPT_VERSION:
        printf("mpiexec (Uzura) %s\n", UZURA_VERSION);
        return 0;
    }
    return EXIT_USAGE;
}

/* Handles argv[*i], an option; advances *i past its arguments.  Returns -1 to
 * go on parsing, or an exit status. */
static int option_parse_one(int argc, char **argv, int *i, struct mpiexec_options *opt)
{
    char *spelled = argv[*i];
    const char *name = spelled + 1 + (spelled[1] == '-');
    char *inline_value = strchr(name, '=');
    size_t len = inline_value ? (size_t)(inline_value - name) : strlen(name);
    const struct option_spec *spec = option_find(name, len);
    if (!spec)
        return usage_error("unknown option '%s'", spelled);
    char *args[2] = { NULL, NULL };
    if (inline_value) {
        if (spec->nargs != 1 && spec->nargs != OPTIONAL_VALUE)
            return usage_error("option '%s' takes no value", spelled);
        args[0] = inline_value + 1;
    } else if (spec->nargs > 0) {
        if (*i + spec->nargs >= argc)
            return usage_error("option '%s' needs %s", spelled,
                               spec->nargs == 2 ? "two values" : "a value");
        for (int a = 0; a < spec->nargs; a++)
            args[a] = argv[*i + 1 + a];
        *i += spec->nargs;
    }
    int status = option_apply(spec, args, opt);
    if (spec->id == OPT_PROFILE_REPORT)
        return status;          /* done: 0 or 1, never "go on" */
    if (status == 0 && (spec->id == OPT_HELP || spec->id == OPT_VERSION))
        return 0;
    return status ? status : -1;
}

static void hosts_free(struct mpiexec_options *opt)
{
    for (int h = 0; h < opt->nhosts; h++)
        free(opt->hosts[h].name);
    free(opt->hosts);
    opt->hosts = NULL;
    opt->nhosts = 0;
}

/* After the command line: what the host options imply.  -1 to run.
 *
 * A host list that names only this machine (localhost, its name, one of
 * its addresses) is a job on one host, run exactly as without a list: no
 * proxy, no launcher.  Without a list, -ppn N means N ranks on this host
 * when -n is not given (Hydra's default host list is this host). */
static int hosts_finish(struct mpiexec_options *opt)
{
    if (opt->hosts)
        hosts_merge_local(opt);
    if (opt->hosts && (opt->nhosts > 1 || !opt->hosts[0].local)) {
        if (!opt->nprocs_given) {
            long total = 0;
            for (int h = 0; h < opt->nhosts; h++)
                total += opt->ppn ? opt->ppn : opt->hosts[h].slots;
            opt->nprocs = total < 1000000 ? (int)total : 1000000;
        }
        return -1;
    }
    if (!opt->nprocs_given && (opt->ppn || opt->hosts))
        opt->nprocs = opt->ppn ? opt->ppn : opt->hosts[0].slots;
    hosts_free(opt);
    return -1;
}

/* "prog args : -n N prog2 args : ...": cut argv at each ':' into the
 * programs of an MPMD launch.  After a ':' only -n/-np may precede the
 * program.  -1 to go on, else an exit status. */
static int apps_split(int argc, char **argv, int first, struct mpiexec_options *opt)
{
    int napps = 1;
    for (int i = first; i < argc; i++)
        napps += strcmp(argv[i], ":") == 0;
    opt->apps = calloc((size_t)napps, sizeof *opt->apps);
    if (!opt->apps)
        return EXIT_LAUNCH_FAILED;
    opt->apps[0] = (struct app){argv + first, opt->nprocs};
    opt->napps = 1;
    for (int i = first; i < argc; i++) {
        if (strcmp(argv[i], ":") != 0)
            continue;
        argv[i] = NULL;
        int n = 1, j = i + 1;
        if (j + 1 < argc && (strcmp(argv[j], "-n") == 0 || strcmp(argv[j], "-np") == 0
                             || strcmp(argv[j], "--n") == 0 || strcmp(argv[j], "--np") == 0)) {
            char *end;
            long v = strtol(argv[j + 1], &end, 10);
            if (end == argv[j + 1] || *end || v < 1 || v > 1000000)
                return usage_error("'%s' after ':' needs a positive number of ranks", argv[j]);
            n = (int)v;
            j += 2;
        }
        if (j >= argc || strcmp(argv[j], ":") == 0)
            return usage_error("no program after ':'");
        if (argv[j][0] == '-')
            return usage_error("option '%s' after ':': only -n may be given per program", argv[j]);
        opt->apps[opt->napps++] = (struct app){argv + j, n};
        i = j - 1;
    }
    if (opt->napps > 1) {
        for (int a = 1; a < opt->napps; a++)
            opt->nprocs += opt->apps[a].nprocs;
        opt->nprocs_given = 1;
    }
    return -1;
}

int options_parse(int argc, char **argv, struct mpiexec_options *opt)
{
    *opt = (struct mpiexec_options){.nprocs = 1, .launcher = ssh_command,
                                    .bind_to = BIND_DEFAULT, .map_by = MAP_DEFAULT};
    opt->env = calloc((size_t)argc + 1, sizeof *opt->env);
    if (!opt->env)
        return EXIT_LAUNCH_FAILED;
    const char *timeout_env = getenv("MPIEXEC_TIMEOUT");
    if (timeout_env && *timeout_env) {
        int status = parse_timeout(timeout_env, "MPIEXEC_TIMEOUT", opt);
        if (status)
            return status;
    }
    int status = binding_from_environment(opt);
    if (status)
        return status;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        int status = option_parse_one(argc, argv, &i, opt);
        if (status >= 0)
            return status;
    }
    if (i == argc)
        return usage_error("no program to run");
    opt->program_argv = argv + i;
    status = apps_split(argc, argv, i, opt);
    if (status >= 0)
        return status;
    return hosts_finish(opt);
}

char **options_program_of(const struct mpiexec_options *opt, int rank, int *appnum)
{
    for (int a = 0, first = 0; a < opt->napps; first += opt->apps[a].nprocs, a++)
        if (rank < first + opt->apps[a].nprocs) {
            *appnum = a;
            return opt->apps[a].argv;
        }
    *appnum = 0;
    return opt->program_argv;
}

void options_free(struct mpiexec_options *opt)
{
    free(opt->apps);
    opt->apps = NULL;
    free(opt->env);
    opt->env = NULL;
    free(opt->profile_path);
    opt->profile_path = NULL;
    hosts_free(opt);
}
