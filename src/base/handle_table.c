/*
 * handle_table.c — integer handles for objects whose C handle is a pointer.
 *
 * The standard ABI needs an int for every handle (MPI_Comm_toint, and the
 * Fortran MPI_Comm_c2f, which is the same value here because MPI_Fint is
 * int).  Predefined handles already are small integers.  Any other object
 * gets a slot in one table on first request, numbered from 0x1000 up so
 * that no slot can look predefined; the slot is released when the object
 * is destroyed and then reused.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/errors.h"
#include "base/object.h"

enum { FIRST_SLOT_VALUE = UZ_PREDEFINED_HANDLE_LIMIT };

static struct uz_object **slots;
static int nslots, capacity;
static int free_hint;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

int uz_handle_to_int(const void *handle)
{
    if (uz_handle_is_predefined(handle))
        return (int)(uintptr_t)handle;
    /* Not an object, or a dead one: the value that converts back to the
     * null handle. */
    struct uz_object *obj = (struct uz_object *)handle;
    if (!uz_arena_holds(obj) || obj->magic == UZ_MAGIC_FREED || obj->magic == 0)
        return -1;
    if (obj->int_handle)
        return obj->int_handle;
    pthread_mutex_lock(&table_lock);
    int value = obj->int_handle;
    if (!value) {
        int i = free_hint;
        while (i < nslots && slots[i])
            i++;
        if (i == capacity) {
            int cap = capacity ? 2 * capacity : 64;
            struct uz_object **n = realloc(slots, cap * sizeof(*n));
            if (!n) {
                pthread_mutex_unlock(&table_lock);
                return -1;      /* cannot happen in practice */
            }
            slots = n;
            capacity = cap;
        }
        if (i == nslots)
            nslots++;
        slots[i] = obj;
        free_hint = i + 1;
        value = FIRST_SLOT_VALUE + i;
        obj->int_handle = value;
    }
    pthread_mutex_unlock(&table_lock);
    return value;
}

void *uz_handle_from_int(int value, void *null_handle)
{
    if (value >= 0 && value < FIRST_SLOT_VALUE)
        return (void *)(uintptr_t)value;
    void *obj = null_handle;
    pthread_mutex_lock(&table_lock);
    int i = value - FIRST_SLOT_VALUE;
    if (i >= 0 && i < nslots && slots[i])
        obj = slots[i];
    pthread_mutex_unlock(&table_lock);
    return obj;
}

void uz_handle_forget(struct uz_object *obj)
{
    pthread_mutex_lock(&table_lock);
    int i = obj->int_handle - FIRST_SLOT_VALUE;
    if (i >= 0 && i < nslots && slots[i] == obj) {
        slots[i] = NULL;
        if (i < free_hint)
            free_hint = i;
    }
    obj->int_handle = 0;
    pthread_mutex_unlock(&table_lock);
}
