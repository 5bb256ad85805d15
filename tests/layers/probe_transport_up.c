/* probe_transport_up.c — a transport cannot reach the request layer: its include root has no pt2pt/. */
#include "pt2pt/request.h"
int uz_probe;
