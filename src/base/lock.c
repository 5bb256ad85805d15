/*
 * lock.c — the process lock of lock.h, defined once.
 */
#include "base/lock.h"

pthread_mutex_t uz_big_lock = PTHREAD_MUTEX_INITIALIZER;
