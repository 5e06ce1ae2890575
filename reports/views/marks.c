/* marks.c: the estimated times in the text sections and their CSV (docs/report.md,
 * "Estimated times"): the mark beside a figure, the error columns, the legend. */
#include "report.h"
#include "../model/alloc.h"

#include <math.h>
#include <stdlib.h>

char cprof_mark(const cprof_view *v, cprof_error e)
{
    return !v->p->nestimates ? 0 : e.estimated ? '~' : ' ';
}

void cprof_cell_error(cprof_table *t, cprof_error e, int64_t ns)
{
    double err = cprof_error_ns(e);
    if (!e.estimated) {
        cprof_cell_str2(t, "", "0");
        return;
    }
    if (isnan(err)) {
        cprof_cell_str2(t, "?", "");
        return;
    }
    char *text = ns > 0 ? cprof_xasprintf("%.2f", 100 * err / (double)ns) : cprof_xstrdup("");
    char *csv = cprof_xasprintf("%.0f", err);
    cprof_cell_str2(t, text, csv);
    free(text);
    free(csv);
}

void cprof_note_estimates(cprof_table *t, const cprof_view *v, bool columns)
{
    if (!v->p->nestimates)
        return;
    const cprof_prof_timing *s = &v->p->timing;
    cprof_table_note(t, "~  an estimate: the calls were timed on a sample (1 in %lld%s), the time is"
                     " calls x mean%s", (long long)s->period, s->periods_differ ? " in the first"
                     " file" : "", columns ? ";\n   err%  its standard error, in % of it (?:"
                     " unknown, one call timed)" : "");
}
