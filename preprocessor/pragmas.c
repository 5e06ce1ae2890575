/* pragmas.c: the "#pragma omp" lines, read from the text: libclang parses it without
 * -fopenmp and does not see them (unit.h).  Each directive is a block of the unit,
 * whether it opens a parallel region and whether a cache of the case may live in it or
 * be used through it; target directives mark the unit as offloading; "declare
 * reduction" lines are listed for clauses.c. */
#define _GNU_SOURCE
#include <string.h>
#include "unit.h"

int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The words of a directive: p advanced past blanks and one word, which is returned as
 * [*w, p).  Empty at a non-word character. */
const char *next_word(const char *p, const char *end, const char **w)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    *w = p;
    while (p < end && is_word_char(*p))
        p++;
    return p;
}

int word_is(const char *w, const char *p, const char *word)
{
    return (size_t)(p - w) == strlen(word) && !memcmp(w, word, (size_t)(p - w));
}

/* Is the word [w, p) one of names (null-terminated)? */
static int one_of(const char *w, const char *p, const char *const *names)
{
    for (int i = 0; names[i]; i++)
        if (word_is(w, p, names[i]))
            return 1;
    return 0;
}

/* Does the directive starting at p (after "omp") open a parallel region?  Combined
 * constructs list their construct names first; the first other word is a clause. */
int directive_is_parallel(const char *p, const char *end)
{
    static const char *const names[] = { "target", "teams", "distribute", "parallel", "for",
                                         "simd", "sections", "loop", "master", "masked",
                                         "taskloop", "workshare", NULL };
    while (p < end) {
        const char *w;
        p = next_word(p, end, &w);
        if (p == w || !one_of(w, p, names))
            return 0;
        if (word_is(w, p, "parallel"))
            return 1;
    }
    return 0;
}

/* Can a cache of the case live in (parallel) or be used through (other) the construct
 * of the directive at p?  Its construct names must all be these: a simd loop, a task or
 * a target region has a data environment the cache is not listed in, or runs on. */
static int directive_is_cacheable(const char *p, const char *end)
{
    static const char *const names[] = { "parallel", "for", "sections", "section", "single",
                                         "master", "masked", "critical", "ordered", "atomic",
                                         "taskgroup", "barrier", "taskwait", "taskyield",
                                         "flush", "scope", NULL };
    static const char *const others[] = { "target", "teams", "distribute", "simd", "loop",
                                          "taskloop", "task", "workshare", "declare", "cancel",
                                          "cancellation", NULL };
    int words = 0;
    while (p < end) {
        const char *w;
        p = next_word(p, end, &w);
        if (p == w)
            break;
        if (one_of(w, p, others))
            return 0;
        if (!one_of(w, p, names))
            break;                  /* a clause */
        words++;
    }
    return words > 0;
}

/* Does the directive at p (after "omp") make device code: "target ..." (but target
 * data, enter data, exit data and update, which run no code), or "declare target"? */
static int directive_is_target(const char *p, const char *end)
{
    const char *w[3], *e[3];
    for (int i = 0; i < 3; i++)
        p = e[i] = next_word(p, end, &w[i]);
    if (word_is(w[0], e[0], "target"))
        return !word_is(w[1], e[1], "data") && !word_is(w[1], e[1], "enter")
               && !word_is(w[1], e[1], "exit") && !word_is(w[1], e[1], "update");
    return (word_is(w[0], e[0], "declare") && word_is(w[1], e[1], "target"))
           || (word_is(w[0], e[0], "begin") && word_is(w[1], e[1], "declare") && word_is(w[2], e[2], "target"));
}

/* May code inside the construct of the directive at p name no variable of the unit's
 * or the runtime's?  With a default clause other than default(shared) each would need
 * a clause; a target region maps them (defaultmap(none): each listed); a loop
 * construct, order(concurrent) or an untied task refuses the runtime's thread-local
 * variables. */
static int restricts_names(const char *p, const char *end)
{
    if (directive_is_target(p, end))
        return 1;
    while (p < end) {
        const char *w;
        p = next_word(p, end, &w);
        if (p == w) {
            p++;
            continue;
        }
        if (word_is(w, p, "loop") || word_is(w, p, "untied"))
            return 1;
        int def = word_is(w, p, "default"), order = word_is(w, p, "order");
        if (!def && !order)
            continue;
        while (p < end && (*p == ' ' || *p == '\t'))
            p++;
        if (p < end && *p == '(') {
            const char *v, *e = next_word(p + 1, end, &v);
            if (def ? !word_is(v, e, "shared") : word_is(v, e, "concurrent"))
                return 1;
        }
    }
    return 0;
}

/* The site a directive that opens no parallel region gets: a task's, or a barrier's,
 * or a worksharing construct's that ends with one (no nowait clause). */
static enum construct directive_construct(const char *p, const char *end)
{
    const char *w, *e = next_word(p, end, &w);
    if (word_is(w, e, "task") || word_is(w, e, "taskloop"))
        return CONSTRUCT_TASK;
    if (word_is(w, e, "barrier"))
        return CONSTRUCT_BARRIER;
    enum construct c = word_is(w, e, "for") ? CONSTRUCT_FOR
                     : word_is(w, e, "sections") ? CONSTRUCT_SECTIONS
                     : word_is(w, e, "single") ? CONSTRUCT_SINGLE : CONSTRUCT_NONE;
    for (const char *q = e; c && q < end;) {
        const char *x;
        q = next_word(q, end, &x);
        if (q == x)
            q++;                    /* punctuation, a clause's argument */
        else if (word_is(x, q, "nowait"))
            return CONSTRUCT_NONE;
    }
    return c;
}

/* If [line, eol) is a "#pragma WORD" line, where what follows WORD starts; else NULL. */
const char *pragma_of(const char *line, const char *eol, const char *word)
{
    const char *p = line;
    size_t n = strlen(word);
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    if (p == eol || *p != '#')
        return NULL;
    p++;
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    if (eol - p <= 6 || memcmp(p, "pragma", 6) || is_word_char(p[6]))
        return NULL;
    p += 6;
    while (p < eol && (*p == ' ' || *p == '\t'))
        p++;
    if ((size_t)(eol - p) <= n || memcmp(p, word, n) || is_word_char(p[n]))
        return NULL;
    return p + n;
}

const char *omp_directive(const char *line, const char *eol)
{
    return pragma_of(line, eol, "omp");
}

/* "region("NAME")" after "#pragma cprof": NAME (malloc'd); else NULL. */
static char *region_name(const char *p, const char *end)
{
    const char *w;
    p = next_word(p, end, &w);
    if (!word_is(w, p, "region"))
        return NULL;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (end - p < 4 || p[0] != '(' || p[1] != '"')
        return NULL;
    const char *name = p + 2, *q = name;
    while (q < end && *q != '"' && *q != '\\')
        q++;
    if (q == end || *q != '"' || q == name || q + 1 == end || q[1] != ')')
        return NULL;
    return cprof_xstrndup(name, (size_t)(q - name));
}

/* "declare reduction(ID : ...)": where ID is, in *id; else 0. */
int declares_reduction(const char *p, const char *end, const char **id, const char **id_end)
{
    const char *w;
    p = next_word(p, end, &w);
    if (!word_is(w, p, "declare"))
        return 0;
    p = next_word(p, end, &w);
    if (!word_is(w, p, "reduction"))
        return 0;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p != '(')
        return 0;
    *id_end = next_word(p + 1, end, id);
    return *id_end > *id;
}


void find_parallel_pragmas(struct unit *u)
{
    int cap = 0, reductions_cap = 0;
    const char *t = u->text, *end = t + u->size;
    for (const char *line = t; line < end;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (!eol)
            eol = end;
        const char *directive = omp_directive(line, eol);
        if (directive && directive_is_target(directive, eol))
            u->offload = 1;
        const char *id, *id_end;
        if (directive && declares_reduction(directive, eol, &id, &id_end)) {
            GROW(u->reductions, u->nreductions, reductions_cap);
            u->reductions[u->nreductions++] = (struct reduction){
                (unsigned)(line - t), (unsigned)(eol - t), (unsigned)(id - t), (unsigned)(id_end - t) };
        }
        if (directive) {
            int parallel = directive_is_parallel(directive, eol);
            GROW(u->blocks, u->nblocks, cap);
            u->blocks[u->nblocks++] = (struct block){
                .pragma_end = (unsigned)(eol - t),
                .pragma_start = (unsigned)(line - t),
                .parallel = parallel,
                .construct = parallel ? CONSTRUCT_PARALLEL : directive_construct(directive, eol),
                .cacheable = directive_is_cacheable(directive, eol),
                .restricted = restricts_names(directive, eol) };
        }
        const char *cprof = pragma_of(line, eol, "cprof");
        char *region = cprof ? region_name(cprof, eol) : NULL;
        if (region) {
            GROW(u->blocks, u->nblocks, cap);
            u->blocks[u->nblocks++] = (struct block){ .pragma_end = (unsigned)(eol - t),
                                                      .region = region,
                                                      .pragma_start = (unsigned)(line - t) };
        }
        line = eol + 1;
    }
}
