/*
 * pmi2_wire_test.c — the PMI-2 wire format (src/pmi/pmi2_wire.c) and the
 * PMI_process_mapping reader (src/pmi/process_mapping.c) on their own:
 * messages built byte for byte as Slurm and MPICH expect them, replies
 * parsed (escapes, empty values, '=' in values), and every malformed input
 * refused with its reason instead of being half-read.
 */
#include "pmi/pmi2_wire.h"
#include "pmi/process_mapping.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int failures;

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "FAIL: %s\n", what);
        failures++;
    }
}

/* ------------------------------------------------------------ formatting */

static void test_format(void)
{
    char out[256];
    struct uz_pmi_field init[] = {{"pmi_version", "2"}, {"pmi_subversion", "0"},
                                  {"pmirank", "3"}};
    int n = uz_pmi2_format(out, sizeof out, "fullinit", init, 3);
    check(n == 6 + 54 && strcmp(out, "54    cmd=fullinit;pmi_version=2;pmi_subversion=0;"
                                     "pmirank=3;") == 0,
          "fullinit is 'cmd=fullinit;...;' with a left-aligned 6-character length");

    n = uz_pmi2_format(out, sizeof out, "kvs-fence", NULL, 0);
    check(n == 20 && strcmp(out, "14    cmd=kvs-fence;") == 0, "a command without fields");

    struct uz_pmi_field semi[] = {{"key", "a;b"}, {"value", ";x;;"}};
    n = uz_pmi2_format(out, sizeof out, "kvs-put", semi, 2);
    check(n > 0 && strcmp(out + 6, "cmd=kvs-put;key=a;;b;value=;;x;;;;;") == 0,
          "';' in keys and values is doubled");

    struct uz_pmi_field empty[] = {{"value", ""}};
    n = uz_pmi2_format(out, sizeof out, "kvs-put", empty, 1);
    check(n > 0 && strcmp(out + 6, "cmd=kvs-put;value=;") == 0, "an empty value");

    char small[21];
    check(uz_pmi2_format(small, 21, "kvs-fence", NULL, 0) == 20,
          "a message that just fits with its '\\0'");
    check(uz_pmi2_format(small, 20, "kvs-fence", NULL, 0) == -ENOBUFS,
          "one byte short: -ENOBUFS");
    check(uz_pmi2_format(small, 6, "kvs-fence", NULL, 0) == -ENOBUFS, "no room: -ENOBUFS");

    struct uz_pmi_field ctl[] = {{"value", "a\nb"}};
    check(uz_pmi2_format(out, sizeof out, "kvs-put", ctl, 1) == -EINVAL,
          "a control character: -EINVAL");
    struct uz_pmi_field noname[] = {{"", "x"}};
    check(uz_pmi2_format(out, sizeof out, "kvs-put", noname, 1) == -EINVAL,
          "an empty key: -EINVAL");
    struct uz_pmi_field eq[] = {{"a=b", "x"}};
    check(uz_pmi2_format(out, sizeof out, "kvs-put", eq, 1) == -EINVAL, "'=' in a key: -EINVAL");
}

/* ------------------------------------------------------------ length prefix */

static void test_length(void)
{
    size_t len = 0;
    const char *why = NULL;
    check(uz_pmi2_length_parse("114   ", 65536, &len, &why) == 0 && len == 114,
          "left-aligned length (Slurm, MPICH)");
    check(uz_pmi2_length_parse("    38", 65536, &len, &why) == 0 && len == 38,
          "right-aligned length");
    check(uz_pmi2_length_parse("000042", 65536, &len, &why) == 0 && len == 42,
          "zero-padded length");
    check(uz_pmi2_length_parse("12 3  ", 65536, &len, &why) == -EPROTO,
          "digits after a space: refused");
    check(uz_pmi2_length_parse("cmd=in", 65536, &len, &why) == -EPROTO &&
          strstr(why, "not a number"), "a PMI-1 line where a length belongs: refused");
    check(uz_pmi2_length_parse("      ", 65536, &len, &why) == -EPROTO, "blank: refused");
    check(uz_pmi2_length_parse("0     ", 65536, &len, &why) == -EPROTO &&
          strstr(why, "empty"), "zero: refused");
    check(uz_pmi2_length_parse("999999", 65536, &len, &why) == -EPROTO &&
          strstr(why, "too long"), "over the maximum: refused");
}

/* ------------------------------------------------------------ parsing */

static void test_parse(void)
{
    struct uz_pmi_line line;
    const char *why = NULL;
    char text[256];

    strcpy(text, "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=0;size=1;"
                 "appnum=-1;debugged=FALSE;pmiverbose=FALSE;");
    int rank = -1, appnum = 0;
    check(uz_pmi2_parse(text, &line, &why) == 0 && line.nfields == 9 &&
          strcmp(uz_pmi_line_cmd(&line), "fullinit-response") == 0 &&
          uz_pmi_line_int(&line, "rank", &rank) == 0 && rank == 0 &&
          uz_pmi_line_int(&line, "appnum", &appnum) == 0 && appnum == -1 &&
          uz_pmi2_bool(uz_pmi_line_value(&line, "debugged")) == 0,
          "Slurm's fullinit-response");

    strcpy(text, "cmd=kvs-get-response;rc=0;found=TRUE;value=host;;net=tcp,a=b;;;");
    check(uz_pmi2_parse(text, &line, &why) == 0 &&
          strcmp(uz_pmi_line_value(&line, "value"), "host;net=tcp,a=b;") == 0 &&
          uz_pmi2_bool(uz_pmi_line_value(&line, "found")) == 1,
          "';;' in a value, '=' in a value");

    strcpy(text, "cmd=info-getjobattr-response;rc=0;found=TRUE;value=(vector,(0,1,2));");
    check(uz_pmi2_parse(text, &line, &why) == 0 &&
          strcmp(uz_pmi_line_value(&line, "value"), "(vector,(0,1,2))") == 0,
          "a process mapping value");

    strcpy(text, "cmd=kvs-put-response;rc=0;value=;");
    check(uz_pmi2_parse(text, &line, &why) == 0 && !uz_pmi_line_value(&line, "value")[0],
          "an empty value");

    static const struct {
        const char *text, *why;
    } bad[] = {
        {"", "empty"},
        {"cmd=kvs-fence-response;rc=0", "closing ';'"},
        {"cmd=kvs-fence-response;rc", "without '='"},
        {"rc=0;cmd=kvs-fence-response;", "does not start with 'cmd="},
        {"cmd=;", "does not start with 'cmd="},
        {"cmd=x;=1;", "empty name"},
        {"cmd=x;a=\n;", "control character"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char what[160];
        strcpy(text, bad[i].text);
        why = "";
        int err = uz_pmi2_parse(text, &line, &why);
        snprintf(what, sizeof what, "'%s' refused because it %s", bad[i].text, bad[i].why);
        check(err == -EPROTO && strstr(why, bad[i].why), what);
    }

    char many[UZ_PMI_FIELDS_MAX * 8 + 32];
    size_t o = (size_t)sprintf(many, "cmd=x;");
    for (int i = 0; i < UZ_PMI_FIELDS_MAX; i++)
        o += (size_t)sprintf(many + o, "k%d=v;", i);
    check(uz_pmi2_parse(many, &line, &why) == -EPROTO && strstr(why, "too many"),
          "too many fields: refused");

    check(uz_pmi2_bool("TRUE") == 1 && uz_pmi2_bool("FALSE") == 0 &&
          uz_pmi2_bool("true") == -1 && uz_pmi2_bool(NULL) == -1, "booleans");
}

/* A message formatted and parsed back is what went in. */
static void test_round_trip(void)
{
    char out[512];
    struct uz_pmi_line line;
    const char *why;
    struct uz_pmi_field pairs[] = {{"key", "uz-card-7"},
                                   {"value", "vm/1234;net=tcp,udp;x=;;"}};
    int n = uz_pmi2_format(out, sizeof out, "kvs-put", pairs, 2);
    size_t len = 0;
    check(n > 6 && uz_pmi2_length_parse(out, sizeof out, &len, &why) == 0 &&
          len == (size_t)n - 6 && uz_pmi2_parse(out + 6, &line, &why) == 0 &&
          strcmp(uz_pmi_line_value(&line, "key"), "uz-card-7") == 0 &&
          strcmp(uz_pmi_line_value(&line, "value"), "vm/1234;net=tcp,udp;x=;;") == 0,
          "format then parse gives back the fields");
}

/* ------------------------------------------------------------ process mapping */

static void expect_place(const char *map, int rank, int size, int lr, int ls, int node, int nodes)
{
    struct uz_pmi_placement p = {-1, -1, -1, -1};
    char what[200];
    snprintf(what, sizeof what, "%s rank %d of %d: local %d of %d on node %d of %d", map, rank,
             size, lr, ls, node, nodes);
    check(uz_pmi_process_mapping(map, rank, size, &p) == 0 && p.local_rank == lr &&
          p.local_size == ls && p.node_id == node && p.num_nodes == nodes, what);
}

static void test_process_mapping(void)
{
    expect_place("(vector,(0,1,4))", 2, 4, 2, 4, 0, 1);       /* one node */
    expect_place("(vector,(0,2,2))", 3, 4, 1, 2, 1, 2);       /* block */
    expect_place("(vector,(0,3,1))", 4, 5, 1, 2, 1, 3);       /* round-robin, wraps */
    expect_place("(vector,(0,2,2),(2,1,1))", 4, 5, 0, 1, 2, 3);
    expect_place(" ( vector, (0,1,8) ) ", 7, 8, 7, 8, 0, 1);
    expect_place("(vector,(0,1,8))", 0, 2, 0, 2, 0, 1);       /* mapping larger than job */
    struct uz_pmi_placement p;
    static const char *bad[] = {"", "(vector)", "(vector,(0,1))", "(vector,(0,0,2))",
                                "(vector,(0,1,2)", "(vector,(0,1,2))x", "(hybrid,(0,1,2))",
                                "(vector,(0,-1,2))"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char what[100];
        snprintf(what, sizeof what, "mapping '%s' refused", bad[i]);
        check(uz_pmi_process_mapping(bad[i], 0, 2, &p) == -EINVAL, what);
    }
    check(uz_pmi_process_mapping("(vector,(0,1,2))", 2, 2, &p) == -EINVAL,
          "a rank outside the job: refused");
}

int main(void)
{
    test_format();
    test_length();
    test_parse();
    test_round_trip();
    test_process_mapping();
    if (failures)
        fprintf(stderr, "pmi2_wire_test: %d failures\n", failures);
    else
        printf("pmi2_wire_test: ok\n");
    return failures != 0;
}
