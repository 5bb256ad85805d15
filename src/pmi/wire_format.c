/*
 * wire_format.c — parsing the text of PMI-1 lines (see wire_format.h).
 *
 * Every byte a peer sends is untrusted: a malformed line must produce a
 * clear complaint, never a crash, so parsing is strict and bounded.
 */
#include "pmi/wire_format.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_printable(unsigned char c)
{
    return c > ' ' && c != 0x7f;
}

/* Split one "name=value" token in place. */
static int field_parse(char *token, struct uz_pmi_field *field, const char **why)
{
    char *equals = strchr(token, '=');
    if (!equals) {
        *why = "has a field without '='";
        return -EPROTO;
    }
    if (equals == token) {
        *why = "has a field with an empty name";
        return -EPROTO;
    }
    *equals = '\0';
    field->name = token;
    field->value = equals + 1;
    return 0;
}

int uz_pmi_line_parse(char *text, struct uz_pmi_line *line, const char **why)
{
    line->nfields = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p != ' ' && !is_printable(*p) && *p < 0x80) {
            *why = "contains a control character";
            return -EPROTO;
        }
    }
    char *p = text;
    for (;;) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        if (line->nfields == UZ_PMI_FIELDS_MAX) {
            *why = "has too many fields";
            return -EPROTO;
        }
        char *token = p;
        while (*p && *p != ' ')
            p++;
        if (*p)
            *p++ = '\0';
        int err = field_parse(token, &line->field[line->nfields], why);
        if (err)
            return err;
        line->nfields++;
    }
    if (line->nfields == 0) {
        *why = "is empty";
        return -EPROTO;
    }
    if (strcmp(line->field[0].name, "cmd") != 0) {
        *why = "does not start with 'cmd='";
        return -EPROTO;
    }
    if (!line->field[0].value[0]) {
        *why = "has an empty command";
        return -EPROTO;
    }
    return 0;
}

const char *uz_pmi_line_value(const struct uz_pmi_line *line, const char *name)
{
    for (int i = 0; i < line->nfields; i++)
        if (strcmp(line->field[i].name, name) == 0)
            return line->field[i].value;
    return NULL;
}

int uz_pmi_line_int(const struct uz_pmi_line *line, const char *name, int *out)
{
    const char *text = uz_pmi_line_value(line, name);
    if (!text)
        return -ENOENT;
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (end == text || *end || errno || v < INT_MIN || v > INT_MAX)
        return -EINVAL;
    *out = (int)v;
    return 0;
}

int uz_pmi_token_ok(const char *s, size_t max_len, int no_equals)
{
    size_t n = 0;
    for (; s[n]; n++) {
        unsigned char c = (unsigned char)s[n];
        if (n == max_len || !is_printable(c) || (no_equals && c == '='))
            return 0;
    }
    return 1;
}

char *uz_pmi_excerpt(const char *text, size_t len, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (o + 4 > UZ_PMI_EXCERPT_MAX) {
            memcpy(out + o, "...", 3);
            o += 3;
            break;
        }
        if (c >= ' ' && c < 0x7f)
            out[o++] = (char)c;
        else
            o += (size_t)sprintf(out + o, "\\x%02x", c);
    }
    out[o] = '\0';
    return out;
}

static int needs_escape(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return 0;
    return !strchr("._,:/()-", c) || c == '\0';
}

void uz_pmi_percent_encode(const char *in, char *out, size_t out_cap)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p; p++) {
        size_t need = needs_escape(*p) ? 3 : 1;
        if (o + need + 1 > out_cap)
            break;
        if (need == 1) {
            out[o++] = (char)*p;
        } else {
            out[o++] = '%';
            out[o++] = hex[*p >> 4];
            out[o++] = hex[*p & 15];
        }
    }
    if (out_cap)
        out[o] = '\0';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void uz_pmi_percent_decode(char *s)
{
    char *out = s;
    for (char *p = s; *p; p++) {
        int hi, lo;
        char c = *p;
        if (c == '%' && (hi = hex_value(p[1])) >= 0 && (lo = hex_value(p[2])) >= 0) {
            c = (char)(hi << 4 | lo);
            p += 2;
        }
        if ((unsigned char)c < ' ' && c != '\n' && c != '\t')
            c = '?';
        *out++ = c;
    }
    *out = '\0';
}
