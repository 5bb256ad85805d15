/*
 * pmi_error.h — recording the one-line description behind a failing uz_pmi_*
 * call (what uz_pmi_last_error() returns).
 */
#ifndef UZ_PMI_ERROR_H
#define UZ_PMI_ERROR_H

/* Record a message (printf-style) and return err, so that a failure path
 * reads `return uz_pmi_fail(-EPROTO, "...", ...);`. */
int uz_pmi_fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* UZ_PMI_ERROR_H */
