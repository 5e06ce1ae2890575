/* offload.c: the call-site handshake for units with OpenMP target regions.
 *
 * gcc rejects thread-local storage in device functions, and makes every function a
 * target region reaches one; without an offload compiler the regions run on the host,
 * on the thread that meets them.  There the call site sets cprof_pending through this
 * function, which gcc compiles as an ordinary host function. */
#include "core.h"

void cprof_pending_set(const struct cprof_site *site, void (*target)(void))
{
    cprof_pending.site = site;
    cprof_pending.target = target;
}
