/* hooks.c: the core's registration points (core.h, struct cprof_hooks): what the
 * extensions plug into the core, filled by start.c as the runtime is loaded, so that
 * the core calls them without naming them. */
#include "core.h"

struct cprof_hooks cprof_hooks;
