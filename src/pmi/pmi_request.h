/*
 * pmi_request.h — one PMI-1 request and its checked reply.
 *
 * Every reply is checked the same way (parses, names the expected command,
 * rc=0 when it carries an rc) so that each uz_pmi_* call only deals with the
 * fields it wants, and each complaint quotes the line that caused it.
 */
#ifndef UZ_PMI_REQUEST_H
#define UZ_PMI_REQUEST_H

#include "pmi/wire_conn.h"
#include "pmi/wire_format.h"

struct uz_pmi_reply {
    const char *what;                        /* request it answers, for messages */
    struct uz_pmi_line line;                 /* fields, pointing into text */
    char text[UZ_PMI_LINE_MAX];
    char excerpt[UZ_PMI_EXCERPT_MAX + 8];    /* the line as received, printable */
};

enum uz_pmi_rc_check {
    UZ_PMI_RC_MUST_BE_ZERO,     /* rc != 0 is an error (-EIO) */
    UZ_PMI_RC_LEFT_TO_CALLER,   /* e.g. get, where rc != 0 means "no such key" */
};

/* Send request (a whole line, '\n' included) unless it is NULL, then read
 * one reply and check that its command is reply_cmd. */
int uz_pmi_request(struct uz_pmi_conn *conn, const char *what, const char *request,
                   const char *reply_cmd, enum uz_pmi_rc_check rc_check,
                   struct uz_pmi_reply *reply);

/* The rc of a reply (0 when it has none), or -EPROTO if it is not a number. */
int uz_pmi_reply_rc(struct uz_pmi_reply *reply, int *rc);

/* A field that must be present: -EPROTO with a message quoting the reply
 * when it is missing (or, for _int, not a number). */
int uz_pmi_reply_string(struct uz_pmi_reply *reply, const char *name, const char **out);
int uz_pmi_reply_int(struct uz_pmi_reply *reply, const char *name, int *out);

#endif /* UZ_PMI_REQUEST_H */
