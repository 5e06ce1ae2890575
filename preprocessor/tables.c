/* tables.c: what the rewriter adds on lines of its own: the prelude before the first
 * definition (the runtime's declarations, the call-site helpers, the caches), the
 * cleanup wrappers, and after the last line the unit's tables of routines and call
 * sites and their registration (unit.h). */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "../format/hash.h"
#include "unit.h"

/* The runtime header without its preprocessor lines: the output is compiled as
 * already-preprocessed text, with __CPROF__ defined, so the header's #else branch (the
 * no-op calls for other compilers) is left out too. */
static void add_header(struct str *out)
{
    int skip = 0;
    for (const char *p = cprof_header_text; *p;) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) + 1 : strlen(p);
        if (!strncmp(p, "#else /* not __CPROF__", 22))
            skip = 1;
        else if (!strncmp(p, "#endif /* __CPROF__", 19))
            skip = 0;
        else if (*p != '#' && !skip)
            str_add(out, p, n);
        p += n;
    }
}

void add_prelude(struct unit *u, struct str *out)
{
    str_add(out, "# 1 \"<cprof>\" 3\n", 16);
    /* A unit that includes <cprof.h> (to call cprof_write) has the declarations. */
    if (!memmem(u->text, u->size, "cprof_register_unit_v9", 22))
        add_header(out);
    str_printf(out, "static struct cprof_routine __cprof_r[%d];\n", u->nroutines ? u->nroutines : 1);
    str_printf(out, "static struct cprof_site __cprof_s[%d];\n", u->nsites ? u->nsites : 1);
    /* The helpers: always inline where gcc optimizes (the facade's cost), calls at -O0,
     * which gcc compiles far faster than their bodies inline at every site; but under
     * -fcprof-input-size, where a call's own accesses would be the sized activation's
     * input. */
    const char *helper = u->options->optimizing || u->options->input_size
                         ? "static __inline__ __attribute__((always_inline, unused))"
                         : "static __inline__ __attribute__((unused))";
    /* gcc makes every function a target region reaches a device function, where
     * thread-local storage is an error: in a unit with target regions the handshake is
     * a call of the runtime. */
    str_printf(out, "%s void __cprof_call(int i, void (*t)(void)) { %s }\n", helper,
               u->offload ? "cprof_pending_set(&__cprof_s[i], t);"
                          : "cprof_pending.site = &__cprof_s[i]; cprof_pending.target = t;");
    str_printf(out, "%s void __cprof_site(int i) { %s }\n", helper,
               u->offload ? "cprof_pending_set(&__cprof_s[i], 0);" : "cprof_pending.site = &__cprof_s[i];");
    /* Inside a construct whose default clause wants every variable listed (render.c's
     * names_tables), the code reaches the unit's tables and the runtime's variables
     * through these functions, which need no clause. */
    str_printf(out, "%s void __cprof_count(int i) { cprof_count(&__cprof_s[i]); }\n", helper);
    str_printf(out, "%s void __cprof_construct(int i) { cprof_pending.construct = &__cprof_s[i]; }\n",
               helper);
    str_printf(out, "%s struct cprof_frame *__cprof_enter(int r) { return cprof_facade.enter(&__cprof_r[r]); }\n",
               helper);
    if (u->nslots) {
        str_printf(out, "static __thread struct cprof_count_slot __cprof_n[%d];\n", u->nslots);
        str_printf(out, "%s int __cprof_cached(int i, int n, int k) "
                        "{ return cprof_count_cached(&__cprof_s[i], &__cprof_n[n], k); }\n", helper);
        str_printf(out, "%s void __cprof_case0(int i, int n, int c) "
                        "{ cprof_count_case0(&__cprof_s[i], &__cprof_n[n], c); }\n", helper);
    }
    /* A counted routine of external linkage (select.c): its unit's calls, counted at
     * their sites, leave the marker, which its entry takes back (cprof.h). */
    int counted_entry = 0;
    for (int i = 0; i < u->nroutines; i++)
        counted_entry |= u->routines[i].counted_entry;
    /* The slots of the sites that count a leaf's untimed calls (choose_leaf_sites). */
    if (u->nleaves) {
        /* Of the initial-exec model in a program's own units: gcc 12 folds the address
         * of a local-exec variable, a constant to it, into a loop's induction variables
         * with a displacement that may not fit 32 bits (ld: relocation truncated to fit:
         * R_X86_64_TPOFF32, on examples/md); an initial-exec address is a load. */
        str_add(out, "static int __cprof_lz;\n", 23);
        str_printf(out, "static __thread struct cprof_leaf_slot __cprof_l[%d]%s = {", u->nleaves,
                   u->options->pic ? "" : " __attribute__((tls_model(\"initial-exec\")))");
        /* Each slot's countdown the zero: positional, what C90 and -pedantic take
         * (-Wsystem-headers shows this line's warnings). */
        for (int i = 0; i < u->nleaves; i++)
            str_add(out, i ? ", { 0, &__cprof_lz, 0, 0 }" : " { 0, &__cprof_lz, 0, 0 }", i ? 26 : 25);
        str_add(out, " };\n", 4);
        str_printf(out, "static struct cprof_leaf_slot *__cprof_leaf_slots(void) { return __cprof_l; }\n");
    }
    if (counted_entry) {
        str_add(out, "static const struct cprof_site __cprof_m = { .id = -1 };\n", 57);
        str_printf(out, "%s void __cprof_counted_mark(void) { cprof_pending.site = &__cprof_m; }\n", helper);
        str_printf(out, "%s int __cprof_counted_enter(int r) { if (cprof_pending.site == &__cprof_m) "
                        "cprof_pending.site = cprof_site_consumed; else cprof_count_entry(&__cprof_r[r]); "
                        "return 0; }\n", helper);
    }
    for (int b = 0; b < u->nblocks; b++)
        if (u->blocks[b].clause)
            str_printf(out, "static int __cprof_k%d = -1;\n", b);
    str_printf(out, "%s void __cprof_leave(struct cprof_frame **f) { if (*f) cprof_facade.leave(*f); }\n",
               helper);
}

/* Declared with the prelude, defined after the last line, where every file-scope
 * declaration of the function is visible (and before the tables, which name the
 * callees the handshakes find): the cleanup function takes a pointer to the variable,
 * which a void * carries. */
void add_cleanup_wrappers(struct unit *u, struct str *out, int define)
{
    if (define)
        str_add(out, "\n# 1 \"<cprof>\" 3\n", 17);
    for (int i = 0; i < u->nnodes; i++) {
        struct node *n = &u->nodes[i];
        if (!n->cleanup)
            continue;
        str_printf(out, "static void __cprof_cleanup%d(void *p)", n->index);
        if (define) {
            str_add(out, " { ", 3);
            add_handshake(u, out, n);
            str_printf(out, "%s(p); }\n", n->target);
        } else {
            str_add(out, ";\n", 2);
        }
    }
}

/* One file the unit's routines and sites name: where it is, and what it holds now (the
 * profile's "sources", docs/source.md).  A relative name is gcc's, from the directory
 * it ran in, which the rewriter runs in too (a server's worker moves to the client's). */
static void add_source(struct str *out, const char *name)
{
    char real[PATH_MAX], cwd[PATH_MAX], joined[2 * PATH_MAX + 2], digits[CPROF_HASH_TEXT];
    uint64_t hash;
    int64_t bytes = -1;
    str_add(out, "\n  { .name = ", 13);
    str_literal(out, name);
    /* gcc's names of what is no file: <stdin>, <built-in>, <command-line>. */
    if (name[0] != '<') {
        str_add(out, ", .path = ", 10);
        if (realpath(name, real))
            str_literal(out, real);
        else if (name[0] != '/' && getcwd(cwd, sizeof cwd) &&
                 snprintf(joined, sizeof joined, "%s/%s", cwd[1] ? cwd : "", name) < (int)sizeof joined)
            str_literal(out, joined);
        else
            str_literal(out, name);
        if (cprof_hash_file(name, &hash, &bytes) == 0) {
            cprof_hash_text(hash, digits);
            str_printf(out, ", .hash = \"%s\"", digits);
        }
    }
    str_printf(out, ", .bytes = %lld },", (long long)bytes);
}

/* Each file named once, in the order of first mention; how many. */
static int add_sources(struct unit *u, struct str *out)
{
    const char **seen = cprof_xcalloc((size_t)(u->nroutines + u->nsites) + 1, sizeof *seen);
    int n = 0;
    str_add(out, "static const struct cprof_source __cprof_f[] = {", 48);
    for (int i = 0; i < u->nroutines + u->nsites; i++) {
        const char *f = i < u->nroutines ? u->routines[i].file : u->sites[i - u->nroutines].file;
        int k = 0;
        /* A library function's routine (libcalls) has no place of its own. */
        if (i < u->nroutines && !u->routines[i].line)
            continue;
        while (k < n && strcmp(seen[k], f))
            k++;
        if (k < n)
            continue;
        seen[n++] = f;
        add_source(out, f);
    }
    if (!n)
        str_add(out, " { 0 }", 6);
    str_add(out, "\n};\n", 4);
    free(seen);
    return n;
}

void add_tables(struct unit *u, struct str *out, const char *unit_file)
{
    str_add(out, "\n# 1 \"<cprof>\" 3\n", 17);
    str_printf(out, "static struct cprof_routine __cprof_r[%d] = {", u->nroutines ? u->nroutines : 1);
    for (int i = 0; i < u->nroutines; i++) {
        struct routine *r = &u->routines[i];
        /* Designated initializers: a field moved in cprof.h is harmless or an error. */
        str_add(out, "\n  { .name = ", 13);
        str_literal(out, r->name);
        str_add(out, ", .file = ", 10);
        str_literal(out, r->file);
        str_printf(out, ", .line = %u, .id = -1", r->line);
        if (!(r->line && r->internal && !r->address_taken))
            str_printf(out, ", .self = (void (*)(void))%s", r->name);
        if (r->counted)
            str_printf(out, ", .flags = CPROF_ROUTINE_COUNTED");
        else if (r->inlinable || !r->has_sites)
            str_printf(out, ", .flags = %s%s%s", r->inlinable ? "CPROF_ROUTINE_INLINABLE" : "",
                       r->inlinable && !r->has_sites ? " | " : "",
                       r->has_sites ? "" : "CPROF_ROUTINE_LEAF");
        str_add(out, " },", 3);
    }
    str_add(out, "\n};\n", 4);
    for (int i = 0; u->options->inline_hint && i < u->nroutines; i++)
        if (u->routines[i].counted_entry)
            str_printf(out, "__inline__ __typeof__(%s) %s;\n", u->routines[i].name, u->routines[i].name);
    str_printf(out, "static struct cprof_site __cprof_s[%d] = {", u->nsites ? u->nsites : 1);
    for (int i = 0; i < u->nsites; i++) {
        struct site *s = &u->sites[i];
        str_printf(out, "\n  { .caller = &__cprof_r[%d], ", s->routine);
        if (s->callee >= 0)
            str_printf(out, ".callee = &__cprof_r[%d], ", s->callee);
        str_add(out, ".file = ", 8);
        str_literal(out, s->file);
        str_printf(out, ", .line = %u, .d = %d, .id = -1", s->line, s->d);
        static const char *const names[] = {
            [CONSTRUCT_PARALLEL] = "PARALLEL", [CONSTRUCT_TASK] = "TASK", [CONSTRUCT_FOR] = "FOR",
            [CONSTRUCT_SECTIONS] = "SECTIONS", [CONSTRUCT_SINGLE] = "SINGLE",
            [CONSTRUCT_BARRIER] = "BARRIER" };
        if (s->construct)
            str_printf(out, ", .construct = CPROF_CONSTRUCT_%s", names[s->construct]);
        if (s->passes)
            str_add(out, ", .passes_case = 1", 18);
        if (s->leaf)
            str_printf(out, ", .leaf = %d, .leaf_slots = __cprof_leaf_slots", s->leaf);
        str_add(out, " },", 3);
    }
    /* The destructor runs after the object's other destructors (units.c: the profile
     * is written when the last unit unregisters at exit). */
    str_add(out, "\n};\n", 4);
    int nsources = add_sources(u, out);
    str_add(out, "static struct cprof_unit __cprof_unit = { .file = ", 50);
    str_literal(out, unit_file);
    str_printf(out, ", .nroutines = %d, .nsites = %d, .routines = __cprof_r, .sites = __cprof_s,"
                    " .nsources = %d, .sources = __cprof_f };\n"
                    "static void __attribute__((constructor)) __cprof_unit_init(void)\n"
                    "{ cprof_register_unit_v9(&__cprof_unit); }\n"
                    "static void __attribute__((destructor(101))) __cprof_unit_fini(void)\n"
                    "{ cprof_unregister_unit_v9(&__cprof_unit); }\n",
               u->nroutines, u->nsites, nsources);
}
