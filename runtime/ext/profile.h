/* profile.h: what profile.c offers: the profile's writing, started and ended.  Not
 * installed. */
#ifndef CPROF_EXT_PROFILE_H
#define CPROF_EXT_PROFILE_H

#include "../core/core.h"

/* Start-up, the facade chosen: its cost measured, the profile's and trace's names
 * found, worker 0 made, the writes at exit registered. */
void cprof_profile_start(void);
/* The last loaded unit unregistered (at exit: its destructor was the last). */
void cprof_last_unit_gone(void);

#endif
