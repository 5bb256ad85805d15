/* probe_pt2pt_own.c — pt2pt.h builds from pt2pt's root, which needs what its headers include (transport/, datatype/, base/). */
#include "pt2pt/pt2pt.h"
int uz_probe;
