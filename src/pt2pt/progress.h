/*
 * progress.h — the progress engine's set-up, for wire-up (progress.c).
 */
#ifndef UZ_PT2PT_PROGRESS_H
#define UZ_PT2PT_PROGRESS_H

/* After wire-up (or at finalize, with no transports open): which open
 * transports progress runs and which wake a sleeping rank (uz_paths), and
 * whether this host has more ranks than processors. */
void uz_progress_configure(int oversubscribed);

/* A transport opened after wire-up (proc_table.c): progress and waiting
 * take it in. */
void uz_progress_paths_changed(void);

#endif /* UZ_PT2PT_PROGRESS_H */
