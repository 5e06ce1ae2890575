/* unit.h: what the rewriter's files share (rewrite.c runs them in turn, rewrite.h is
 * what it offers cprof-rewrite): the model of one translation unit that the walk and the
 * analysis fill and render and tables read, and what each file offers. */
#ifndef CPROF_UNIT_H
#define CPROF_UNIT_H

#include <clang-c/Index.h>
#include <stddef.h>
#include "alloc.h"
#include "rewrite.h"

/* A growing string (buffer.c). */
struct str {
    char *p;
    size_t len, cap;
};

/* ---- what the walk and the analysis find ---- */

/* The OpenMP constructs that get a site of their own (runtime/cprof.h's
 * CPROF_CONSTRUCT_*, in order): a region, a task, a construct ending with a barrier. */
enum construct { CONSTRUCT_NONE, CONSTRUCT_PARALLEL, CONSTRUCT_TASK, CONSTRUCT_FOR,
                 CONSTRUCT_SECTIONS, CONSTRUCT_SINGLE, CONSTRUCT_BARRIER };

enum node_kind { N_HOOK, N_CALL, N_SETJMP, N_LONGJMP, N_REDUCTION, N_RENAME, N_CLAUSE, N_CLOSE,
                 N_CONSTRUCT, N_TWIN, N_TWIN_END, N_COMMENT,
                 N_LEAF_COPY };

struct node {
    enum node_kind kind;
    unsigned start, end;            /* byte range in the input; a hook is empty */
    unsigned desig_start, desig_end;
    int nargs;
    unsigned *arg_start, *arg_end;
    unsigned char *arg_bitfield;
    char *target;                   /* direct call: the function's name; NULL: a pointer */
    char *text;                     /* N_COMMENT: the source's text that replaces the range */
    int implicit;                   /* direct call of an implicitly declared function */
    int scoped;                     /* implicit, with no prototype (not a library
                                       function's): clang declares it in the innermost
                                       block only */
    int leaf;                       /* a library function profiled as a leaf, or a user
                                       region (region): its routine */
    int region;                     /* opens a region: 1 cprof_region_begin("NAME"), 2 the
                                       line of a #pragma cprof region("NAME") */
    int cleanup;                    /* N_CALL: the function named by a cleanup attribute */
    int initializer;                /* N_CALL: a declare reduction's initializer(f(...)) */
    int discarded;                  /* N_CALL: its value is unused (an expression statement) */
    int index;                      /* N_CALL, N_CONSTRUCT: site; N_HOOK: routine;
                                       N_REDUCTION: its copy; N_CLAUSE: block */
    int copy;                       /* a call in that copy of a declare reduction, else 0 */
    int *kids, nkids;               /* nodes directly inside this one, by position */
    int placed;                     /* rendered where it is (not a second visit of the
                                       same call, nor inside one) */
    int braced;                     /* N_CONSTRUCT: opens a brace (an N_CLOSE closes it) */
};

struct routine {
    char *name, *file;
    unsigned line;                  /* 0: a library function (libcalls) */
    int internal;                   /* static */
    int address_taken;              /* the unit may take its address */
    int small;                      /* a short body without loops or pragmas */
    int calls_out;                  /* calls something no routine of this unit stands for
                                       (the C library, another unit, a pointer, setjmp...),
                                       a compiler builtin aside: its activations may take long */
    int called_uninstrumented;      /* a function cprof does not instrument calls it */
    int special_entry;              /* called from elsewhere: a constructor, a destructor */
    int declared_inline;
    int noinline;
    int weak;                       /* another unit's definition may be the one called */
    int noreturn;                   /* does not return (select.c's is_noreturn): a call of
                                       it makes no activation long */
    int counted;                    /* counted at its call sites: no entry hook */
    int counted_entry;              /* counted, of external linkage: other units' calls are
                                       counted at its entry (cprof_count_entry), its unit's
                                       at their sites, which leave the unit's marker */
    int inlinable;                  /* timed, though gcc may inline it (CPROF_ROUTINE_INLINABLE) */
    int reads_case0;                /* copies cprof_pending.case0 at entry: has sites that
                                       count with it */
    int has_sites;                  /* makes a call cprof sees (a site of its own, a
                                       construct's included): else CPROF_ROUTINE_LEAF */
    int region;                     /* a user region (cprof_region_begin): no function of
                                       that name, never counted, never called by name */
    /* -fcprof-input-size: rendered with an instrumented twin (twins.c); where its
     * definition, name and body start and where it ends; the names its parameters are
     * passed on by; returns void; the twin needs `static`; declared before; tests
     * cprof_sizes_twin at its start (all but counted routines whose every caller's
     * twin follows their own, and calls it). */
    int twin;
    int copyable;                   /* not under -fcprof-input-size: find_twin's tests hold,
                                       so a copy without its hook may be made (leaf_copy) */
    int leaf_copy;                  /* its leaf sites call __cprof_u_<name>, its copy with
                                       no hook, on their untimed calls */
    unsigned def_start, name_start, name_end, body_start, def_end;
    char *twin_args;
    int twin_void, twin_static, twin_declared, twin_dispatch;
};

struct site {
    int routine;
    int callee;                     /* a direct call of a routine defined here, or -1 */
    char *file;
    unsigned line;
    int d;
    /* A counted callee's call, counted inline (cprof_count_cached) with the case known
     * from: CACHE_CASE0, the routine's case0; CACHE_BLOCK, the cache private to each
     * thread of the enclosing parallel construct `block`; else by cprof_count. */
    enum { CACHE_NONE, CACHE_CASE0, CACHE_BLOCK } cache;
    int block;
    int slot;                       /* its thread-local pointer to the counts, __cprof_n[slot] */
    /* A timed callee's call whose case is known the same way (cache): the site passes it
     * with its handshake (cprof_pending.kase), and the entry asks OpenMP nothing. */
    int passes;
    /* A passing site of a leaf routine's (timed, no site of its own, not a region's):
     * its untimed calls count at the site (cprof_leaf_untimed), through its thread-local
     * slot __cprof_l[leaf - 1]; 0: none. */
    int leaf;
    enum construct construct;       /* an OpenMP construct's site, not a call's */
};

/* The structured block of an OpenMP construct (of any directive: a standalone one gets
 * the statement after it, which only makes choose_caches more careful). */
struct block {
    unsigned pragma_end, start, end;
    int parallel;                   /* opens a parallel region (counts in d) */
    /* A parallel construct that may hold a cache of the case (firstprivate, no simd or
     * tasks in the combined construct); another one that a cache may be used through
     * (worksharing, synchronization: no data environment of its own to list it in). */
    int cacheable;
    enum construct construct;       /* the site it gets, if any */
    int clause;                     /* gets firstprivate(__cprof_k<index>) */
    /* The code rewritten inside may name no variable of the unit's or the runtime's
     * (a default clause but default(shared), a target region, a loop construct or
     * order(concurrent): pragmas.c's restricts_names, render.c's names_tables). */
    int restricted;
    char *region;                   /* #pragma cprof region("NAME"): NAME, else NULL */
    unsigned pragma_start;          /* where its line starts */
};

struct reduction {                  /* a "declare reduction" line */
    unsigned line, eol;
    unsigned id_start, id_end;      /* its reduction-identifier */
};

struct span {
    unsigned start, end;
};

struct unit {
    const struct cprof_rewrite_options *options;
    const char *text;
    size_t size;
    CXTranslationUnit tu;
    unsigned first_definition;      /* where the first instrumented function starts */
    CXFile file;                    /* the preprocessed text */
    struct node *nodes;
    int nnodes, nodes_cap;
    struct routine *routines;
    int nroutines, routines_cap;
    struct site *sites;
    int nsites, sites_cap;
    struct block *blocks;
    int nblocks;
    int offload;                    /* has OpenMP target regions or declare target */
    int nslots;                     /* sites counted inline */
    int nleaves;                    /* sites counting their untimed calls (site's leaf) */
    struct reduction *reductions;
    int nreductions, ncopies;
    struct span *bodies;            /* of every function definition, in order */
    int nbodies, bodies_cap;
    char **functions;               /* names of the functions calls may profile, sorted */
    int nfunctions, functions_cap;
    int *defined;                   /* routines defined here, by name */
    int ndefined;
    int **tops, *ntops;             /* per copy (0: the text), its outermost nodes */
    unsigned *region_ends;          /* where cprof_region_end() is called, in walk order
                                       (a #pragma cprof region ends with its statement) */
    int nregion_ends, region_ends_cap;
    unsigned (*unevaluated)[2];     /* sizeof's operands that are evaluated (a variable-
                                       length array's): [start, end) */
    int nunevaluated, unevaluated_cap;
    /* while visiting one function body */
    int routine;
    unsigned body_start, body_end;
    int block_first, block_next, block_last;
    int rendering_twin;             /* a twin's body: hooks are left out */
    int in_facade;                  /* rendering inside a call's statement expression */
};

#define GROW(array, n, cap) do { \
        if ((n) == (cap)) { \
            (cap) = (cap) ? 2 * (cap) : 64; \
            (array) = cprof_xrealloc((array), (size_t)(cap) * sizeof *(array)); \
        } \
    } while (0)

/* ---- buffer.c: growing strings (struct str). */
void str_add(struct str *s, const char *p, size_t n);
void str_printf(struct str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void str_literal(struct str *out, const char *s);

/* ---- cursor.c: libclang's answers about a cursor: its spelling taken as a string of ours,
 * its offsets in the text, its place in the user's terms (gcc's line markers); for a
 * call's designator, the name it calls directly and that function. */
char *cx_take(CXString s);
unsigned offset_of(CXSourceLocation loc);
void extent_of(CXCursor c, unsigned *start, unsigned *end);
char *presumed(CXSourceLocation loc, unsigned *line);
enum CXChildVisitResult first_child(CXCursor c, CXCursor parent, CXClientData data);
CXCursor strip(CXCursor c);
CXCursor callee_reference(CXCursor designator);
CXCursor direct_callee(CXCursor designator);

/* ---- pragmas.c: the "#pragma omp" lines and the words of their directives;
 * find_parallel_pragmas lists the unit's blocks (and #pragma cprof region lines) and
 * declare reductions, and sets offload. */
int is_word_char(char c);
int directive_is_parallel(const char *p, const char *end);
const char *omp_directive(const char *line, const char *eol);
const char *pragma_of(const char *line, const char *eol, const char *word);
const char *next_word(const char *p, const char *end, const char **w);
int word_is(const char *w, const char *p, const char *word);
int declares_reduction(const char *p, const char *end, const char **id, const char **id_end);
void find_parallel_pragmas(struct unit *u);

/* ---- select.c: the selection rules: is a function profiled (the user's patterns, its
 * opt-out, system headers), is a body small, has a function an attribute; and
 * choose_counted, which routines are counted at their sites, and which are inlinable. */
int selected(const struct unit *u, CXCursor fn);
int is_external_inline(CXCursor fn);
/* A compiler builtin (__builtin_*, __atomic_*, __sync_*): never a routine; no call at
 * run time, or a short one. */
int is_builtin(const char *name);
int may_be_routine(const struct unit *u, CXCursor fn, const char *name);
/* MPI's functions, by the standard's prefixes (MPI_, PMPI_), wherever mpi.h is: mpicc
 * gives its directory with -I, which makes it no system header.  Not defined in the
 * unit, they are the library's. */
int is_mpi_function(const char *name);
int is_small(const struct unit *u, CXCursor fn, CXCursor body);
int is_noreturn(const struct unit *u, CXCursor fn);
int has_attribute(const struct unit *u, CXCursor fn, const char *const *words);
void choose_counted(struct unit *u);

/* ---- twins.c: -fcprof-input-size's instrumented twin of each routine that can be copied:
 * find_twin tells from the walk which can, add_twins (once the analysis has chosen the
 * counted routines and caches) places their nodes: N_TWIN at the definition, whose
 * render_twin renders the prototype, the twin and the original's attribute, and for a
 * routine that dispatches to its twin N_TWIN_END before its closing brace (the end of
 * its else); add_dispatch renders the jump to
 * the twin after the original's hook. */
void find_twin(struct unit *u, CXCursor fn, CXCursor body, struct routine *r);
void render_leaf_copy(struct unit *u, struct str *out, const struct node *n);
void add_twins(struct unit *u);
void render_twin(struct unit *u, struct str *out, const struct node *n);
void add_dispatch(struct unit *u, struct str *out, int routine);
int calls_twin(const struct unit *u, const struct node *n);

/* ---- walk.c: the AST walk.  walk() finds the functions calls may profile and visits every
 * definition: its routine, hook, calls (nodes and sites), cleanup calls, and through
 * clauses.c the calls in its pragmas. */
struct node *new_node(struct unit *u, enum node_kind kind, unsigned start, unsigned end);
/* Where a statement whose cursor ends at end ends: an expression statement's cursor
 * ends before its semicolon. */
unsigned statement_end(const struct unit *u, unsigned end);
struct site *new_site(struct unit *u, CXTranslationUnit tu, unsigned offset, int *index);
int is_function(struct unit *u, const char *p, size_t n);
void walk(struct unit *u);

/* ---- regions.c: assign_regions gives each call site of a body (sites from first_site
 * on, its nodes from first_node on, the body's text [bstart, bend)) the user region it
 * is made in as its caller, following the body's control flow from each region's begin to its end; a warning
 * where paths that disagree meet. */
void assign_regions(struct unit *u, CXCursor body, int first_node, int first_site,
                    unsigned bstart, unsigned bend);

/* ---- clauses.c: calls in OpenMP clauses, and the copies of declare reductions with calls. */
void add_clause_calls(struct unit *u, CXTranslationUnit tu, unsigned from, unsigned to);
void add_reductions(struct unit *u, unsigned definition_line, int first_block);

/* ---- addresses.c: find_addresses_taken sets each routine's address_taken and
 * called_uninstrumented. */
void find_addresses_taken(struct unit *u);

/* ---- comments.c: restore_comments puts the source's comments back before each label
 * (a fall-through comment), as N_COMMENT nodes. */
void restore_comments(struct unit *u);

/* ---- analyze.c: after the walk, in this order: index_routines (then defined_routine
 * answers), choose_caches (after choose_counted), number_sites (nodes sorted, sites in
 * source order), build_trees, find_callees (the calls placed from an offset on). */
void index_routines(struct unit *u);
void blocks_around(const struct unit *u, unsigned at, int *first, int *last);
int defined_routine(const struct unit *u, const char *p, size_t n);
void choose_caches(struct unit *u);
void number_sites(struct unit *u);
void build_trees(struct unit *u);
void find_callees(struct unit *u, unsigned from);
/* After add_twins: which routines make a call cprof sees (has_sites), the passing sites
 * of the others (struct site's leaf) and their copies (N_LEAF_COPY). */
void choose_leaf_sites(struct unit *u);

/* ---- render.c: render_range copies a range of the text with the nodes placed in it
 * rewritten; add_handshake writes a direct call's half of the handshake. */
void add_line_marker(struct unit *u, struct str *out, unsigned at, int system);
void render_range(struct unit *u, struct str *out, unsigned from, unsigned to,
                  const int *kids, int nkids);
void add_handshake(struct unit *u, struct str *out, const struct node *n);
int names_tables(const struct unit *u, const struct node *n);
int in_reduction(const struct unit *u, const struct node *n);

/* ---- tables.c: the lines the rewriter adds: the prelude, the cleanup wrappers (declared
 * with the prelude, defined after the last line), the tables. */
void add_prelude(struct unit *u, struct str *out);
void add_cleanup_wrappers(struct unit *u, struct str *out, int define);
void add_tables(struct unit *u, struct str *out, const char *unit_file);

#endif
