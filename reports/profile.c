/* profile.c: read, validate and sum profile files (docs/profile-format.md).
 *
 * Each file is first checked completely and copied into a "raw" image (C arrays, with
 * strings still owned by the parsed JSON: read.c), so nothing is merged from a file
 * that turns out to be bad.  The raw image is summed into a cprof_profile of its own
 * (merge.c, after its times are compensated if asked: compensate.c), which is added to
 * the sum of the files before it; then the file is freed, so memory follows the sum,
 * not the number of files.
 */
#include "raw.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cprof_external_name[] = "<external>";

int cprof_fail(struct loader *l, const char *fmt, ...)
{
    int n = snprintf(l->err, l->errlen, "%s: ", l->path);
    if (n >= 0 && (size_t)n < l->errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Read file l->path and sum it into *sum (empty before the first file). */
static int add_file(struct loader *l, cprof_profile *sum, const cprof_load_opts *o)
{
    struct raw_file rf = {0};
    cprof_profile one = {0}, both;
    int rc = cprof_raw_read(l, &rf);
    if (!rc && sum->nfiles && !o->force && !cprof_same_program(sum->program, rf.program))
        rc = cprof_fail(l, "a profile of %s, not of %s like %s (--force sums them anyway)",
                  rf.program, sum->program, l->first);
    if (!rc)
        rc = cprof_merge_file(l, &one, &rf, o->compensate);
    cprof_raw_free(&rf);
    if (!rc && !sum->nfiles) {
        *sum = one;
        l->first = l->path;
        return 0;
    }
    if (!rc && (rc = cprof_sum_profiles(l, &both, sum, &one)))
        cprof_profile_free(&both);
    cprof_profile_free(&one);
    if (rc)
        return rc;
    cprof_profile_free(sum);
    *sum = both;
    return 0;
}

int cprof_profile_load(cprof_profile *p, const cprof_load_opts *o, char *err, size_t errlen)
{
    struct loader l = {.err = err, .errlen = errlen};
    size_t skipped = 0;
    memset(p, 0, sizeof *p);
    for (size_t i = 0; i < o->npaths; i++) {
        l.path = o->paths[i];
        if (!add_file(&l, p, o))
            continue;
        if (!o->warn) {
            cprof_profile_free(p);
            return -1;
        }
        o->warn(err);
        skipped++;
    }
    if (!p->nfiles) {
        l.path = o->paths[0];
        return cprof_fail(&l, "none of the %zu profile files could be used", o->npaths);
    }
    p->nskipped = skipped;
    return 0;
}

void cprof_profile_free(cprof_profile *p)
{
    for (size_t i = 0; i < p->nroutines; i++) {
        free(p->routines[i].name);
        free(p->routines[i].file);
        free(p->routines[i].worker);
    }
    for (size_t i = 0; i < p->narcs; i++) {
        for (size_t j = 0; j < p->arcs[i].nsites; j++)
            free(p->arcs[i].sites[j].file);
        free(p->arcs[i].sites);
    }
    free(p->routines);
    free(p->arcs);
    cprof_paths_free(p);
    cprof_resources_free(p);
    free(p->workers);
    for (size_t i = 0; i < p->nprograms; i++)
        free(p->programs[i].name);
    free(p->programs);
    free(p->clock);
    memset(p, 0, sizeof *p);
}
