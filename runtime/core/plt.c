/* plt.c: where a procedure linkage table entry leads.
 *
 * A call site hands its target to the callee's entry, which accepts it if it is the
 * routine's own address.  Some addresses of a function are not its code: that of an
 * ifunc (its implementation is chosen at load time; the symbol's address is a PLT entry
 * that jumps through a GOT slot the dynamic linker filled with the implementation's
 * address), or the address a non-PIC program gives a function of a shared library.
 * Such an entry is one indirect jump through memory; the entry's slow path follows it
 * when the plain comparison failed.  Only x86-64 entries are decoded; elsewhere such
 * calls count as external entries (docs/semantics.md).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "core.h"

void (*cprof_plt_target(void (*f)(void)))(void)
{
#if defined(__x86_64__)
    /* The target may be stale (a call that reached code cprof did not compile, which
     * returned) and its code unmapped since: read only inside a loaded object
     * (_dl_find_object, glibc 2.35: lock-free, no allocation). */
    struct dl_find_object obj;
    const unsigned char *p = (const unsigned char *)f;
    if (_dl_find_object((void *)p, &obj) != 0)
        return 0;
    const unsigned char *start = obj.dlfo_map_start, *end = obj.dlfo_map_end;
    static const unsigned char endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
    if (end - p >= 4 && !memcmp(p, endbr64, 4))     /* an IBT entry (.plt.sec) */
        p += 4;
    if (end - p >= 1 && p[0] == 0xf2)               /* bnd prefix (MPX entries) */
        p++;
    if (end - p < 6 || p[0] != 0xff || p[1] != 0x25)    /* jmp *disp32(%rip) */
        return 0;
    int32_t disp;
    memcpy(&disp, p + 2, sizeof disp);
    const unsigned char *slot = p + 6 + disp;
    if (slot < start || end - slot < (ptrdiff_t)sizeof(void (*)(void)))
        return 0;
    void (*to)(void);
    memcpy(&to, slot, sizeof to);
    return to;
#else
    (void)f;
    return 0;
#endif
}
