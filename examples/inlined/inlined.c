/* inlined: a Kronecker (R-MAT) graph generator built on modular arithmetic helpers.
 *
 * Computes: the EDGES edges of a scale-SCALE Kronecker graph with initiator
 * probabilities A, B, C, D (as the Graph500 benchmark's generator makes them): each
 * edge's two endpoints are chosen bit by bit, a quadrant per level, from a multiple
 * recursive random generator modulo 2^31 - 1 seeded from the edge's index, and then
 * scrambled to spread the high-degree vertices.  Prints how many edges are self loops,
 * fall in each quadrant at the first level, and digests of the endpoints.
 *
 * Shape: a `parallel for` over the edges; the arithmetic is `static inline` helpers
 * with asserts (mod_add, mod_mul, mod_mac, mod_reduce, mrg_next, scramble), as in
 * Graph500's generator: about 150 calls per edge of routines of a few
 * instructions, which gcc inlines in a plain build, and which cprof's rule for small
 * routines does not count (an assert is a call).
 *
 * Checks: every 1009th edge is generated again by a second, plain implementation of
 * the same generator (64-bit `%`, no helpers) and must be equal.  The counts and digests
 * are sums of integers (reductions), so every printed number is independent of the
 * thread count.  Exit status 0 if the checks pass, 1 otherwise.
 *
 * SCALE and EDGES can be set at compile time (-DEDGES=...) for a smaller run.
 */
#include <assert.h>
#include <stdint.h>
#include <stdio.h>

#ifndef SCALE
#define SCALE 20
#endif
#ifndef EDGES
#define EDGES (3L << SCALE)
#endif
#define CHECK_EVERY 1009
#define MOD 2147483647u         /* 2^31 - 1 */
#define MRG_A1 107374182u       /* x[n] = A1 x[n-1] + A5 x[n-5] (mod 2^31 - 1) */
#define MRG_A5 104480u
/* The initiator's probabilities A, B, C (D = 1 - A - B - C), scaled to MOD. */
#define P_A ((uint32_t)(0.57 * MOD))
#define P_AB ((uint32_t)(0.76 * MOD))
#define P_ABC ((uint32_t)(0.95 * MOD))

static inline uint32_t mod_add(uint32_t a, uint32_t b)
{
    assert(a < MOD && b < MOD);
    uint32_t s = a + b;
    return s >= MOD ? s - MOD : s;
}

static inline uint32_t mod_reduce(uint64_t x)
{
    assert(x < (uint64_t)MOD * MOD);
    uint64_t r = (x & MOD) + (x >> 31);
    r = (r & MOD) + (r >> 31);
    return r >= MOD ? (uint32_t)(r - MOD) : (uint32_t)r;
}

static inline uint32_t mod_mul(uint32_t a, uint32_t b)
{
    assert(a < MOD && b < MOD);
    return mod_reduce((uint64_t)a * b);
}

/* sum + a b (mod 2^31 - 1) */
static inline uint32_t mod_mac(uint32_t sum, uint32_t a, uint32_t b)
{
    assert(sum < MOD);
    return mod_add(sum, mod_mul(a, b));
}

/* The generator's state: its last five values, s[0] the newest. */
static inline uint32_t mrg_next(uint32_t s[5])
{
    uint32_t x = mod_mac(mod_mul(MRG_A1, s[0]), MRG_A5, s[4]);
    assert(x < MOD);
    for (int k = 4; k > 0; k--)
        s[k] = s[k - 1];
    s[0] = x;
    return x;
}

static inline uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ULL;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dULL;
    return x ^ (x >> 33);
}

/* A bijection of [0, 2^SCALE): multiply by an odd number, xor, multiply again. */
static inline uint64_t scramble(uint64_t v)
{
    assert(v < (1ULL << SCALE));
    uint64_t mask = (1ULL << SCALE) - 1;
    v = (v * 0x9e3779b97f4a7c15ULL) & mask;
    v ^= v >> (SCALE / 2);
    return (v * 0xbf58476d1ce4e5b9ULL) & mask;
}

static void seed(uint32_t s[5], long e)
{
    for (int k = 0; k < 5; k++)
        s[k] = mod_reduce(mix((uint64_t)e * 5 + k) >> 2) | 1;
}

/* Edge e's endpoints; returns the first level's quadrant (0..3). */
static int make_edge(long e, uint64_t *u, uint64_t *v)
{
    uint32_t s[5];
    int first = 0;
    seed(s, e);
    *u = *v = 0;
    for (int level = 0; level < SCALE; level++) {
        uint32_t r = mrg_next(s);
        int q = r < P_A ? 0 : r < P_AB ? 1 : r < P_ABC ? 2 : 3;
        if (level == 0)
            first = q;
        *u = *u << 1 | (uint64_t)(q >> 1);
        *v = *v << 1 | (uint64_t)(q & 1);
    }
    *u = scramble(*u);
    *v = scramble(*v);
    return first;
}

/* ---- the same generator once more, plainly, for the check ---- */

static void make_edge_ref(long e, uint64_t *u, uint64_t *v)
{
    uint64_t s[5], mask = (1ULL << SCALE) - 1;
    for (int k = 0; k < 5; k++)
        s[k] = ((mix((uint64_t)e * 5 + k) >> 2) % MOD) | 1;
    *u = *v = 0;
    for (int level = 0; level < SCALE; level++) {
        uint64_t x = (MRG_A1 * s[0] % MOD + MRG_A5 * s[4] % MOD) % MOD;
        for (int k = 4; k > 0; k--)
            s[k] = s[k - 1];
        s[0] = x;
        int q = x < P_A ? 0 : x < P_AB ? 1 : x < P_ABC ? 2 : 3;
        *u = *u << 1 | (uint64_t)(q >> 1);
        *v = *v << 1 | (uint64_t)(q & 1);
    }
    for (uint64_t *w = u; w; w = (w == u ? v : NULL)) {
        uint64_t t = (*w * 0x9e3779b97f4a7c15ULL) & mask;
        t ^= t >> (SCALE / 2);
        *w = (t * 0xbf58476d1ce4e5b9ULL) & mask;
    }
}

int main(void)
{
    long loops = 0, q0 = 0, q1 = 0, q2 = 0, q3 = 0, wrong = 0;
    uint64_t digest_u = 0, digest_v = 0, digest_edges = 0;
    #pragma omp parallel for schedule(static) \
        reduction(+: loops, q0, q1, q2, q3, wrong, digest_u, digest_v, digest_edges)
    for (long e = 0; e < EDGES; e++) {
        uint64_t u, v;
        int q = make_edge(e, &u, &v);
        q0 += q == 0;
        q1 += q == 1;
        q2 += q == 2;
        q3 += q == 3;
        loops += u == v;
        digest_u += u;
        digest_v += v;
        digest_edges += mix(u << SCALE | v);
        if (e % CHECK_EVERY == 0) {
            uint64_t ru, rv;
            make_edge_ref(e, &ru, &rv);
            wrong += ru != u || rv != v;
        }
    }
    printf("scale %d, %ld edges, %ld self loops\n", SCALE, (long)EDGES, loops);
    printf("first level: %ld %ld %ld %ld edges in quadrants a b c d\n", q0, q1, q2, q3);
    printf("digests: u %016llx v %016llx edges %016llx\n", (unsigned long long)digest_u,
           (unsigned long long)digest_v, (unsigned long long)digest_edges);
    if (wrong) {
        printf("FAILED: %ld of the edges checked differ from the plain generator\n", wrong);
        return 1;
    }
    printf("ok (%ld edges checked against the plain generator)\n",
           (long)((EDGES + CHECK_EVERY - 1) / CHECK_EVERY));
    return 0;
}
