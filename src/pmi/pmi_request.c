/*
 * pmi_request.c — sending a PMI-1 request and checking the reply's shape.
 */
#include "pmi/pmi_request.h"
#include "pmi/pmi_error.h"

#include <errno.h>
#include <string.h>

static int reply_parse(struct uz_pmi_reply *reply)
{
    const char *why;
    uz_pmi_excerpt(reply->text, strlen(reply->text), reply->excerpt);
    if (uz_pmi_line_parse(reply->text, &reply->line, &why))
        return uz_pmi_fail(-EPROTO, "PMI: server reply to '%s' %s: '%s'",
                           reply->what, why, reply->excerpt);
    return 0;
}

int uz_pmi_reply_rc(struct uz_pmi_reply *reply, int *rc)
{
    int err = uz_pmi_line_int(&reply->line, "rc", rc);
    if (err == -ENOENT) {
        *rc = 0;
        return 0;
    }
    if (err)
        return uz_pmi_fail(-EPROTO, "PMI: server reply to '%s' has a non-numeric 'rc=': "
                           "'%s'", reply->what, reply->excerpt);
    return 0;
}

static int reply_check_rc(struct uz_pmi_reply *reply)
{
    int rc, err = uz_pmi_reply_rc(reply, &rc);
    if (err)
        return err;
    if (rc == 0)
        return 0;
    const char *msg = uz_pmi_line_value(&reply->line, "msg");
    return uz_pmi_fail(-EIO, "PMI: server refused '%s' (rc=%d%s%s): '%s'", reply->what, rc,
                       msg ? ", " : "", msg ? msg : "", reply->excerpt);
}

int uz_pmi_request(struct uz_pmi_conn *conn, const char *what, const char *request,
                   const char *reply_cmd, enum uz_pmi_rc_check rc_check,
                   struct uz_pmi_reply *reply)
{
    int err;
    reply->what = what;
    if (request && (err = uz_pmi_conn_send(conn, request, what)))
        return err;
    if ((err = uz_pmi_conn_recv(conn, reply->text, what)) || (err = reply_parse(reply)))
        return err;
    if (strcmp(uz_pmi_line_cmd(&reply->line), reply_cmd) != 0)
        return uz_pmi_fail(-EPROTO, "PMI: server replied to '%s' with 'cmd=%s' instead of "
                           "'cmd=%s': '%s'", what, uz_pmi_line_cmd(&reply->line), reply_cmd,
                           reply->excerpt);
    if (rc_check == UZ_PMI_RC_MUST_BE_ZERO)
        return reply_check_rc(reply);
    return 0;
}

int uz_pmi_reply_string(struct uz_pmi_reply *reply, const char *name, const char **out)
{
    *out = uz_pmi_line_value(&reply->line, name);
    if (!*out)
        return uz_pmi_fail(-EPROTO, "PMI: server reply to '%s' lacks '%s=': '%s'",
                           reply->what, name, reply->excerpt);
    return 0;
}

int uz_pmi_reply_int(struct uz_pmi_reply *reply, const char *name, int *out)
{
    int err = uz_pmi_line_int(&reply->line, name, out);
    if (err == -ENOENT)
        return uz_pmi_fail(-EPROTO, "PMI: server reply to '%s' lacks '%s=': '%s'",
                           reply->what, name, reply->excerpt);
    if (err)
        return uz_pmi_fail(-EPROTO, "PMI: server reply to '%s' has a non-numeric '%s=': "
                           "'%s'", reply->what, name, reply->excerpt);
    return 0;
}
