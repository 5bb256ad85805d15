/*
 * layers.h — start-up and shut-down of the communication layers below the
 * MPI core (request layer, transports), called by MPI_Init and
 * MPI_Finalize.  Each returns MPI_SUCCESS or an error code with a message.
 */
#ifndef UZ_CORE_LAYERS_H
#define UZ_CORE_LAYERS_H

int uz_layers_init(void);
int uz_layers_finalize(void);

#endif /* UZ_CORE_LAYERS_H */
