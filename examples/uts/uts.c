/* uts: the unbalanced tree search, counting the nodes of an implicit random tree.
 *
 * Computes: the size, leaf count, depth and a digest of a binomial tree defined by
 * hashing alone: the root has ROOT_CHILDREN children; every other node has
 * NON_ROOT_CHILDREN children with probability Q and none otherwise, decided by its
 * 64-bit state, and a child's state is a hash of its parent's state and its index.
 * With NON_ROOT_CHILDREN * Q just below 1 the subtrees are of wildly different sizes,
 * so no static split of the work balances.
 *
 * Shape: one `parallel` region whose `single` thread calls search on the root; search
 * makes a task for each child (recursively, as in BOTS uts) and waits for them; every
 * node calls spawn (a hash of 80 rounds, a loop) once per child and the tiny
 * num_children, to_prob and mix.  All calls but the first are made inside tasks: C-S.
 *
 * Checks: the subtrees of the first children of the root, CHECKED nodes or more, are
 * counted again sequentially with an explicit stack and must match what the tasks
 * found for them, and nodes = 1 + (children of all nodes).  The sums are of integers,
 * so they and the digest (a sum of the leaves' states) do not depend on the thread
 * count or on which thread ran which task.  Exit status 0 if the checks pass, 1 otherwise.
 *
 * ROOT_CHILDREN can be set at compile time (-DROOT_CHILDREN=...) for a smaller tree.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef ROOT_CHILDREN
#define ROOT_CHILDREN 2000
#endif
#define NON_ROOT_CHILDREN 4
#define Q 0.2495                /* m q = 0.998: a subtree has 500 nodes on average */
#define SPAWN_ROUNDS 80
#define CHECKED 20000           /* nodes counted again sequentially, at least */
#define MAX_STACK 1000000

struct counts {
    long nodes, leaves, children;
    int depth;
    uint64_t digest;
};

static struct counts root_child[ROOT_CHILDREN];

static uint64_t mix(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* The state of child i of a node: SPAWN_ROUNDS rounds of add-rotate-xor over four
 * words, standing in for the SHA-1 compression BOTS uses here (about as many rounds). */
static uint64_t spawn(uint64_t state, int i)
{
    uint64_t a = state, b = 0x9e3779b97f4a7c15ULL * (uint64_t)(i + 1), c = ~state, d = (uint64_t)i;
    for (int r = 0; r < SPAWN_ROUNDS; r++) {
        a += b;
        d = (d ^ a) << 32 | (d ^ a) >> 32;
        c += d;
        b = (b ^ c) << 24 | (b ^ c) >> 40;
        a += b + (uint64_t)r;
        d = (d ^ a) << 16 | (d ^ a) >> 48;
        c += d;
        b = (b ^ c) << 63 | (b ^ c) >> 1;
    }
    return mix(a ^ b ^ c ^ d);
}

static double to_prob(uint64_t state)
{
    return (double)(state >> 11) * 0x1.0p-53;
}

static int num_children(uint64_t state, int depth)
{
    if (depth == 0)
        return ROOT_CHILDREN;
    return to_prob(state) < Q ? NON_ROOT_CHILDREN : 0;
}

static void add(struct counts *sum, const struct counts *c)
{
    sum->nodes += c->nodes;
    sum->leaves += c->leaves;
    sum->children += c->children;
    sum->digest += c->digest;
    if (c->depth > sum->depth)
        sum->depth = c->depth;
}

/* The counts of the subtree at (state, depth), a task per child. */
static struct counts search(uint64_t state, int depth)
{
    int n = num_children(state, depth);
    struct counts sum = { 1, n == 0, n, depth, n == 0 ? state : 0 };
    struct counts mine[NON_ROOT_CHILDREN];
    struct counts *child = depth == 0 ? root_child : mine;
    for (int i = 0; i < n; i++) {
        uint64_t s = spawn(state, i);
        #pragma omp task firstprivate(i, s, child)
        child[i] = search(s, depth + 1);
    }
    #pragma omp taskwait
    for (int i = 0; i < n; i++)
        add(&sum, &child[i]);
    return sum;
}

/* The same counts, sequentially, with an explicit stack. */
static struct counts count_seq(uint64_t state, int depth)
{
    static uint64_t stack_state[MAX_STACK];
    static int stack_depth[MAX_STACK];
    struct counts sum = { 0, 0, 0, depth, 0 };
    int top = 0;
    stack_state[top] = state;
    stack_depth[top++] = depth;
    while (top > 0) {
        uint64_t s = stack_state[--top];
        int d = stack_depth[top];
        int n = num_children(s, d);
        sum.nodes++;
        sum.children += n;
        if (n == 0) {
            sum.leaves++;
            sum.digest += s;
        }
        if (d > sum.depth)
            sum.depth = d;
        for (int i = 0; i < n && top < MAX_STACK; i++) {
            stack_state[top] = spawn(s, i);
            stack_depth[top++] = d + 1;
        }
    }
    return sum;
}

int main(void)
{
    const uint64_t root = 0x1234;
    struct counts total;
    #pragma omp parallel
    #pragma omp single
    total = search(root, 0);

    printf("nodes %ld, leaves %ld, depth %d, digest %016llx\n", total.nodes, total.leaves,
           total.depth, (unsigned long long)total.digest);
    int failed = 0;
    if (total.nodes != 1 + total.children) {
        printf("FAILED: %ld nodes but %ld children\n", total.nodes, total.children);
        failed = 1;
    }
    long checked = 0;
    for (int i = 0; i < ROOT_CHILDREN && checked < CHECKED; i++) {
        struct counts c = count_seq(spawn(root, i), 1);
        const struct counts *t = &root_child[i];
        if (c.nodes != t->nodes || c.leaves != t->leaves || c.depth != t->depth
            || c.digest != t->digest) {
            printf("FAILED: subtree %d: %ld nodes sequentially, %ld with tasks\n", i, c.nodes,
                   t->nodes);
            failed = 1;
        }
        checked += c.nodes;
    }
    if (failed)
        return 1;
    printf("ok (%ld nodes counted again sequentially)\n", checked);
    return 0;
}
