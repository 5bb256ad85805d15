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

#include "core/params.h"

struct uz_config uz_config;

#define FIELD(f) offsetof(struct uz_config, f)

const struct uz_param uz_params[] = {
    { "VERBOSE", UZ_PARAM_INT, "0",
      "Print what the library chooses at start-up (transports, fallbacks): 0 silent, 1 rank 0, 2 every rank",
      NULL, FIELD(verbose), UZ_PARAM_TUNABLE },

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

static int parse_enum(const char *s, const char *choices, int *out)
{
    int idx = 0;
    size_t len = strlen(s);
    for (const char *c = choices; *c; idx++) {
        const char *bar = strchr(c, '|');
        size_t n = bar ? (size_t)(bar - c) : strlen(c);
        if (n == len && strncasecmp(c, s, n) == 0) {
            *out = idx;
            return 0;
        }
        if (!bar)
            break;
        c = bar + 1;
    }
    return -1;
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
    if (rc)
        snprintf(err, errlen, "UZURA_%s=\"%s\" is not a valid %s%s%s", p->name, value,
                 type_name(p->type), p->choices ? " (choose one of " : "",
                 p->choices ? p->choices : "");
    if (rc && p->choices && strlen(err) + 2 < errlen)
        strcat(err, ")");
    return rc;
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
        int idx = *(const int *)slot;
        const char *c = p->choices;
        for (int i = 0; i < idx && c; i++) {
            c = strchr(c, '|');
            if (c) c++;
        }
        const char *bar = c ? strchr(c, '|') : NULL;
        snprintf(buf, len, "%.*s", c ? (int)(bar ? bar - c : (long)strlen(c)) : 0, c ? c : "");
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
            fprintf(out, "      %s%s%s\n", p->help, p->choices ? "; one of " : "",
                    p->choices ? p->choices : "");
        }
    }
}
