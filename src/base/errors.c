/*
 * errors.c — error codes with messages, error classes and their strings,
 * and the user-extensible part (MPI_Add_error_class/code/string).
 *
 * A dynamic code is 0x40000000 | (sequence << 16) | class: it maps to its
 * class with a mask and to its message through a ring of recent messages
 * indexed by the sequence number.  The ring is small because a message only
 * matters until the user reads it; an overwritten one falls back to the
 * class's text, never to a wrong message (the slot stores the whole code).
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errors.h"
#include "base/runtime.h"

enum {
    DYNAMIC_BIT = 0x40000000,
    DYNAMIC_SEQ_SHIFT = 16,
    DYNAMIC_SEQ_MASK = 0x3fff,
    CLASS_MASK = 0xffff,
    RING_SIZE = 256,
    MESSAGE_MAX = 384,
    FUNCTION_MAX = 64,
    /* User classes and codes are numbered from here, above every
     * predefined class (MPI_ERR_LASTCODE is 0x3fff). */
    USER_FIRST = 0x4000,
    USER_MAX = 0x4000,
};

struct ring_slot {
    int code;                   /* the full dynamic code, 0 when unused */
    char function[FUNCTION_MAX];
    char message[MESSAGE_MAX];
};

static struct ring_slot ring[RING_SIZE];
static atomic_uint ring_seq;

/* --------------------------------------------------- predefined classes */

static const char *const class_names[] = {
    [MPI_SUCCESS] = "MPI_SUCCESS",
    [MPI_ERR_BUFFER] = "MPI_ERR_BUFFER",
    [MPI_ERR_COUNT] = "MPI_ERR_COUNT",
    [MPI_ERR_TYPE] = "MPI_ERR_TYPE",
    [MPI_ERR_TAG] = "MPI_ERR_TAG",
    [MPI_ERR_COMM] = "MPI_ERR_COMM",
    [MPI_ERR_RANK] = "MPI_ERR_RANK",
    [MPI_ERR_REQUEST] = "MPI_ERR_REQUEST",
    [MPI_ERR_ROOT] = "MPI_ERR_ROOT",
    [MPI_ERR_GROUP] = "MPI_ERR_GROUP",
    [MPI_ERR_OP] = "MPI_ERR_OP",
    [MPI_ERR_TOPOLOGY] = "MPI_ERR_TOPOLOGY",
    [MPI_ERR_DIMS] = "MPI_ERR_DIMS",
    [MPI_ERR_ARG] = "MPI_ERR_ARG",
    [MPI_ERR_UNKNOWN] = "MPI_ERR_UNKNOWN",
    [MPI_ERR_TRUNCATE] = "MPI_ERR_TRUNCATE",
    [MPI_ERR_OTHER] = "MPI_ERR_OTHER",
    [MPI_ERR_INTERN] = "MPI_ERR_INTERN",
    [MPI_ERR_PENDING] = "MPI_ERR_PENDING",
    [MPI_ERR_IN_STATUS] = "MPI_ERR_IN_STATUS",
    [MPI_ERR_ACCESS] = "MPI_ERR_ACCESS",
    [MPI_ERR_AMODE] = "MPI_ERR_AMODE",
    [MPI_ERR_ASSERT] = "MPI_ERR_ASSERT",
    [MPI_ERR_BAD_FILE] = "MPI_ERR_BAD_FILE",
    [MPI_ERR_BASE] = "MPI_ERR_BASE",
    [MPI_ERR_CONVERSION] = "MPI_ERR_CONVERSION",
    [MPI_ERR_DISP] = "MPI_ERR_DISP",
    [MPI_ERR_DUP_DATAREP] = "MPI_ERR_DUP_DATAREP",
    [MPI_ERR_FILE_EXISTS] = "MPI_ERR_FILE_EXISTS",
    [MPI_ERR_FILE_IN_USE] = "MPI_ERR_FILE_IN_USE",
    [MPI_ERR_FILE] = "MPI_ERR_FILE",
    [MPI_ERR_INFO_KEY] = "MPI_ERR_INFO_KEY",
    [MPI_ERR_INFO_NOKEY] = "MPI_ERR_INFO_NOKEY",
    [MPI_ERR_INFO_VALUE] = "MPI_ERR_INFO_VALUE",
    [MPI_ERR_INFO] = "MPI_ERR_INFO",
    [MPI_ERR_IO] = "MPI_ERR_IO",
    [MPI_ERR_KEYVAL] = "MPI_ERR_KEYVAL",
    [MPI_ERR_LOCKTYPE] = "MPI_ERR_LOCKTYPE",
    [MPI_ERR_NAME] = "MPI_ERR_NAME",
    [MPI_ERR_NO_MEM] = "MPI_ERR_NO_MEM",
    [MPI_ERR_NOT_SAME] = "MPI_ERR_NOT_SAME",
    [MPI_ERR_NO_SPACE] = "MPI_ERR_NO_SPACE",
    [MPI_ERR_NO_SUCH_FILE] = "MPI_ERR_NO_SUCH_FILE",
    [MPI_ERR_PORT] = "MPI_ERR_PORT",
    [MPI_ERR_QUOTA] = "MPI_ERR_QUOTA",
    [MPI_ERR_READ_ONLY] = "MPI_ERR_READ_ONLY",
    [MPI_ERR_RMA_ATTACH] = "MPI_ERR_RMA_ATTACH",
    [MPI_ERR_RMA_CONFLICT] = "MPI_ERR_RMA_CONFLICT",
    [MPI_ERR_RMA_RANGE] = "MPI_ERR_RMA_RANGE",
    [MPI_ERR_RMA_SHARED] = "MPI_ERR_RMA_SHARED",
    [MPI_ERR_RMA_SYNC] = "MPI_ERR_RMA_SYNC",
    [MPI_ERR_SERVICE] = "MPI_ERR_SERVICE",
    [MPI_ERR_SIZE] = "MPI_ERR_SIZE",
    [MPI_ERR_SPAWN] = "MPI_ERR_SPAWN",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "MPI_ERR_UNSUPPORTED_DATAREP",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "MPI_ERR_UNSUPPORTED_OPERATION",
    [MPI_ERR_WIN] = "MPI_ERR_WIN",
    [MPI_ERR_RMA_FLAVOR] = "MPI_ERR_RMA_FLAVOR",
    [MPI_ERR_PROC_ABORTED] = "MPI_ERR_PROC_ABORTED",
    [MPI_ERR_VALUE_TOO_LARGE] = "MPI_ERR_VALUE_TOO_LARGE",
    [MPI_ERR_SESSION] = "MPI_ERR_SESSION",
    [MPI_ERR_ERRHANDLER] = "MPI_ERR_ERRHANDLER",
    [MPI_ERR_ABI] = "MPI_ERR_ABI",
};

static const char *const class_texts[] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count argument",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimension argument",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated on receive",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_PENDING] = "request pending",
    [MPI_ERR_IN_STATUS] = "error code is in status",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_AMODE] = "invalid file access mode",
    [MPI_ERR_ASSERT] = "invalid assertion",
    [MPI_ERR_BAD_FILE] = "invalid file name",
    [MPI_ERR_BASE] = "invalid base address",
    [MPI_ERR_CONVERSION] = "data conversion failed",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_DUP_DATAREP] = "data representation already defined",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_FILE] = "invalid file handle",
    [MPI_ERR_INFO_KEY] = "info key too long",
    [MPI_ERR_INFO_NOKEY] = "info key not defined",
    [MPI_ERR_INFO_VALUE] = "info value too long",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_KEYVAL] = "invalid attribute key",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_NAME] = "name not published",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_NOT_SAME] = "arguments differ between processes",
    [MPI_ERR_NO_SPACE] = "no space left",
    [MPI_ERR_NO_SUCH_FILE] = "no such file",
    [MPI_ERR_PORT] = "invalid port name",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "file is read-only",
    [MPI_ERR_RMA_ATTACH] = "memory cannot be attached to the window",
    [MPI_ERR_RMA_CONFLICT] = "conflicting accesses to a window",
    [MPI_ERR_RMA_RANGE] = "target memory outside the window",
    [MPI_ERR_RMA_SHARED] = "memory cannot be shared",
    [MPI_ERR_RMA_SYNC] = "wrong synchronization of RMA calls",
    [MPI_ERR_SERVICE] = "invalid service name",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_SPAWN] = "could not spawn processes",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "operation not supported",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
    [MPI_ERR_PROC_ABORTED] = "operation with a process that aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "value too large to store",
    [MPI_ERR_SESSION] = "invalid session",
    [MPI_ERR_ERRHANDLER] = "invalid error handler",
    [MPI_ERR_ABI] = "ABI mismatch",
};

enum { PREDEFINED_LAST = MPI_ERR_ABI };

static int is_tool_class(int c)
{
    return c >= MPI_T_ERR_CANNOT_INIT && c <= MPI_T_ERR_PVAR_NO_ATOMIC;
}

static const char *tool_class_text(int c)
{
    static const char *const texts[] = {
        "MPI_T cannot be initialized", "MPI_T variable not accessible now",
        "MPI_T not initialized", "MPI_T request not supported", "MPI_T out of memory",
        "MPI_T invalid argument", "MPI_T invalid index", "MPI_T invalid item",
        "MPI_T invalid session", "MPI_T invalid handle", "MPI_T invalid name",
        "MPI_T out of handles", "MPI_T out of sessions", "MPI_T control variable cannot be set now",
        "MPI_T control variable can never be set", "MPI_T performance variable cannot be written",
        "MPI_T performance variable cannot be started or stopped",
        "MPI_T performance variable cannot be read and reset atomically",
    };
    return texts[c - MPI_T_ERR_CANNOT_INIT];
}

const char *uz_err_class_name(int errclass)
{
    if (errclass >= 0 && errclass <= PREDEFINED_LAST)
        return class_names[errclass];
    return NULL;
}

/* ------------------------------------------------------ user additions */

/* MPI-4.1 lets a program remove what it added (MPI_Remove_error_*), so a
 * long-running program may add and remove codes without end: a value is
 * taken from a bitmap of the USER_MAX values, the lowest free one first,
 * and goes back to it when removed.  Lowest-first keeps the values, and so
 * MPI_LASTUSEDCODE (the largest value in use), as small as they can be. */
struct user_entry {
    int in_use;
    int is_class;
    int errclass;               /* for codes: their class; for classes: itself */
    char *string;
};

enum { USER_WORDS = USER_MAX / 64 };

static struct user_entry user_entries[USER_MAX];
static uint64_t user_used[USER_WORDS];  /* bit i: value USER_FIRST + i is in use */
static pthread_mutex_t user_lock = PTHREAD_MUTEX_INITIALIZER;

static int lowest_free_index(void)
{
    for (int w = 0; w < USER_WORDS; w++)
        if (~user_used[w])
            return w * 64 + __builtin_ctzll(~user_used[w]);
    return -1;
}

static int highest_used_index(void)
{
    for (int w = USER_WORDS - 1; w >= 0; w--)
        if (user_used[w])
            return w * 64 + 63 - __builtin_clzll(user_used[w]);
    return -1;
}

static void mark_used(int index, int used)
{
    uint64_t bit = 1ull << (index % 64);
    if (used)
        user_used[index / 64] |= bit;
    else
        user_used[index / 64] &= ~bit;
}

static struct user_entry *user_lookup(int value)
{
    if (value < USER_FIRST || value >= USER_FIRST + USER_MAX)
        return NULL;
    struct user_entry *e = &user_entries[value - USER_FIRST];
    return e->in_use ? e : NULL;
}

static int user_add(int is_class, int errclass, int *out)
{
    pthread_mutex_lock(&user_lock);
    int index = lowest_free_index();
    if (index < 0) {
        pthread_mutex_unlock(&user_lock);
        return uz_err_make(MPI_ERR_OTHER, "no more error classes or codes can be added: %d are in "
                           "use (remove some with MPI_Remove_error_code/class)", USER_MAX);
    }
    int value = USER_FIRST + index;
    struct user_entry *e = &user_entries[index];
    e->is_class = is_class;
    e->errclass = is_class ? value : errclass;
    e->string = NULL;
    e->in_use = 1;
    mark_used(index, 1);
    pthread_mutex_unlock(&user_lock);
    *out = value;
    return MPI_SUCCESS;
}

int uz_err_add_class(int *errclass)
{
    return user_add(1, 0, errclass);
}

int uz_err_add_code(int errclass, int *errcode)
{
    pthread_mutex_lock(&user_lock);
    struct user_entry *e = user_lookup(errclass);
    int valid = (errclass >= 0 && errclass <= PREDEFINED_LAST) || is_tool_class(errclass) ||
                (e && e->is_class);
    pthread_mutex_unlock(&user_lock);
    if (!valid)
        return uz_err_make(MPI_ERR_ARG, "invalid error class %d", errclass);
    return user_add(0, errclass, errcode);
}

int uz_err_add_string(int errcode, const char *string)
{
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return uz_err_make(MPI_ERR_ARG, "error string of %zu characters is longer than "
                           "MPI_MAX_ERROR_STRING - 1", strlen(string));
    char *copy = strdup(string);
    if (!copy)
        return uz_err_make(MPI_ERR_NO_MEM, "out of memory copying an error string");
    pthread_mutex_lock(&user_lock);
    struct user_entry *e = user_lookup(errcode);
    if (!e) {
        pthread_mutex_unlock(&user_lock);
        free(copy);
        return uz_err_make(MPI_ERR_ARG, "error code %d was not added by the user; "
                           "only user-added codes and classes can be given a string", errcode);
    }
    free(e->string);
    e->string = copy;
    pthread_mutex_unlock(&user_lock);
    return MPI_SUCCESS;
}

static int user_remove(int value, int want_class)
{
    /* Looked up under the lock: a value freed here may be handed out again
     * at once by another thread's MPI_Add_error_*. */
    pthread_mutex_lock(&user_lock);
    struct user_entry *e = user_lookup(value);
    if (!e || e->is_class != want_class) {
        pthread_mutex_unlock(&user_lock);
        return uz_err_make(MPI_ERR_ARG, "%d is not a user-added error %s", value,
                           want_class ? "class" : "code");
    }
    /* MPI-4.1 §9.5: a class or code may be removed only once its string
     * has been removed (MPI_Remove_error_string), so that a program that
     * still names it by string does not find a recycled value. */
    if (e->string) {
        pthread_mutex_unlock(&user_lock);
        return uz_err_make(MPI_ERR_ARG, "error %s %d still has a string (remove it first)",
                           want_class ? "class" : "code", value);
    }
    if (want_class) {
        for (int i = 0, last = highest_used_index(); i <= last; i++) {
            if (user_entries[i].in_use && !user_entries[i].is_class &&
                user_entries[i].errclass == value) {
                pthread_mutex_unlock(&user_lock);
                return uz_err_make(MPI_ERR_ARG, "error class %d still has error code %d",
                                   value, USER_FIRST + i);
            }
        }
    }
    free(e->string);
    e->string = NULL;
    e->in_use = 0;
    mark_used(value - USER_FIRST, 0);
    pthread_mutex_unlock(&user_lock);
    return MPI_SUCCESS;
}

int uz_err_remove_class(int errclass) { return user_remove(errclass, 1); }
int uz_err_remove_code(int errcode) { return user_remove(errcode, 0); }

int uz_err_remove_string(int errcode)
{
    pthread_mutex_lock(&user_lock);
    struct user_entry *e = user_lookup(errcode);
    if (!e || !e->string) {
        pthread_mutex_unlock(&user_lock);
        return uz_err_make(MPI_ERR_ARG, "error code %d has no user-added string", errcode);
    }
    free(e->string);
    e->string = NULL;
    pthread_mutex_unlock(&user_lock);
    return MPI_SUCCESS;
}

/* The largest user class or code in use (MPI_ERR_LASTCODE when none is),
 * so every value a program holds is at most MPI_LASTUSEDCODE. */
int uz_err_last_used_code(void)
{
    pthread_mutex_lock(&user_lock);
    int last = highest_used_index();
    pthread_mutex_unlock(&user_lock);
    return last >= 0 ? USER_FIRST + last : MPI_ERR_LASTCODE;
}

/* ------------------------------------------------------ dynamic codes */

int uz_err_makev(int errclass, const char *fmt, va_list ap)
{
    unsigned seq = atomic_fetch_add_explicit(&ring_seq, 1, memory_order_relaxed) & DYNAMIC_SEQ_MASK;
    int code = DYNAMIC_BIT | (int)(seq << DYNAMIC_SEQ_SHIFT) | (errclass & CLASS_MASK);
    struct ring_slot *slot = &ring[seq % RING_SIZE];
    slot->code = 0;
    slot->function[0] = '\0';
    vsnprintf(slot->message, sizeof(slot->message), fmt, ap);
    slot->code = code;
    return code;
}

int uz_err_make(int errclass, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = uz_err_makev(errclass, fmt, ap);
    va_end(ap);
    return code;
}

static struct ring_slot *ring_lookup(int code)
{
    if (!(code & DYNAMIC_BIT) || code < 0)
        return NULL;
    unsigned seq = ((unsigned)code >> DYNAMIC_SEQ_SHIFT) & DYNAMIC_SEQ_MASK;
    struct ring_slot *slot = &ring[seq % RING_SIZE];
    return slot->code == code ? slot : NULL;
}

void uz_err_set_function(int code, const char *fn)
{
    struct ring_slot *slot = ring_lookup(code);
    if (slot && slot->function[0] == '\0')
        snprintf(slot->function, sizeof(slot->function), "%s", fn);
}

int uz_err_class(int code)
{
    if (code >= 0 && code <= PREDEFINED_LAST)
        return code;
    if (is_tool_class(code))
        return code;
    if (code > 0 && (code & DYNAMIC_BIT))
        return code & CLASS_MASK;
    pthread_mutex_lock(&user_lock);     /* another thread may be reusing it */
    struct user_entry *e = user_lookup(code);
    int errclass = e ? e->errclass : MPI_ERR_UNKNOWN;
    pthread_mutex_unlock(&user_lock);
    return errclass;
}

int uz_err_code_is_valid(int code)
{
    if ((code >= 0 && code <= PREDEFINED_LAST) || is_tool_class(code))
        return 1;
    if (code > 0 && (code & DYNAMIC_BIT))
        return 1;
    pthread_mutex_lock(&user_lock);
    int valid = user_lookup(code) != NULL;
    pthread_mutex_unlock(&user_lock);
    return valid;
}

/* A predefined or MPI_T class's text (user classes have their strings). */
static const char *class_text(int errclass)
{
    if (errclass >= 0 && errclass <= PREDEFINED_LAST)
        return class_texts[errclass];
    return is_tool_class(errclass) ? tool_class_text(errclass) : "";
}

void uz_err_string(int code, char *buf, int buflen)
{
    struct ring_slot *slot = ring_lookup(code);
    if (slot) {
        if (slot->function[0])
            snprintf(buf, buflen, "%s: %s", slot->function, slot->message);
        else
            snprintf(buf, buflen, "%s", slot->message);
        return;
    }
    pthread_mutex_lock(&user_lock);     /* the string may be being removed */
    struct user_entry *e = user_lookup(code);
    if (e)
        snprintf(buf, buflen, "%s", e->string ? e->string : "");
    pthread_mutex_unlock(&user_lock);
    if (e)
        return;
    if (code > 0 && (code & DYNAMIC_BIT))
        code = code & CLASS_MASK;      /* message overwritten: say the class */
    if ((code >= 0 && code <= PREDEFINED_LAST) || is_tool_class(code))
        snprintf(buf, buflen, "%s", class_text(code));
    else
        snprintf(buf, buflen, "unknown error code %d", code);
}

int uz_err_unsupported(const char *fn)
{
    return uz_err_make(MPI_ERR_UNSUPPORTED_OPERATION,
                       "%s is not implemented in Uzura yet (see docs/api-coverage.md)", fn);
}

void uz_err_fatal(int code, const char *context)
{
    char text[MPI_MAX_ERROR_STRING];
    uz_err_string(code, text, sizeof(text));
    int errclass = uz_err_class(code);
    const char *name = uz_err_class_name(errclass);
    char line[MPI_MAX_ERROR_STRING + 256];
    if (name)
        snprintf(line, sizeof(line), "%s (%s)", text, name);
    else
        snprintf(line, sizeof(line), "%s (error class %d)", text, errclass);
    (void)context;
    int exit_code = errclass > 0 && errclass < 256 ? errclass : 1;
    uz_runtime_abort(exit_code, line);
}

int uz_err_not_running(const char *fn)
{
    int state = atomic_load(&uz_rt.state);
    fprintf(stderr, "Uzura: %s called %s; only a few procedures "
            "(MPI_Initialized, MPI_Finalized, MPI_Get_version, MPI_Info_*, MPI_T_*, ...) "
            "may be called then\n", fn,
            state == UZ_STATE_FINALIZED ? "after MPI_Finalize" : "before MPI_Init");
    fflush(stderr);
    exit(1);
}
