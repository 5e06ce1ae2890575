/* sources.c: the source files of the merged profile (docs/source.md): every file its
 * routines and sites name, with what the files' "sources" sections say of it (where it
 * was, its size and hash when its units were compiled), summed; and the name the report
 * gives each.  A name that stands for two files in one profile (util.c compiled in two
 * directories) is replaced, for its routines and sites too, by the shortest end of each
 * file's path that tells them apart (a/util.c, b/util.c): two files, two routines of
 * the same static name, two lines 10. */
#include "raw.h"
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

/* path with "." and "" steps removed and ".." taken back, lexically (the path as it
 * was, which the machine reading the profile may not have). */
static char *normal(const char *path)
{
    char *out = cprof_xcalloc(strlen(path) + 2, 1);
    size_t n = 0;
    for (const char *p = path; *p;) {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == 2 && !strncmp(p, "..", 2)) {
            while (n > 0 && out[--n] != '/')
                ;
        } else if (len && !(len == 1 && *p == '.')) {
            out[n++] = '/';
            memcpy(out + n, p, len);
            n += len;
        }
        p += len + (end != NULL);
    }
    if (!n || path[0] != '/') {
        /* A relative path (never written by cprof) keeps no leading '/'. */
        memmove(out, out + (n > 0), n);
        n -= n > 0;
    }
    out[n] = 0;
    return out;
}

/* The last k steps of path. */
static const char *last_steps(const char *path, int k)
{
    const char *p = path + strlen(path);
    while (p > path && k > 0)
        if (*--p == '/' && --k == 0)
            return p + 1;
    return path;
}

/* What one routine or site of the file says of its file: its name, and where its unit
 * says it was (path NULL if the file has no such entry). */
struct named {
    const char **file;          /* the routine's or site's, which may be renamed */
    const struct raw_source *src;
    char *path;                 /* src's, normal; NULL if none */
    bool unique;                /* no other path has this name */
};

static int cmp_str_null_last(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) : (a == NULL) - (b == NULL);
}

static int by_name(const void *x, const void *y)
{
    const struct named *a = x, *b = y;
    int d = strcmp(*a->file, *b->file);
    return d ? d : cmp_str_null_last(a->path, b->path);
}

static int by_path(const void *x, const void *y)
{
    const struct named *a = x, *b = y;
    int d = cmp_str_null_last(a->path, b->path);
    return d ? d : strcmp(*a->file, *b->file);
}

/* The entry of unit k of rf for file name, or NULL. */
static const struct raw_source *entry(const struct raw_file *rf, int64_t k, const char *name)
{
    if (k < 0)
        return NULL;
    const struct raw_unit *u = &rf->units[k];
    for (size_t i = 0; i < u->nfiles; i++)
        if (!strcmp(u->files[i].name, name))
            return &u->files[i];
    return NULL;
}

static void set(char **field, const char *value)
{
    free(*field);
    *field = value ? cprof_xstrdup(value) : NULL;
}

/* Add what x says of its file to source s (its name set): the first path and hash
 * known; a second different one is a conflict. */
static void learn(cprof_prof_source *s, const char *path, const char *hash, int64_t bytes)
{
    if (path && !s->path)
        set(&s->path, path);
    else if (path && strcmp(path, s->path) && !s->conflict)
        s->conflict = cprof_xasprintf("two files are named %s: %s and %s", s->name, s->path, path);
    if (hash && !s->hash) {
        set(&s->hash, hash);
        s->bytes = bytes;
    } else if (hash && (strcmp(hash, s->hash) || bytes != s->bytes) && !s->conflict) {
        s->conflict = cprof_xasprintf("its units were compiled from different versions of it "
                                      "(%s, %lld bytes; %s, %lld bytes)", s->hash,
                                      (long long)s->bytes, hash, (long long)bytes);
    }
}

static int cmp_source(const void *x, const void *y)
{
    return strcmp(((const cprof_prof_source *)x)->name, ((const cprof_prof_source *)y)->name);
}

/* The name of file path (x[from..to) are its items, sorted by name): the shortest of
 * the names it was given that no other file has, else the shortest end of it that no
 * other of the paths[0..npaths) has. */
static const char *name_of(const struct named *x, size_t from, size_t to, char *const *paths,
                           size_t npaths)
{
    const char *best = NULL;
    for (size_t k = from; k < to; k++)
        if (x[k].unique && (!best || strlen(*x[k].file) < strlen(best)))
            best = *x[k].file;
    if (best)
        return best;
    const char *path = x[from].path;
    int steps = 1;
    for (size_t o = 0; o < npaths; o++)
        while (strcmp(paths[o], path) && last_steps(paths[o], steps) != paths[o] &&
               !strcmp(last_steps(paths[o], steps), last_steps(path, steps)))
            steps++;
    return last_steps(path, steps);
}

/* The source named name, made if new (p->sources has room for it). */
static cprof_prof_source *source_named(cprof_profile *p, const char *name)
{
    cprof_prof_source *s = p->nsources ? &p->sources[p->nsources - 1] : NULL;
    for (size_t o = 0; s && strcmp(s->name, name) && o < p->nsources; o++)
        s = &p->sources[o];
    if (!s || strcmp(s->name, name)) {
        s = &p->sources[p->nsources++];
        s->name = cprof_xstrdup(name);
        s->bytes = -1;
    }
    return s;
}

int cprof_sources_of_file(struct loader *l, cprof_profile *p, struct raw_file *rf)
{
    (void)l;
    size_t n = 0;
    struct named *x = cprof_xcalloc(rf->nroutines + rf->nsites, sizeof *x);
    for (size_t i = 0; i < rf->nroutines + rf->nsites; i++) {
        bool site = i >= rf->nroutines;
        struct raw_routine *r = site ? NULL : &rf->routines[i];
        struct raw_site *s = site ? &rf->sites[i - rf->nroutines] : NULL;
        /* A library function's routine (libcalls) is at no place of the program. */
        if (r && !r->line)
            continue;
        const struct raw_source *src = entry(rf, site ? s->unit : r->unit, site ? s->file : r->file);
        x[n++] = (struct named){site ? &s->file : &r->file, src,
                                src && src->path ? normal(src->path) : NULL, false};
    }
    /* Which names stand for one file only. */
    qsort(x, n, sizeof *x, by_name);
    for (size_t i = 0, end; i < n; i = end) {
        bool two = false;
        for (end = i + 1; end < n && !strcmp(*x[end].file, *x[i].file); end++)
            two |= x[end].path && cmp_str_null_last(x[end].path, x[i].path);
        for (size_t k = i; k < end; k++)
            x[k].unique = x[k].path && !two;
    }
    /* Per file (by path): its name; then every routine and site named by it.  Those
     * of no known file keep theirs. */
    qsort(x, n, sizeof *x, by_path);
    char **paths = cprof_xcalloc(n + 1, sizeof *paths);
    size_t npaths = 0;
    for (size_t i = 0; i < n; i++)
        if (x[i].path && (!npaths || strcmp(paths[npaths - 1], x[i].path)))
            paths[npaths++] = x[i].path;
    p->sources = cprof_xcalloc(n, sizeof *p->sources);
    for (size_t i = 0, end; i < n; i = end) {
        for (end = i + 1; end < n && x[i].path && x[end].path && !strcmp(x[end].path, x[i].path); end++)
            ;
        const char *name = x[i].path ? name_of(x, i, end, paths, npaths) : *x[i].file;
        cprof_prof_source *s = source_named(p, name);
        for (size_t k = i; k < end; k++) {
            learn(s, x[k].path, x[k].src ? x[k].src->hash : NULL, x[k].src ? x[k].src->bytes : -1);
            *x[k].file = s->name;
        }
    }
    for (size_t i = 0; i < n; i++)
        free(x[i].path);
    free(paths);
    free(x);
    qsort(p->sources, p->nsources, sizeof *p->sources, cmp_source);
    return 0;
}

int cprof_sources_sum(struct loader *l, cprof_profile *out, const cprof_profile *a,
                      const cprof_profile *b)
{
    (void)l;
    out->sources = cprof_xcalloc(a->nsources + b->nsources, sizeof *out->sources);
    for (size_t i = 0, j = 0; i < a->nsources || j < b->nsources;) {
        int d = i == a->nsources ? 1 : j == b->nsources ? -1
                                                          : strcmp(a->sources[i].name, b->sources[j].name);
        cprof_prof_source *s = &out->sources[out->nsources++];
        const cprof_prof_source *from = d <= 0 ? &a->sources[i] : &b->sources[j];
        s->name = cprof_xstrdup(from->name);
        s->bytes = -1;
        if (from->conflict)
            s->conflict = cprof_xstrdup(from->conflict);
        learn(s, from->path, from->hash, from->bytes);
        if (d == 0) {
            if (b->sources[j].conflict && !s->conflict)
                s->conflict = cprof_xstrdup(b->sources[j].conflict);
            learn(s, b->sources[j].path, b->sources[j].hash, b->sources[j].bytes);
        }
        i += d <= 0;
        j += d >= 0;
    }
    return 0;
}

void cprof_sources_free(cprof_profile *p)
{
    for (size_t i = 0; i < p->nsources; i++) {
        free(p->sources[i].name);
        free(p->sources[i].path);
        free(p->sources[i].hash);
        free(p->sources[i].conflict);
    }
    free(p->sources);
    p->sources = NULL;
    p->nsources = 0;
}
