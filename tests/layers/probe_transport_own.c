/* probe_transport_own.c — a transport reaches its own interface: the probes fail only for the forbidden include. */
#include "transport/transport.h"
int uz_probe;
