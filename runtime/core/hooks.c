/* hooks.c: the core's registration points (core.h, struct cprof_hooks), found where
 * start.c puts them: in the section cprof_hooks, whose start the linker names
 * (__start_cprof_hooks).  Static data, there before any code runs: a profiled routine
 * may be entered before any constructor (the program's own malloc, which the C library
 * calls as it starts), and that entry starts the runtime.  Each copy of the runtime
 * (a program's, libcprof.so) finds its own. */
#include "core.h"

extern const struct cprof_hooks __start_cprof_hooks[] __attribute__((weak, visibility("hidden")));
static const struct cprof_hooks none;

const struct cprof_hooks *cprof_hooks(void)
{
    return __start_cprof_hooks ? __start_cprof_hooks : &none;
}
