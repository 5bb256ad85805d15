/*
 * coll_chosen.c — the record of each collective's last choice (coll_chosen.h).
 */
#include "coll/coll_chosen.h"

int uz_coll_chosen[UZ_COLL_OPS];
