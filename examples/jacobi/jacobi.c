/* jacobi: 2-D heat diffusion on a square plate by Jacobi iteration.
 *
 * The edges are held at fixed temperatures; the solver iterates until the largest
 * change in a sweep falls below a tolerance.  Each sweep is a parallel loop with a
 * max-reduction; the residual check and boundary set-up are sequential.  The program
 * checks its answer (left-right symmetry, and the centre of a square plate with one
 * hot edge settling at a quarter of that edge's temperature) and exits non-zero if it
 * is wrong.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 66

static double grid[2][N][N];

static void set_boundary(double (*g)[N])
{
    for (int i = 0; i < N; i++) {
        g[N - 1][i] = 0.0;
        g[i][0] = 0.0;
        g[i][N - 1] = 0.0;
    }
    for (int j = 1; j < N - 1; j++)
        g[0][j] = 100.0;        /* hot top edge, corners excluded to keep symmetry */
}

static double relax_point(double (*src)[N], int i, int j)
{
    return 0.25 * (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]);
}

/* One sweep; returns the largest change. */
static double sweep(double (*src)[N], double (*dst)[N])
{
    double change = 0.0;
#pragma omp parallel for schedule(static) reduction(max:change)
    for (int i = 1; i < N - 1; i++) {
        for (int j = 1; j < N - 1; j++) {
            dst[i][j] = relax_point(src, i, j);
            double d = fabs(dst[i][j] - src[i][j]);
            if (d > change)
                change = d;
        }
    }
    return change;
}

static int solve(double tolerance, int max_iter)
{
    int it, cur = 0;
    for (it = 0; it < max_iter; it++) {
        if (sweep(grid[cur], grid[1 - cur]) < tolerance)
            break;
        cur = 1 - cur;
    }
    return it;
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
    memset(grid, 0, sizeof grid);
    set_boundary(grid[0]);
    set_boundary(grid[1]);
    int iterations = solve(1e-7, 100000);
    double centre = grid[0][N / 2][N / 2];
    double asym = asymmetry(grid[0]);
    printf("iterations %d, centre %.2f\n", iterations, centre);
    if (asym > 1e-9 || fabs(centre - 25.0) > 1.0) {
        printf("FAILED: asymmetry %g, centre %g\n", asym, centre);
        return 1;
    }
    printf("ok\n");
    return 0;
}
