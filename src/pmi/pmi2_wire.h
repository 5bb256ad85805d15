/*
 * pmi2_wire.h — the text of the PMI-2 wire protocol (MPICH's "PMI-2 wire
 * protocol", spoken by Slurm's pmi2 plugin): building a command and
 * splitting a reply into its fields.
 *
 *     message := length command
 *     length  := 6 characters: the decimal byte count of command, padded
 *                with spaces ("38    ")
 *     command := "cmd=" name ';' (key '=' value ';')*
 *
 * A ';' inside a key or value is doubled (";;"), so a value may hold any
 * printable byte.  Pure text functions with no I/O, so that they can be
 * tested alone (tests/pmi/pmi2_wire_test.c).
 */
#ifndef UZ_PMI2_WIRE_H
#define UZ_PMI2_WIRE_H

#include "pmi/wire_format.h"

#include <stddef.h>

enum {
    UZ_PMI2_LENGTH_DIGITS = 6,
    UZ_PMI2_COMMAND_MAX = 65536,   /* MPICH's limit; 6 digits could say more */
};

/* Build a whole message (length prefix included) into out: the command
 * name, then npairs fields.  Returns its length, or -ENOBUFS (it does not
 * fit in out_cap, '\0' included, or needs more than 6 digits of length) or
 * -EINVAL (an empty key, or a key or value with a control character). */
int uz_pmi2_format(char *out, size_t out_cap, const char *cmd,
                   const struct uz_pmi_field *pairs, int npairs);

/* The byte count of the 6-character length prefix: -EPROTO with *why set
 * when it is not digits with optional spaces, or not in 1..max. */
int uz_pmi2_length_parse(const char prefix[UZ_PMI2_LENGTH_DIGITS], size_t max,
                         size_t *len, const char **why);

/* Split a received command (without its prefix, '\0'-terminated) into
 * fields in place, undoing ";;".  The first field must be cmd=<name>.
 * Returns 0, or -EPROTO with *why set to a fixed phrase. */
int uz_pmi2_parse(char *text, struct uz_pmi_line *line, const char **why);

/* A PMI-2 boolean: 1 for "TRUE", 0 for "FALSE", -1 for anything else. */
int uz_pmi2_bool(const char *value);

#endif /* UZ_PMI2_WIRE_H */
