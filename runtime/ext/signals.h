/* signals.h: what signals.c offers: the program's sigaction, signal... (ld --wrap),
 * kept off cprof's.  Not installed. */
#ifndef CPROF_EXT_SIGNALS_H
#define CPROF_EXT_SIGNALS_H

#include "../core/core.h"
#include <stddef.h>

struct sigaction;
/* sigaction itself, for cprof's own actions. */
int cprof_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* The highest realtime signal whose action is the default and that the program never
 * set, other than avoid; 0 if none. */
int cprof_signal_free(int avoid);
/* Who samples with signals (resources.c and overhead.c register themselves as they
 * start): the program is about to set sig's action by call; whether it samples with
 * sig.  A signal one owns is not free for the others. */
struct cprof_signal_owner {
    void (*taken)(int sig, const char *call);
    int (*owned)(int sig);
};
void cprof_signal_owner_add(const struct cprof_signal_owner *owner);
/* A realtime signal's name as the program would write it, and its number, in buf. */
const char *cprof_signal_name(int sig, char *buf, size_t size);
/* What a move of sampling off sig, which the program's call took, to signal to (0:
 * none was left) says, in out. */
void cprof_signal_moved(char *out, size_t size, int sig, int to, const char *call);
/* The instances of sig the kernel queued for any thread discarded, and its action the
 * default again: after its sampling moved off it. */
void cprof_signal_discard(int sig);

#endif
