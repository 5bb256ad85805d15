/*
 * errors.h — error codes that carry a message, and error classes.  Raising
 * a code through the handler of the object it belongs to is the MPI core's
 * (core/error_raise.h).
 *
 * An error code returned to the user is either a class (0..62, the MPI_T
 * classes, or one added with MPI_Add_error_class), a code added with
 * MPI_Add_error_code, or a "dynamic" code made by uz_err_make().  A dynamic
 * code remembers its class and a message ("invalid count -1"); when it is
 * raised the binding adds the function name, so MPI_Error_string gives
 * "MPI_Send: invalid count -1".  Messages live in a ring, so an old code
 * still maps to its class but may lose its text.
 */
#ifndef UZ_BASE_ERRORS_H
#define UZ_BASE_ERRORS_H

#include <stdarg.h>

#include "base/object.h"

/* Make a code of class `errclass` whose message is the printf-style text. */
int uz_err_make(int errclass, const char *fmt, ...) __attribute__((format(printf, 2, 3))) UZ_COLD;
int uz_err_makev(int errclass, const char *fmt, va_list ap) UZ_COLD;

/* The class of any error code (MPI_ERR_UNKNOWN for a code we never made). */
int uz_err_class(int code);

/* Is this a code or class the library knows? */
int uz_err_code_is_valid(int code);

/* The full text for a code: "MPI_Send: invalid count -1", or the class's
 * description when the code carries no message. */
void uz_err_string(int code, char *buf, int buflen);

/* Name of a predefined class ("MPI_ERR_COUNT"), or NULL. */
const char *uz_err_class_name(int errclass);

/* Record which MPI function a dynamic code came from (first caller wins). */
void uz_err_set_function(int code, const char *fn);

/* The code a procedure that is not implemented yet returns. */
int uz_err_unsupported(const char *fn) UZ_COLD;

/* Called when a procedure other than the few allowed is used before
 * MPI_Init or after MPI_Finalize: prints and ends the process. */
int uz_err_not_running(const char *fn) UZ_COLD;

/* User-added classes, codes and strings (MPI_Add_error_*). */
int uz_err_add_class(int *errclass);
int uz_err_add_code(int errclass, int *errcode);
int uz_err_add_string(int errcode, const char *string);
int uz_err_remove_class(int errclass);
int uz_err_remove_code(int errcode);
int uz_err_remove_string(int errcode);
int uz_err_last_used_code(void);

/* Print "Uzura rank R: <text> (<CLASS>)" to stderr and abort the job. */
void uz_err_fatal(int code, const char *context) __attribute__((noreturn)) UZ_COLD;

#endif /* UZ_BASE_ERRORS_H */
