/* stencil: Jacobi iteration for the Poisson equation on the unit square.
 *
 * Computes: -Laplace(u) = f on an N x N grid with u = 0 on the boundary, where f is
 * chosen so that the discrete solution is u*(x, y) = x (1 - x) y (1 - y) exactly (the
 * five-point Laplacian is exact on a product of quadratics), by SWEEPS Jacobi sweeps
 * from u = 0.
 *
 * Shape: per sweep, one `parallel for` over the rows calling the tiny point (the
 * five-point update of one grid point, a routine gcc inlines in a plain build) for each
 * point of the row, with a max-reduction of the change; the set-up and the error are
 * sequential.  Hundreds of millions of calls of point, all S-C calls of sweep.
 *
 * Checks: the largest change per sweep never grows, and the error against u* falls at
 * every checkpoint.  Each point's new value depends only on the previous sweep, and the
 * max-reduction is exact, so every printed number is independent of the thread count.
 * Exit status 0 if the checks pass, 1 otherwise.
 *
 * N and SWEEPS can be set at compile time (-DN=... -DSWEEPS=...) for a smaller run.
 */
#include <math.h>
#include <stdio.h>

#ifndef N
#define N 1536
#endif
#ifndef SWEEPS
#define SWEEPS 200
#endif
#define CHECKPOINTS 4

static double grid[2][N][N];
static double rhs[N][N];        /* h^2 f */

static double exact(int i, int j)
{
    double x = (double)i / (N - 1), y = (double)j / (N - 1);
    return x * (1 - x) * y * (1 - y);
}

static void setup(void)
{
    double h = 1.0 / (N - 1);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            double x = i * h, y = j * h;
            rhs[i][j] = h * h * 2.0 * (x * (1 - x) + y * (1 - y));
            grid[0][i][j] = grid[1][i][j] = 0.0;
        }
}

/* The Jacobi update of the interior point (i, j). */
static double point(double (*u)[N], int i, int j)
{
    return 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] + rhs[i][j]);
}

/* One sweep from src into dst; returns the largest change. */
static double sweep(double (*src)[N], double (*dst)[N])
{
    double change = 0.0;
    #pragma omp parallel for reduction(max: change) schedule(static)
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++) {
            double v = point(src, i, j);
            double d = fabs(v - src[i][j]);
            dst[i][j] = v;
            if (d > change)
                change = d;
        }
    return change;
}

static double max_error(double (*u)[N])
{
    double e = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            e = fmax(e, fabs(u[i][j] - exact(i, j)));
    return e;
}

int main(void)
{
    setup();
    int failed = 0;
    double last_change = INFINITY, last_error = max_error(grid[0]);
    printf("error %.9e at the start\n", last_error);
    for (int s = 1; s <= SWEEPS; s++) {
        double change = sweep(grid[(s - 1) % 2], grid[s % 2]);
        if (change > last_change) {
            printf("FAILED: sweep %d changed %g, more than the sweep before (%g)\n", s, change,
                   last_change);
            failed = 1;
        }
        last_change = change;
        if (s % (SWEEPS / CHECKPOINTS) == 0) {
            double e = max_error(grid[s % 2]);
            printf("sweep %3d: largest change %.9e, error %.9e\n", s, change, e);
            if (!(e < last_error)) {
                printf("FAILED: the error did not fall\n");
                failed = 1;
            }
            last_error = e;
        }
    }
    double sum = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            sum += grid[SWEEPS % 2][i][j];
    printf("checksum %.12e\n", sum);
    if (failed)
        return 1;
    printf("ok\n");
    return 0;
}
