/*
 * wire_format.h — the text of the PMI-1 wire protocol: splitting a line into
 * its "key=value" fields and checking what may travel in one.
 *
 * Shared by the client in the library (src/pmi/) and the server in mpiexec
 * (tools/mpiexec/), so that both sides agree on exactly one grammar:
 *
 *     line  := field (' '+ field)* '\n'
 *     field := name '=' value        first field is always cmd=<command>
 *
 * Names and values are runs of printable bytes without spaces; a value may be
 * empty and may contain '=' (only the first '=' of a field separates).
 */
#ifndef UZ_PMI_WIRE_FORMAT_H
#define UZ_PMI_WIRE_FORMAT_H

#include <stddef.h>

enum {
    UZ_PMI_LINE_MAX = 4096,     /* longest line either side accepts, '\n' included */
    UZ_PMI_FIELDS_MAX = 32,     /* most fields in one line */
    UZ_PMI_KVSNAME_MAX = 256,   /* limits announced by get_maxes, '\0' included */
    UZ_PMI_KEY_MAX = 64,
    UZ_PMI_VALUE_MAX = 1024,
    UZ_PMI_EXCERPT_MAX = 160,   /* a line quoted in an error message */
};

struct uz_pmi_field {
    const char *name;
    const char *value;
};

/* One parsed line; the strings point into the text that was parsed. */
struct uz_pmi_line {
    int nfields;
    struct uz_pmi_field field[UZ_PMI_FIELDS_MAX];
};

/* Split text (one line, without its '\n') into fields, in place.  Returns 0,
 * or -EPROTO with *why set to a fixed phrase saying what is wrong. */
int uz_pmi_line_parse(char *text, struct uz_pmi_line *line, const char **why);

/* The command of a parsed line (the value of its leading cmd= field). */
static inline const char *uz_pmi_line_cmd(const struct uz_pmi_line *line)
{
    return line->field[0].value;
}

/* The value of the first field called name, or NULL. */
const char *uz_pmi_line_value(const struct uz_pmi_line *line, const char *name);

/* Read field name as a decimal int: 0, -ENOENT when absent, -EINVAL when it
 * is not a whole number that fits in an int. */
int uz_pmi_line_int(const struct uz_pmi_line *line, const char *name, int *out);

/* 1 when s may be sent as a field value (or, with no_equals, a name): at most
 * max_len bytes, printable, no space; 0 otherwise. */
int uz_pmi_token_ok(const char *s, size_t max_len, int no_equals);

/* Copy at most UZ_PMI_EXCERPT_MAX bytes of (text, len) into out (of size
 * UZ_PMI_EXCERPT_MAX + 8) for quoting in a message: non-printable bytes
 * become \xNN, a cut is marked with "...".  Returns out. */
char *uz_pmi_excerpt(const char *text, size_t len, char *out);

/* Free text (an abort message) to something that fits in one field value:
 * bytes other than [A-Za-z0-9._,:/()-] become %XX.  out_cap includes '\0';
 * the result is cut short (never mid-escape) when it does not fit. */
void uz_pmi_percent_encode(const char *in, char *out, size_t out_cap);

/* Undo uz_pmi_percent_encode in place; malformed escapes are left as they are,
 * control characters other than newline and tab become '?'. */
void uz_pmi_percent_decode(char *s);

#endif /* UZ_PMI_WIRE_FORMAT_H */
