/*
 * pmi_error.c — the message behind the last failing uz_pmi_* call.
 *
 * Kept per thread: two threads that fail at once each see their own reason,
 * and reading it needs no lock.
 */
#include "pmi/pmi.h"
#include "pmi/pmi_error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[512] = "no error";

int uz_pmi_fail(int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return err;
}

const char *uz_pmi_last_error(void)
{
    return last_error;
}
