/* kmeans: Lloyd's k-means clustering, run for a range of k to find the elbow.
 *
 * Computes: N points in D dimensions drawn (by a seeded LCG written here) around
 * K_TRUE well separated integer centres, with integer noise; then, for every k from
 * K_MIN to K_TRUE + 1, k-means from a farthest-first start until no point changes
 * cluster, and the within-cluster sum of squares (SSE) of the result.
 *
 * Shape: per Lloyd iteration, a parallel assignment loop calling nearest() for every
 * point (S-C calls of assign: a small routine called a few million times), with
 * sum-reductions counting the points that moved and the SSE; a parallel update loop
 * with array sum-reductions over the clusters.  Farthest-first seeding alternates a
 * parallel loop (update_closest) with a sequential search (argmax); data generation and
 * checking are sequential.
 *
 * Checks: every run converges; for k = K_TRUE the clustering found is exactly the
 * generated one (each cluster holds the points of one generated centre, all of them)
 * and every centroid coordinate is within 1.5 of its generated centre's; the SSE has
 * its elbow at K_TRUE.  The coordinates are integers held in doubles, so the update
 * step's sums are exact in any order and every assignment, iteration count and centroid
 * is independent of the number of threads; only the SSE comes from a floating-point
 * reduction, and it is printed rounded.  Exit status 0 if the checks pass, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 40000
#define D 80
#define K_TRUE 10
#define K_MIN 2
#define K_MAX (K_TRUE + 1)
#define MAX_ITER 200

static double point[N][D];
static int true_label[N];
static double true_centre[K_TRUE][D];

static double centroid[K_MAX][D];
static int label[N];
static int size[K_MAX];

static uint64_t lcg_state;

/* A uniform integer in [0, n) from the LCG (a macro where it is used per coordinate). */
#define LCG_BELOW(n) \
    (lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL, \
     (int)((lcg_state >> 33) % (uint64_t)(n)))

static int lcg_below(int n)
{
    return LCG_BELOW(n);
}

static double dist2(const double *a, const double *b)
{
    double s = 0;
    for (int d = 0; d < D; d++)
        s += (a[d] - b[d]) * (a[d] - b[d]);
    return s;
}

static void make_point(double *p, const double *centre)
{
    for (int d = 0; d < D; d++) {
        int noise = 0;
        for (int r = 0; r < 4; r++)
            noise += LCG_BELOW(41) - 20;
        p[d] = centre[d] + noise;
    }
}

/* Centres at integer coordinates in [0, 1000), at least 300 apart; points around them
 * with noise that is a sum of four uniform integers in [-20, 20] per coordinate. */
static void generate(uint64_t seed)
{
    lcg_state = seed;
    for (int c = 0; c < K_TRUE; c++) {
        int ok;
        do {
            for (int d = 0; d < D; d++)
                true_centre[c][d] = lcg_below(1000);
            ok = 1;
            for (int o = 0; o < c; o++)
                if (dist2(true_centre[c], true_centre[o]) < 300.0 * 300.0)
                    ok = 0;
        } while (!ok);
    }
    for (int i = 0; i < N; i++) {
        int c = lcg_below(K_TRUE);
        true_label[i] = c;
        make_point(point[i], true_centre[c]);
    }
}

/* Lowers closest[i] to the squared distance of point i from seed where that is less. */
static void update_closest(double *closest, const double *seed)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        double s = 0;
        for (int d = 0; d < D; d++)
            s += (point[i][d] - seed[d]) * (point[i][d] - seed[d]);
        if (s < closest[i])
            closest[i] = s;
    }
}

/* The index of the largest of v[0..n) (the first one on ties). */
static int argmax(const double *v, int n)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (v[i] > v[best])
            best = i;
    return best;
}

/* Farthest-first seeding: point 0, then repeatedly the point farthest from the chosen
 * seeds. */
static void seed_centroids(int k)
{
    static double closest[N];
    for (int i = 0; i < N; i++)
        closest[i] = INFINITY;
    for (int c = 0; c < k; c++) {
        int far = c == 0 ? 0 : argmax(closest, N);
        memcpy(centroid[c], point[far], sizeof centroid[c]);
        update_closest(closest, centroid[c]);
    }
}

/* The centroid nearest to p (the lowest index on ties); *d2 its squared distance. */
static int nearest(const double *p, int k, double *d2)
{
    int best = 0;
    double best_d = INFINITY;
    for (int c = 0; c < k; c++) {
        double s = 0;
        for (int d = 0; d < D; d++)
            s += (p[d] - centroid[c][d]) * (p[d] - centroid[c][d]);
        if (s < best_d) {
            best_d = s;
            best = c;
        }
    }
    *d2 = best_d;
    return best;
}

/* Assignment step: returns the number of points that changed cluster; *sse the sum
 * of squared distances to the assigned centroids. */
static int assign(int k, double *sse)
{
    int changed = 0;
    double total = 0;
#pragma omp parallel for schedule(static) reduction(+:changed, total)
    for (int i = 0; i < N; i++) {
        double d2;
        int c = nearest(point[i], k, &d2);
        if (c != label[i]) {
            label[i] = c;
            changed++;
        }
        total += d2;
    }
    *sse = total;
    return changed;
}

/* Update step: every centroid moves to the mean of its points (an empty cluster keeps
 * its centroid). */
static void update(int k)
{
    double sum[K_MAX * D];
    int count[K_MAX];
    memset(sum, 0, sizeof sum);
    memset(count, 0, sizeof count);
#pragma omp parallel for schedule(static) reduction(+:sum[:K_MAX * D], count[:K_MAX])
    for (int i = 0; i < N; i++) {
        int c = label[i];
        count[c]++;
        for (int d = 0; d < D; d++)
            sum[c * D + d] += point[i][d];
    }
    for (int c = 0; c < k; c++) {
        size[c] = count[c];
        if (count[c] > 0)
            for (int d = 0; d < D; d++)
                centroid[c][d] = sum[c * D + d] / count[c];
    }
}

/* Lloyd's algorithm with k clusters; returns the number of iterations, or -1 if it did
 * not converge; *sse the final sum of squares. */
static int kmeans(int k, double *sse)
{
    seed_centroids(k);
    for (int i = 0; i < N; i++)
        label[i] = -1;
    for (int it = 1; it <= MAX_ITER; it++) {
        if (assign(k, sse) == 0)
            return it;
        update(k);
    }
    return -1;
}

/* 1 if the clusters are exactly the generated ones: a one-to-one map of clusters to
 * generated centres, every centroid coordinate within 1.5 of its centre's. */
static int matches_truth(int k)
{
    int map[K_MAX];
    int used[K_TRUE] = { 0 };
    if (k != K_TRUE)
        return 0;
    for (int c = 0; c < k; c++)
        map[c] = -1;
    for (int i = 0; i < N; i++) {
        int c = label[i];
        if (map[c] < 0) {
            if (used[true_label[i]])
                return 0;
            map[c] = true_label[i];
            used[true_label[i]] = 1;
        } else if (map[c] != true_label[i]) {
            return 0;
        }
    }
    for (int c = 0; c < k; c++)
        for (int d = 0; d < D; d++)
            if (map[c] < 0 || fabs(centroid[c][d] - true_centre[map[c]][d]) > 1.5)
                return 0;
    return 1;
}

int main(void)
{
    double sse[K_MAX + 1];
    int failed = 0, exact = 0, iterations = 0;
    generate(2024);
    printf("kmeans: %d points in %d dimensions around %d centres\n", N, D, K_TRUE);
    for (int k = K_MIN; k <= K_MAX; k++) {
        int it = kmeans(k, &sse[k]);
        if (it < 0) {
            printf("FAILED: k = %d did not converge in %d iterations\n", k, MAX_ITER);
            failed = 1;
            continue;
        }
        iterations += it;
        printf("k %2d: %3d iterations, mean squared distance %10.1f\n", k, it, sse[k] / N);
        if (k == K_TRUE) {
            exact = matches_truth(k);
            printf("      cluster sizes");
            for (int c = 0; c < k; c++)
                printf(" %d", size[c]);
            printf("\n");
        }
    }
    printf("%d iterations in all\n", iterations);
    if (!exact) {
        printf("FAILED: k = %d did not find the generated clusters\n", K_TRUE);
        failed = 1;
    }
    if (!(sse[K_TRUE - 1] > 4 * sse[K_TRUE] && sse[K_TRUE + 1] > 0.8 * sse[K_TRUE])) {
        printf("FAILED: no elbow at k = %d: SSE %g, %g, %g\n", K_TRUE,
               sse[K_TRUE - 1], sse[K_TRUE], sse[K_TRUE + 1]);
        failed = 1;
    }
    if (failed)
        return 1;
    printf("ok\n");
    return 0;
}
