/*
 * attr_values.c — where attribute values set from Fortran live.
 *
 * MPI-4.1 §19.3.7 says what each language reads of an attribute the other
 * set: C reading a value that Fortran set (MPI_COMM_SET_ATTR's
 * INTEGER(KIND=MPI_ADDRESS_KIND), MPI_ATTR_PUT's INTEGER) gets a pointer
 * to an integer in MPI's own storage holding that value, and a C copy or
 * delete callback gets the same pointer; Fortran reading a value that C
 * set gets the pointer itself as an integer.  The C library only stores a
 * void *, so the glue gives each value set from Fortran a small cell, sets
 * the cell's address as the attribute, and remembers which addresses are
 * its cells: Fortran reads a cell's integer, and anything else as the
 * address it is.
 *
 * A cell goes when the attribute goes, which the glue sees only through
 * its own trampolines: a key made from Fortran (keyvals.c) frees the cell
 * once the Fortran delete procedure succeeds.  A value set from Fortran
 * under a key that C made stays allocated to the end of the program, as
 * the glue never hears of its deletion.  Cells hold an MPI_Aint; MPI-1's
 * INTEGER values are kept sign-extended in it, so a C pointer to the cell
 * reads them as an int too (Linux targets here are little-endian).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "uzf.h"

struct cell {
    MPI_Aint value;             /* first: the attribute is its address */
    struct cell *next;          /* in its bucket */
};

/* Few attributes are alive at once; a fixed table of short chains is
 * plenty, and lookups happen only in calls that touch attributes. */
enum { NBUCKETS = 256 };

static pthread_mutex_t cells_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cell *buckets[NBUCKETS];

static struct cell **bucket_of(const void *p)
{
    uintptr_t x = (uintptr_t)p >> 4;
    return &buckets[(x ^ (x >> 8) ^ (x >> 16)) % NBUCKETS];
}

void *uzf_attr_cell_new(MPI_Aint value)
{
    struct cell *c = malloc(sizeof(*c));
    if (c == NULL)
        return NULL;
    c->value = value;
    pthread_mutex_lock(&cells_lock);
    struct cell **b = bucket_of(c);
    c->next = *b;
    *b = c;
    pthread_mutex_unlock(&cells_lock);
    return &c->value;
}

/* The cell at `v`, unlinked from the table if `take`; NULL when v is not one. */
static struct cell *cell_find(void *v, int take)
{
    pthread_mutex_lock(&cells_lock);
    struct cell **p = bucket_of(v);
    while (*p != NULL && (void *)&(*p)->value != v)
        p = &(*p)->next;
    struct cell *c = *p;
    if (c != NULL && take)
        *p = c->next;
    pthread_mutex_unlock(&cells_lock);
    return c;
}

MPI_Aint uzf_attr_fortran_value(void *v)
{
    struct cell *c = cell_find(v, 0);
    return c != NULL ? c->value : (MPI_Aint)(intptr_t)v;
}

void uzf_attr_cell_free(void *v)
{
    free(cell_find(v, 1));
}
