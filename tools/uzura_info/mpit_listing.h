/*
 * mpit_listing.h — what uzura_info prints of the MPI tool information
 * interface: control variables, performance variables, events and
 * categories, as a tool sees them through MPI_T_* (so the listing is the
 * interface's own answer, not a copy of its tables).
 */
#ifndef UZ_INFO_MPIT_LISTING_H
#define UZ_INFO_MPIT_LISTING_H

/* Each returns 0, or 1 when MPI_T could not be initialized or (param) the
 * name is no control variable. */
int uz_info_print_cvars(void);
int uz_info_print_param(const char *name);
int uz_info_print_pvars(void);
int uz_info_print_events(void);
int uz_info_print_categories(void);
/* The tables of docs/tools-interface.md (tools/gen/gen_tools_doc.py). */
int uz_info_print_markdown(void);

#endif
