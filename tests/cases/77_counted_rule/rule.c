/* Which small routines are counted (docs/cprof-cc.md, "Small routines"): only those
 * whose activations cannot take long, that call nothing but compiler builtins and
 * routines counted for the same reason.  Every routine below is small (few tokens, no
 * loop but in work), static (but other, in other.c), and called directly only. */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "other.h"

#define PUT(s) puts(s)                  /* a macro that expands to a library call */
#define LEAF_TWICE(x) (leaf(x) + leaf(x + 1))  /* one that expands to counted calls */

static volatile int sink;

/* counted: calls nothing */
static int leaf(int x) { return x * 3 + 1; }
/* counted: calls a counted routine, and one that does */
static int via_leaf(int x) { return leaf(x) + 1; }
static int chain(int x) { return via_leaf(x) - 1; }
/* counted: compiler builtins only */
static int builtins(unsigned x) { return __builtin_popcount(x) + (int)__builtin_expect(x, 0u); }
static void atomic(void) { __atomic_add_fetch(&sink, 1, __ATOMIC_RELAXED); __sync_synchronize(); }
/* counted: a macro of counted calls, and counted calls in a statement expression */
static int macro_leaf(int x) { return LEAF_TWICE(x); }
static int expr_leaf(int x) { return ({ int y = leaf(x); y + 1; }); }

/* counted: a call of a function that does not return (an assert's failure, abort,
 * a _Noreturn routine of the library) ends the activation; a sizeof is no work.  Their
 * tokens count as one each: asserted's body is over 64 tokens, its assert spelled. */
static int asserted(int x)
{
    assert(x < 1000 && x > -1000 && sizeof(int) == 4 && sizeof(long) >= sizeof(int));
    return x * 7 + (int)(sizeof(int[4]) + sizeof(long[2]) + sizeof(short[3]) + sizeof(char[5]));
}
static int aborts(int x) { if (x < 0) abort(); return x + 2; }
static int exits(int x) { if (x < -5) exit(3); return x + 3; }
/* counted: declared inline, 65 to 128 tokens (gcc's inliner gives such a function more
 * room); the same body not declared inline is timed */
#define LONG_BODY(x) int a = x + 1, b = a * 2, c = b - 3, d = c ^ 4, e = d | 5; \
    int f = e & 6, g = f + a, h = g * b, i = h - c, j = i ^ d; \
    return a + b + c + d + e + f + g + h + i + j
static inline int long_inline(int x) { LONG_BODY(x); }
static int long_plain(int x) { LONG_BODY(x); }

/* timed: a loop */
static void work(void) { for (volatile int i = 0; i < 1000; i++) ; }
/* timed: calls a timed routine */
static void calls_timed(void) { work(); }
/* timed: the C library, directly, through a macro, in a statement expression */
static int calls_libc(int x) { return abs(x); }
static void calls_sleep(void) { usleep(1); }
static void calls_macro(void) { PUT("macro"); }
static int expr_libc(const char *s) { return ({ int n = (int)strlen(s); n + 1; }); }
/* timed: through a pointer */
static int calls_pointer(int (*f)(int), int x) { return f(x); }
static int pointed(int x) { return x - 1; }
/* timed: a routine of another unit */
static int calls_other_unit(int x) { return other(x); }
/* timed: a cycle of calls (each small and calling only the other) */
static int ping(int x);
static int pong(int x) { return x > 0 ? ping(x - 1) : 0; }
static int ping(int x) { return x > 0 ? pong(x - 1) : 1; }
/* timed: calls a counted routine and a timed one */
static int mixed(int x) { return leaf(x) + calls_libc(x); }
/* timed: noinline, and so its caller */
__attribute__((noinline)) static int kept(int x) { return x ^ 5; }
static int calls_kept(int x) { return kept(x); }

/* timed: prints and exits, but not declared noreturn; counted: its caller, as gcc
 * finds die noreturn (no return, a last call of exit) and keeps its call cold */
static void die(const char *why) { fprintf(stderr, "%s\n", why); exit(4); }
static int checked(int x) { if (x < 0) die("negative"); return x + 1; }

int main(void)
{
    int t = leaf(1) + via_leaf(2) + chain(3) + builtins(7u) + macro_leaf(1) + expr_leaf(2);
    atomic();
    calls_timed();
    calls_sleep();
    calls_macro();
    t += calls_libc(-4) + expr_libc("abc") + calls_pointer(pointed, 9) + calls_other_unit(2);
    t += ping(3) + mixed(1) + calls_kept(3);
    t += asserted(1) + aborts(1) + exits(1) + long_inline(1) + long_plain(1) + checked(2);
    printf("%d %d\n", t, sink);
    return 0;
}
