/* clauses.c: the calls libclang does not see because they are in pragma text: calls in
 * OpenMP clause expressions, and the calls of user-defined reductions, in per-construct
 * copies of their declarations (unit.h). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "unit.h"

/* Calls in OpenMP clause expressions (num_threads(nt()), if(...), schedule(...)) are
 * not in libclang's tree: found in the pragma text, as a function's name followed by
 * "(" inside a clause's parentheses.  They run on the encountering thread, before
 * the construct. */
void add_clause_calls(struct unit *u, CXTranslationUnit tu, unsigned from, unsigned to)
{
    const char *t = u->text;
    for (unsigned line = from; line < to;) {
        const char *eol = memchr(t + line, '\n', to - line);
        unsigned end = eol ? (unsigned)(eol - t) : to;
        const char *p = omp_directive(t + line, t + end);
        if (p) {
            int depth = 0;
            for (const char *q = p; q < t + end; q++) {
                if (*q == '(')
                    depth++;
                else if (*q == ')')
                    depth--;
                if (depth < 1 || !is_word_char(*q) || (q > p && is_word_char(q[-1])))
                    continue;
                const char *w = q;
                while (q < t + end && is_word_char(*q))
                    q++;
                const char *open = q;
                while (open < t + end && (*open == ' ' || *open == '\t'))
                    open++;
                if (open == t + end || *open != '(' || !is_function(u, w, (size_t)(q - w))) {
                    q--;
                    continue;
                }
                /* The call: name, then balanced parentheses split at top-level commas. */
                int level = 0, nargs = 0;
                const char *close = open;
                for (; close < t + end; close++) {
                    level += (*close == '(') - (*close == ')');
                    if (level == 1 && *close == ',')
                        nargs++;
                    if (level == 0)
                        break;
                }
                if (close == t + end)
                    break;
                const char *a = open + 1;
                while (a < close && (*a == ' ' || *a == '\t'))
                    a++;
                if (a < close)
                    nargs++;
                struct node *n = new_node(u, N_CALL, (unsigned)(w - t), (unsigned)(close + 1 - t));
                const char *before = w, *word;
                while (before > p && (before[-1] == ' ' || before[-1] == '\t'))
                    before--;
                if (before > p && before[-1] == '(') {
                    for (word = --before; word > p && (word[-1] == ' ' || word[-1] == '\t'); word--)
                        ;
                    while (word > p && is_word_char(word[-1]))
                        word--;
                    n->initializer = !strncmp(word, "initializer", 11) && !is_word_char(word[11]);
                }
                n->desig_start = (unsigned)(w - t);
                n->desig_end = (unsigned)(q - t);
                n->target = cprof_xstrndup(w, (size_t)(q - w));
                n->nargs = nargs;
                n->arg_start = cprof_xcalloc((size_t)nargs + 1, sizeof *n->arg_start);
                n->arg_end = cprof_xcalloc((size_t)nargs + 1, sizeof *n->arg_end);
                n->arg_bitfield = cprof_xcalloc((size_t)nargs + 1, 1);
                int k = 0;
                const char *arg = open + 1;
                level = 0;
                for (const char *c = open + 1; nargs && c <= close; c++) {
                    if (c == close || (level == 0 && *c == ',')) {
                        n->arg_start[k] = (unsigned)(arg - t);
                        n->arg_end[k++] = (unsigned)(c - t);
                        arg = c + 1;
                    }
                    level += (*c == '(') - (*c == ')');
                }
                new_site(u, tu, (unsigned)(w - t), &n->index);
                q = open - 1;   /* on to the "(": calls in the arguments are found too */
            }
        }
        line = end + 1;
    }
}

/* User-defined reductions.  A "declare reduction" combiner or initializer is called by
 * the construct whose reduction clause names it, inside that construct (in each thread
 * of a parallel one), on behalf of the routine that holds the construct.  One declaration may serve several
 * constructs and routines, so each construct using one with instrumented calls gets
 * copies of its declarations under a new name, whose calls are that construct's sites,
 * and its clause names the copy.  A copy goes on lines of its own where it sees what
 * the original sees: after a block-scope declaration, before the routine's definition
 * for a file-scope one; a line marker then restores the numbering. */

/* Is offset inside a function body other than [from, to)? */
static int in_other_body(const struct unit *u, unsigned offset, unsigned from)
{
    for (int i = 0; i < u->nbodies; i++)
        if (u->bodies[i].start != from && u->bodies[i].start <= offset && offset < u->bodies[i].end)
            return 1;
    return 0;
}

/* The construct at line names the reduction [id, id_end) in a clause; d: the routine's
 * parallel constructs around the code the construct runs. */
static void add_reduction_use(struct unit *u, unsigned line, unsigned id, unsigned id_end,
                              unsigned definition_line, int d)
{
    const char *t = u->text;
    size_t n = id_end - id;
    int copy = u->ncopies + 1, calls = 0;
    for (int pass = 0; pass < 2 && (pass == 0 || calls); pass++)
        for (int i = 0; i < u->nreductions; i++) {
            const struct reduction *r = &u->reductions[i];
            int local = r->line >= u->body_start;
            if (r->line >= line || r->id_end - r->id_start != n || memcmp(t + r->id_start, t + id, n)
                || (!local && in_other_body(u, r->line, u->body_start)))
                continue;
            if (pass == 0) {
                int before = u->nnodes;
                add_clause_calls(u, u->tu, r->line, r->eol);
                for (int k = before; k < u->nnodes; k++) {
                    struct site *s = &u->sites[u->nodes[k].index];
                    u->nodes[k].copy = copy;
                    s->d = d;
                    free(s->file);
                    s->file = presumed(clang_getLocationForOffset(u->tu, u->file, line), &s->line);
                }
                calls += u->nnodes - before;
            } else {
                unsigned at = local ? r->eol + 1 : definition_line;
                struct node *c = new_node(u, N_REDUCTION, at, at);
                c->index = copy;
                c->desig_start = r->id_end;
                c->desig_end = r->eol;
            }
        }
    if (!calls)
        return;     /* nothing of it is instrumented: the clause stays as it is */
    u->ncopies = copy;
    new_node(u, N_RENAME, id, id_end)->index = copy;
}

void add_reductions(struct unit *u, unsigned definition_line, int first_block)
{
    static const char *const clauses[] = { "reduction", "in_reduction", "task_reduction", NULL };
    const char *t = u->text;
    for (unsigned line = u->body_start; line < u->body_end;) {
        const char *eol = memchr(t + line, '\n', u->body_end - line);
        const char *end = eol ? eol : t + u->body_end;
        const char *p = omp_directive(t + line, end), *id, *id_end;
        if (p && !declares_reduction(p, end, &id, &id_end)) {
            int d = directive_is_parallel(p, end);
            for (int b = first_block; b < u->block_next; b++)
                d += u->blocks[b].parallel && u->blocks[b].start <= line && line < u->blocks[b].end;
            for (const char *q = p, *w; q < end;) {
                q = next_word(q, end, &w);
                if (q == w) {
                    q++;
                    continue;
                }
                int clause = 0;
                for (int i = 0; clauses[i]; i++)
                    clause |= word_is(w, q, clauses[i]);
                while (q < end && (*q == ' ' || *q == '\t'))
                    q++;
                if (!clause || q == end || *q != '(')
                    continue;
                /* reduction([modifier,] identifier : list); an operator is not a name */
                const char *colon = memchr(q, ':', (size_t)(end - q));
                if (!colon)
                    break;
                const char *comma = memchr(q, ',', (size_t)(colon - q));
                id_end = next_word(comma ? comma + 1 : q + 1, colon, &id);
                const char *after = id_end;
                while (after < colon && (*after == ' ' || *after == '\t'))
                    after++;
                if (after == colon && id_end > id)
                    add_reduction_use(u, line, (unsigned)(id - t), (unsigned)(id_end - t), definition_line, d);
                q = colon;
            }
        }
        line = (unsigned)(end - t) + 1;
    }
}
