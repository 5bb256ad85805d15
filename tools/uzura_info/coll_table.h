/*
 * coll_table.h — `uzura_info --coll-table`: which algorithm each collective
 * picks, by message size, ranks and ranks per core, under the UZURA_COLL_*
 * settings in the environment (the rules of src/coll/coll_policy.c, which
 * this program compiles in).
 */
#ifndef UZ_INFO_COLL_TABLE_H
#define UZ_INFO_COLL_TABLE_H

/* `variant` NULL or "host": blocking calls on a communicator within one
 * host; "hosts": a communicator spanning hosts (and nonblocking or
 * persistent calls anywhere).  Returns 0, or 2 (with a message on stderr)
 * when a UZURA_* value is invalid or the variant unknown. */
int uz_info_print_coll_table(const char *variant);

#endif
