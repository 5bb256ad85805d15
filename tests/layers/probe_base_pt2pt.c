/* probe_base_pt2pt.c — base cannot reach the request layer either. */
#include "pt2pt/pt2pt.h"
int uz_probe;
