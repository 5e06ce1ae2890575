/* report.h: the report writers.  Each renders a merged profile as one text, in memory,
 * so that nothing reaches stdout unless the whole report could be made. */
#ifndef CPROF_REPORT_REPORT_H
#define CPROF_REPORT_REPORT_H

#include "profile.h"

/* The --json document (docs/report-json.md), newline-terminated; malloc'd, NULL if out
 * of memory. */
char *cprof_report_json(const cprof_profile *p);

#endif
