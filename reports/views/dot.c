/* dot.c: --dot, the call graph as a Graphviz digraph (docs/report.md, "--dot").
 *
 * One node per routine that ran, its size and colour by its inclusive and self time;
 * one edge per arc and kind: the sequential part of an arc (s) solid, the concurrent
 * part (c: S-C, C-S, C-C) dashed and blue, each labelled with its calls and time.
 */
#define _GNU_SOURCE
#include "report.h"
#include "../model/alloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double share(int64_t part, int64_t whole)
{
    return whole > 0 ? fmin(1.0, (double)part / (double)whole) : 0.0;
}

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

/* s as the inside of a DOT string: quotes and backslashes escaped, control characters
 * (which a file name could hold) shown as '?'. */
static void put_escaped(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
    }
}

/* Whether routine i is drawn: it ran, and passes --routine and --threshold (which
 * applies to the inclusive time here, the time a node's size shows). */
static bool shown(const cprof_view *v, size_t i)
{
    const cprof_rview *r = &v->r[i];
    if (!r->ran)
        return false;
    if (v->o->has_threshold && 100.0 * share(r->inclusive, v->total_self) < v->o->threshold)
        return false;
    if (!v->o->routine || r->match)
        return true;
    for (size_t k = 0; k < v->p->narcs; k++) {
        const cprof_prof_arc *a = &v->p->arcs[k];
        if ((a->callee == i && a->caller != CPROF_EXTERNAL && v->r[a->caller].match) ||
            (a->caller == i && v->r[a->callee].match))
            return true;
    }
    return false;
}

static void edge(FILE *f, const cprof_view *v, const cprof_prof_arc *a, const cprof_tally *x,
                 bool concurrent)
{
    if (!x->n)
        return;
    if (a->caller == CPROF_EXTERNAL)
        fputs("  external", f);
    else
        fprintf(f, "  r%zu", a->caller);
    /* An arc into a counted routine has no time: "time not measured", not 0 ms. */
    /* An estimated time (sampled timing) is marked, as in the text report. */
    bool est = v->arc_err && v->arc_err[a - v->p->arcs].estimated;
    char *time = cprof_view_arc_timed(v, a) ? cprof_xasprintf("%.3f ms%s", ms(cprof_outer(x)),
                                                              est ? "~" : "")
                                            : cprof_xstrdup("time not measured");
    fprintf(f, " -> r%zu [label=\"%lld %s\\n%s\", penwidth=%.2f%s];\n", a->callee,
            (long long)x->n, concurrent ? "conc." : "seq.", time,
            1.0 + 4.0 * share(cprof_outer(x), v->total_self),
            concurrent ? ", style=dashed, color=\"#1f5fbf\", fontcolor=\"#1f5fbf\"" : "");
    free(time);
}

char *cprof_report_dot(const cprof_view *v)
{
    const cprof_profile *p = v->p;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    bool *on = calloc(p->nroutines ? p->nroutines : 1, sizeof *on);
    if (!on) {
        fclose(f);
        free(text);
        return NULL;
    }
    fputs("digraph cprof {\n  graph [label=\"", f);
    put_escaped(f, p->program);
    fprintf(f, "\\nelapsed %.3f ms; solid: sequential calls, dashed: concurrent%s\", "
            "labelloc=t];\n", ms(p->elapsed_ns),
            p->nestimates ? "; ~: an estimate (calls timed on a sample)" : "");
    fputs("  node [shape=box, style=filled, fontname=\"Helvetica\"];\n"
          "  edge [fontname=\"Helvetica\", fontsize=10];\n", f);
    bool external = false;
    for (size_t i = 0; i < p->nroutines; i++) {
        if (!(on[i] = shown(v, i)))
            continue;
        const cprof_rview *r = &v->r[i];
        double incl = share(r->inclusive, v->total_self), self = share(r->self, v->total_self);
        fprintf(f, "  r%zu [label=\"", i);
        put_escaped(f, r->label);
        /* Font (so box) from 10 to 30 points by inclusive time; fill from white to red
         * by self time. */
        int64_t calls = cprof_add(r->s_calls, r->c_calls);
        char *times = r->timed ? cprof_xasprintf("worker self %.3f ms%s (%.1f%%)\\nworker incl %.3f ms%s",
                                                 ms(r->self), r->self_err.estimated ? "~" : "",
                                                 100.0 * self, ms(r->inclusive),
                                                 r->incl_err.estimated ? "~" : "")
                               : cprof_xstrdup("time not measured");
        fprintf(f, "\\n%s\\n%lld call%s\", fontsize=%.1f, fillcolor=\"#ff%02x%02x\"];\n",
                times, (long long)calls, calls == 1 ? "" : "s", 10.0 + 20.0 * incl,
                (unsigned)lround(255 * (1 - self)), (unsigned)lround(255 * (1 - self)));
        free(times);
    }
    for (size_t k = 0; k < p->narcs; k++) {
        const cprof_prof_arc *a = &p->arcs[k];
        if (!on[a->callee] || (a->caller != CPROF_EXTERNAL && !on[a->caller]))
            continue;
        if (a->caller == CPROF_EXTERNAL && !external) {
            fprintf(f, "  external [label=\"%s\", shape=ellipse, style=dashed];\n",
                    cprof_external_name);
            external = true;
        }
        edge(f, v, a, &a->s, false);
        edge(f, v, a, &a->c, true);
    }
    fputs("}\n", f);
    free(on);
    if (fclose(f)) {
        free(text);
        return NULL;
    }
    return text;
}
