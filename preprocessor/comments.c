/* comments.c: the comments gcc -E drops that gcc itself reads (unit.h).  A comment right
 * before a label (case, default, NAME:), with nothing but blanks and comments between,
 * may say that falling through to the label is meant: -Wimplicit-fallthrough decides by
 * the comment's text at its level, and the preprocessed text has none.  So before each
 * such label in a file that is not a system header, the rewriter puts back the source's
 * text from the token or directive before it, comments included, in place of the
 * preprocessed blanks that stand for it: the same lines, gcc reads what it would have
 * read in the source.  Where the two do not line up (a macro around the label, a long
 * comment that gcc -E replaced by a line marker) the label is left as it is. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "unit.h"

/* A label of a source file with comments before it: on its line, label k of nlabels;
 * the source's text before it from gap (on line gap_line: just after a token, or at the
 * line's start after a directive) to the label. */
struct candidate {
    unsigned line, gap_line;
    int k, nlabels, after_directive;
    size_t gap, label;
};

/* One line of the preprocessed text: where it starts, and the line of which file (an
 * index into the files named by its line markers) it is. */
struct pline {
    unsigned start, line;
    int file;
};

struct pfile {
    char *name;
    int system;
};

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* The end of the literal (string or character) that starts at t[i]. */
static size_t skip_literal(const char *t, size_t i, size_t n, unsigned *line)
{
    char q = t[i++];
    while (i < n && t[i] != q && t[i] != '\n') {
        if (t[i] == '\\' && i + 1 < n) {
            *line += t[i + 1] == '\n';
            i++;
        }
        i++;
    }
    return i < n && t[i] == q ? i + 1 : i;
}

/* The end of the comment at t[i] ("/" then "*" or "/"), counting its lines. */
static size_t skip_comment(const char *t, size_t i, size_t n, unsigned *line)
{
    if (t[i + 1] == '*') {
        for (i += 2; i + 1 < n && !(t[i] == '*' && t[i + 1] == '/'); i++)
            *line += t[i] == '\n';
        return i + 1 < n ? i + 2 : n;
    }
    for (; i < n && t[i] != '\n'; i++)
        if (t[i] == '\\' && i + 1 < n && t[i + 1] == '\n') {
            (*line)++;
            i++;
        }
    return i;
}

static int is_comment(const char *t, size_t i, size_t n)
{
    return t[i] == '/' && i + 1 < n && (t[i + 1] == '*' || t[i + 1] == '/');
}

/* If a token starts at t[i], whether it is a label's: case, default, or a name a colon
 * follows (not "::") where a statement may start (after_statement: the token before
 * it ends a statement or a label: not the value of a case, a ?: or a bit-field). */
static int is_label(const char *t, size_t i, size_t n, int after_statement)
{
    if (!is_word_char(t[i]) || (t[i] >= '0' && t[i] <= '9'))
        return 0;
    size_t e = i;
    while (e < n && is_word_char(t[e]))
        e++;
    if ((e - i == 4 && !memcmp(t + i, "case", 4)) || (e - i == 7 && !memcmp(t + i, "default", 7)))
        return 1;
    while (e < n && is_blank(t[e]))
        e++;
    return after_statement && e < n && t[e] == ':' && (e + 1 == n || t[e + 1] != ':');
}

/* Whether a statement may start after the token [i, e): ; { } : ) else do. */
static int ends_statement(const char *t, size_t i, size_t e)
{
    return (e - i == 1 && strchr(";{}:)", t[i])) || (e - i == 4 && !memcmp(t + i, "else", 4))
           || (e - i == 2 && !memcmp(t + i, "do", 2));
}

/* The end of the token at t[i]: a word or number, a literal, or one character. */
static size_t skip_token(const char *t, size_t i, size_t n, unsigned *line)
{
    if (t[i] == '"' || t[i] == '\'')
        return skip_literal(t, i, n, line);
    if (!is_word_char(t[i]) && t[i] != '.')
        return i + 1;
    size_t e = i + 1;
    while (e < n && (is_word_char(t[e]) || t[e] == '.'
                     || ((t[e] == '+' || t[e] == '-') && strchr("eEpP", t[e - 1]))))
        e++;
    return e;
}

/* The labels of source text t with comments before them, and each one's place among
 * its line's labels. */
static struct candidate *find_candidates(const char *t, size_t n, int *ncand)
{
    struct candidate *c = NULL;
    int nc = 0, cap = 0;
    unsigned *label_lines = NULL;           /* every label's line, in order */
    int nlabels = 0, labels_cap = 0;
    unsigned line = 1, gap_line = 1;
    size_t i = 0, gap = 0;
    int bol = 1, comments = 0, after_directive = 1, statement = 1;
    while (i < n) {
        char ch = t[i];
        if (ch == '\n') {
            line++;
            bol = 1;
            i++;
        } else if (is_blank(ch)) {
            i++;
        } else if (ch == '\\' && i + 1 < n && t[i + 1] == '\n') {
            line++;
            i += 2;
        } else if (is_comment(t, i, n)) {
            i = skip_comment(t, i, n, &line);
            comments++;
        } else if (ch == '#' && bol) {
            /* A directive, to its unescaped end of line: nothing before it is before
             * what follows for gcc's lexer. */
            while (i < n && t[i] != '\n') {
                if (is_comment(t, i, n))
                    i = skip_comment(t, i, n, &line);
                else if (t[i] == '"' || t[i] == '\'')
                    i = skip_literal(t, i, n, &line);
                else if (t[i] == '\\' && i + 1 < n && t[i + 1] == '\n') {
                    line++;
                    i += 2;
                } else
                    i++;
            }
            gap = i + 1;
            gap_line = line + 1;
            after_directive = 1;
            comments = 0;
        } else {
            bol = 0;
            if (is_label(t, i, n, statement)) {
                GROW(label_lines, nlabels, labels_cap);
                label_lines[nlabels++] = line;
                if (comments) {
                    GROW(c, nc, cap);
                    c[nc++] = (struct candidate){ .line = line, .gap_line = gap_line,
                                                  .k = nlabels - 1, .after_directive = after_directive,
                                                  .gap = gap, .label = i };
                }
            }
            size_t from = i;
            i = skip_token(t, i, n, &line);
            statement = ends_statement(t, from, i);
            gap = i;
            gap_line = line;
            after_directive = 0;
            comments = 0;
        }
    }
    /* k: from the first label of the line. */
    for (int j = 0; j < nc; j++) {
        int first = c[j].k, last = c[j].k;
        while (first > 0 && label_lines[first - 1] == c[j].line)
            first--;
        while (last + 1 < nlabels && label_lines[last + 1] == c[j].line)
            last++;
        c[j].nlabels = last - first + 1;
        c[j].k -= first;
    }
    free(label_lines);
    *ncand = nc;
    return c;
}

/* "# LINE "FILE" FLAGS": the line, the file (unescaped) and whether flag 3 (a system
 * header) is there. */
static int parse_marker(const char *p, const char *eol, unsigned *line, char **file, int *system)
{
    if (eol - p < 5 || p[0] != '#' || p[1] != ' ' || p[2] < '0' || p[2] > '9')
        return 0;
    char *end;
    *line = (unsigned)strtoul(p + 2, &end, 10);
    if (end + 2 > eol || end[0] != ' ' || end[1] != '"')
        return 0;
    struct str name = { 0 };
    const char *q = end + 2;
    for (; q < eol && *q != '"'; q++) {
        if (*q == '\\' && q + 1 < eol)
            q++;
        str_add(&name, q, 1);
    }
    str_add(&name, "", 0);
    *file = name.p;
    *system = 0;
    for (q++; q < eol; q++)
        *system |= *q == '3' && (q[-1] == ' ') && (q + 1 == eol || q[1] == ' ');
    return 1;
}

/* The preprocessed text's lines that are the sources' (not its line markers). */
static struct pline *map_lines(const struct unit *u, struct pfile **files, int *nfiles, int *nlines)
{
    struct pline *l = NULL;
    int nl = 0, cap = 0, nf = 0, fcap = 0, cur = -1;
    unsigned line = 0;
    const char *t = u->text, *end = t + u->size;
    for (const char *p = t; p < end;) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        char *file;
        int system;
        if (parse_marker(p, eol, &line, &file, &system)) {
            cur = 0;
            while (cur < nf && strcmp((*files)[cur].name, file))
                cur++;
            if (cur == nf) {
                GROW(*files, nf, fcap);
                (*files)[nf++] = (struct pfile){ file, system };
            } else {
                free(file);
                (*files)[cur].system &= system;
            }
        } else {
            GROW(l, nl, cap);
            l[nl++] = (struct pline){ (unsigned)(p - t), line++, cur };
        }
        p = eol + 1;
    }
    *nfiles = nf;
    *nlines = nl;
    return l;
}

/* The line of lines[0..n) that holds offset at. */
static int line_at(const struct pline *lines, int n, unsigned at)
{
    int lo = 0, hi = n;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (lines[mid].start <= at)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static int newlines(const char *p, size_t n)
{
    int k = 0;
    for (size_t i = 0; i < n; i++)
        k += p[i] == '\n';
    return k;
}

/* Puts candidate c of source text src back before its label on preprocessed line li of
 * file f, if the two line up. */
static void restore(struct unit *u, const struct pline *lines, int nlines, int li, int f,
                    const char *src, const struct candidate *c)
{
    const char *t = u->text;
    unsigned start = lines[li].start, end = li + 1 < nlines ? lines[li + 1].start : (unsigned)u->size;
    unsigned label = 0;
    int k = 0, statement = 1;
    unsigned dummy = 0;
    for (unsigned i = start; i < end;) {
        if (is_blank(t[i]) || t[i] == '\n') {
            i++;
            continue;
        }
        if (is_label(t, i, end, statement)) {
            if (k == c->k)
                label = i;
            k++;
        }
        unsigned from = i;
        i = (unsigned)skip_token(t, i, end, &dummy);
        statement = ends_statement(t, from, i);
    }
    if (k != c->nlabels || !label)
        return;
    /* Where the source's gap starts in the preprocessed text: at the start of the
     * line after the directive, or just after the token before the label.  The same
     * source line, and only blanks from there: nothing between (no line marker). */
    unsigned from = label;
    int gl;
    if (c->after_directive) {
        gl = li - (int)(c->line - c->gap_line);
        if (gl < 0 || c->gap_line > c->line)
            return;
        from = lines[gl].start;
        for (unsigned i = from; i < label; i++)
            if (!is_blank(t[i]) && t[i] != '\n')
                return;
    } else {
        while (from > 0 && (is_blank(t[from - 1]) || t[from - 1] == '\n'))
            from--;
        if (from == 0)
            return;
        gl = line_at(lines, nlines, from - 1);
    }
    if (lines[gl].file != f || lines[gl].line != c->gap_line
        || newlines(t + from, label - from) != newlines(src + c->gap, c->label - c->gap))
        return;
    struct node *n = new_node(u, N_COMMENT, from, label);
    n->text = cprof_xstrndup(src + c->gap, c->label - c->gap);
}

void restore_comments(struct unit *u)
{
    struct pfile *files = NULL;
    int nfiles, nlines;
    struct pline *lines = map_lines(u, &files, &nfiles, &nlines);
    for (int f = 0; f < nfiles; f++) {
        if (files[f].system || files[f].name[0] == '<')
            continue;
        FILE *in = fopen(files[f].name, "rb");
        char *src = NULL;
        size_t size = 0;
        ssize_t got = in ? getdelim(&src, &size, 0, in) : -1;
        if (in)
            fclose(in);
        int ncand = 0;
        struct candidate *c = got > 0 ? find_candidates(src, (size_t)got, &ncand) : NULL;
        for (int i = 0; i < ncand; i++)
            for (int li = 0; li < nlines; li++)
                if (lines[li].file == f && lines[li].line == c[i].line)
                    restore(u, lines, nlines, li, f, src, &c[i]);
        free(c);
        free(src);
    }
    for (int f = 0; f < nfiles; f++)
        free(files[f].name);
    free(files);
    free(lines);
}
