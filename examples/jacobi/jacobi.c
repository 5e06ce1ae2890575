/* jacobi: 2-D heat diffusion on a square plate by Jacobi iteration.
 *
 * Computes: the steady temperature of a square plate whose top edge is held at 100
 * degrees and whose other edges are held at 0, on an N x N grid, by Jacobi sweeps until
 * the largest change in a sweep falls below a tolerance.
 *
 * Shape: one `parallel for` per sweep, each thread relaxing whole rows through a helper
 * (relax_row, called from the parallel loop) with a max-reduction of the change; a
 * `parallel for` with sum-reductions for the heat flux at the end (edge_step, called
 * from it); boundary set-up and the symmetry check are sequential.
 *
 * Checks: left-right symmetry; the centre of the plate settles at a quarter of the hot
 * edge's temperature (by superposition of the four rotations of the problem); the heat
 * flowing in through the hot edge equals the heat flowing out through the other three.
 * Prints only thread-count independent numbers (the max-reduction is exact; the sums
 * are printed rounded).  Exit status 0 if the checks pass, 1 otherwise.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 131                   /* odd: the centre is a grid point */
#define HOT 100.0

static double grid[2][N][N];

static void set_boundary(double (*g)[N])
{
    for (int i = 0; i < N; i++) {
        g[N - 1][i] = 0.0;
        g[i][0] = 0.0;
        g[i][N - 1] = 0.0;
    }
    for (int j = 1; j < N - 1; j++)
        g[0][j] = HOT;          /* hot top edge, corners excluded to keep symmetry */
}

/* Relaxes the interior of row i from src into dst; returns the row's largest change. */
static double relax_row(double (*src)[N], double (*dst)[N], int i)
{
    double change = 0.0;
    for (int j = 1; j < N - 1; j++) {
        dst[i][j] = 0.25 * (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]);
        double d = fabs(dst[i][j] - src[i][j]);
        if (d > change)
            change = d;
    }
    return change;
}

/* One sweep; returns the largest change. */
static double sweep(double (*src)[N], double (*dst)[N])
{
    double change = 0.0;
#pragma omp parallel for schedule(static) reduction(max:change)
    for (int i = 1; i < N - 1; i++) {
        double d = relax_row(src, dst, i);
        if (d > change)
            change = d;
    }
    return change;
}

/* Sweeps until converged; returns the number of sweeps, *result the final grid. */
static int solve(double tolerance, int max_iter, int *result)
{
    int it, cur = 0;
    for (it = 1; it <= max_iter; it++) {
        double change = sweep(grid[cur], grid[1 - cur]);
        cur = 1 - cur;
        if (change < tolerance)
            break;
    }
    *result = cur;
    return it;
}

/* Heat flowing across the boundary (the temperature step between a boundary point and
 * its interior neighbour): in through the hot edge, out through the three cold ones. */
static double edge_step(double (*g)[N], int i, int j, int di, int dj)
{
    return g[i][j] - g[i + di][j + dj];
}

static void fluxes(double (*g)[N], double *in, double *out)
{
    double fin = 0.0, fout = 0.0;
#pragma omp parallel for schedule(static) reduction(+:fin, fout)
    for (int k = 1; k < N - 1; k++) {
        fin += edge_step(g, 0, k, 1, 0);
        fout -= edge_step(g, N - 1, k, -1, 0) + edge_step(g, k, 0, 0, 1)
              + edge_step(g, k, N - 1, 0, -1);
    }
    *in = fin;
    *out = fout;
}

/* Left-right symmetry of the plate: every row must read the same both ways. */
static double asymmetry(double (*g)[N])
{
    double worst = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N / 2; j++)
            worst = fmax(worst, fabs(g[i][j] - g[i][N - 1 - j]));
    return worst;
}

int main(void)
{
    int cur;
    memset(grid, 0, sizeof grid);
    set_boundary(grid[0]);
    set_boundary(grid[1]);
    int iterations = solve(1e-7, 1000000, &cur);
    double (*g)[N] = grid[cur];
    double centre = g[N / 2][N / 2];
    double asym = asymmetry(g);
    double in, out;
    fluxes(g, &in, &out);
    printf("jacobi %dx%d: %d sweeps, centre %.2f, heat flux in %.1f out %.1f\n",
           N, N, iterations, centre, in, out);
    if (asym > 1e-9 || fabs(centre - HOT / 4) > 0.01 || fabs(in - out) > 1e-3 * in) {
        printf("FAILED: asymmetry %g, centre %g (expected %g), flux in %g out %g\n",
               asym, centre, HOT / 4, in, out);
        return 1;
    }
    printf("ok\n");
    return 0;
}
