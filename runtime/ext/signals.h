/* signals.h: what signals.c offers: the program's sigaction, signal... (ld --wrap),
 * kept off cprof's.  Not installed. */
#ifndef CPROF_EXT_SIGNALS_H
#define CPROF_EXT_SIGNALS_H

#include "../core/core.h"

struct sigaction;
/* sigaction itself, for cprof's own actions. */
int cprof_sigaction(int sig, const struct sigaction *act, struct sigaction *old);
/* The highest realtime signal whose action is the default and that the program never
 * set, other than avoid; 0 if none. */
int cprof_signal_free(int avoid);
/* Who samples with signals (resources.c registers itself as it starts): the program is
 * about to set sig's action by call; whether it samples with sig.  Null: no one. */
struct cprof_signal_owner {
    void (*taken)(int sig, const char *call);
    int (*owned)(int sig);
};
extern struct cprof_signal_owner cprof_signal_owner;

#endif
