/*
 * pmi2_wire.c — PMI-2 messages as text (see pmi2_wire.h).
 *
 * Replies come from another process and are untrusted: parsing is bounded
 * and strict, and says in a fixed phrase what it did not like.
 */
#include "pmi/pmi2_wire.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Append s to out at *o, doubling ';'.  0, or -ENOBUFS / -EINVAL. */
static int append_escaped(char *out, size_t cap, size_t *o, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < ' ' || *p == 0x7f)
            return -EINVAL;
        size_t need = *p == ';' ? 2 : 1;
        if (*o + need >= cap)
            return -ENOBUFS;
        out[(*o)++] = (char)*p;
        if (*p == ';')
            out[(*o)++] = ';';
    }
    return 0;
}

static int append_char(char *out, size_t cap, size_t *o, char c)
{
    if (*o + 1 >= cap)
        return -ENOBUFS;
    out[(*o)++] = c;
    return 0;
}

static int append_field(char *out, size_t cap, size_t *o, const char *key, const char *value)
{
    int err;
    if (!key[0] || strchr(key, '='))
        return -EINVAL;
    if ((err = append_escaped(out, cap, o, key)) || (err = append_char(out, cap, o, '=')) ||
        (err = append_escaped(out, cap, o, value)) || (err = append_char(out, cap, o, ';')))
        return err;
    return 0;
}

int uz_pmi2_format(char *out, size_t out_cap, const char *cmd,
                   const struct uz_pmi_field *pairs, int npairs)
{
    size_t o = UZ_PMI2_LENGTH_DIGITS;
    if (out_cap <= o)
        return -ENOBUFS;
    int err = append_field(out, out_cap, &o, "cmd", cmd);
    for (int i = 0; i < npairs && !err; i++)
        err = append_field(out, out_cap, &o, pairs[i].name, pairs[i].value);
    if (err)
        return err;
    size_t body = o - UZ_PMI2_LENGTH_DIGITS;
    if (body > 999999)
        return -ENOBUFS;
    char prefix[UZ_PMI2_LENGTH_DIGITS + 1];
    snprintf(prefix, sizeof prefix, "%-6zu", body);
    memcpy(out, prefix, UZ_PMI2_LENGTH_DIGITS);
    out[o] = '\0';
    return (int)o;
}

int uz_pmi2_length_parse(const char prefix[UZ_PMI2_LENGTH_DIGITS], size_t max,
                         size_t *len, const char **why)
{
    size_t v = 0;
    int digits = 0, ended = 0;
    for (int i = 0; i < UZ_PMI2_LENGTH_DIGITS; i++) {
        char c = prefix[i];
        if (c >= '0' && c <= '9' && !ended) {
            v = v * 10 + (size_t)(c - '0');
            digits++;
        } else if (c == ' ' && digits == 0) {
            continue;                    /* right-aligned: "    38" */
        } else if (c == ' ') {
            ended = 1;                   /* left-aligned: "38    " */
        } else {
            *why = "has a length prefix that is not a number";
            return -EPROTO;
        }
    }
    if (digits == 0) {
        *why = "has a length prefix that is not a number";
        return -EPROTO;
    }
    if (v == 0 || v > max) {
        *why = v == 0 ? "announces an empty command" : "announces a command too long";
        return -EPROTO;
    }
    *len = v;
    return 0;
}

/* Cut one key or value out of text at *p, ending at the first single stop
 * character; ";;" becomes ';'.  Returns the start, or NULL at end of text
 * when the stop character never came. */
static char *take_token(char **p, char stop)
{
    char *start = *p, *out = *p;
    for (char *in = *p; *in; in++) {
        if (*in == ';' && in[1] == ';') {
            *out++ = ';';
            in++;
        } else if (*in == stop) {
            *out = '\0';
            *p = in + 1;
            return start;
        } else {
            *out++ = *in;
        }
    }
    return NULL;
}

int uz_pmi2_parse(char *text, struct uz_pmi_line *line, const char **why)
{
    line->nfields = 0;
    for (const unsigned char *c = (const unsigned char *)text; *c; c++) {
        if (*c < ' ' || *c == 0x7f) {
            *why = "contains a control character";
            return -EPROTO;
        }
    }
    char *p = text;
    while (*p) {
        if (line->nfields == UZ_PMI_FIELDS_MAX) {
            *why = "has too many fields";
            return -EPROTO;
        }
        char *key = take_token(&p, '=');
        char *value = key ? take_token(&p, ';') : NULL;
        if (!key || !value) {
            *why = key ? "has a field without its closing ';'" : "has a field without '='";
            return -EPROTO;
        }
        if (!key[0]) {
            *why = "has a field with an empty name";
            return -EPROTO;
        }
        line->field[line->nfields].name = key;
        line->field[line->nfields].value = value;
        line->nfields++;
    }
    if (line->nfields == 0) {
        *why = "is empty";
        return -EPROTO;
    }
    if (strcmp(line->field[0].name, "cmd") != 0 || !line->field[0].value[0]) {
        *why = "does not start with 'cmd=<name>;'";
        return -EPROTO;
    }
    return 0;
}

int uz_pmi2_bool(const char *value)
{
    if (value && strcmp(value, "TRUE") == 0)
        return 1;
    if (value && strcmp(value, "FALSE") == 0)
        return 0;
    return -1;
}
