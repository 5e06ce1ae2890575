/* version.h: cprof's own version, one place for the tools, the runtime and the profile
 * header's "cprof_version" (what wrote a file, for a report that must explain it). */
#ifndef CPROF_VERSION_H
#define CPROF_VERSION_H

#define CPROF_VERSION "0.9.0"

#endif
