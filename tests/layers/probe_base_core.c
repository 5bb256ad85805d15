/* probe_base_core.c — base cannot reach core: its include root holds base/ alone. */
#include "core/comm.h"
int uz_probe;
