/* heat_mpi: 1-D heat diffusion with an absorbing reaction, split over the ranks of an
 * MPI job, each rank's cells updated by an OpenMP team (docs/mpi.md walks through its
 * profile).
 *
 * Computes: STEPS explicit steps of u_t = u_xx - u^3 on a rod of cells, the reaction
 * taken implicitly (each cell's new value solves x + C x^3 = its diffused value, by a
 * fixed number of Newton iterations), from a hump of heat in the rod's middle; the rod's
 * ends are held at 0.
 *
 * Shape: each rank holds a block of the rod with one ghost cell at each end; a step is
 * a halo exchange with the neighbouring ranks (exchange_halo: MPI_Sendrecv, on the
 * initial thread), then a `parallel for` over the block calling a per-cell routine
 * (update_cell, from the loop: S-C).  Every CHECK_EVERY steps the largest change is
 * reduced over the team and over the ranks (largest_change: MPI_Allreduce).
 *
 * The deliberate imbalance: the rod is split as a careless decomposition does, every
 * rank CELLS cells and the remainder of the rod, as many again, to the last rank: it
 * has twice the work of each other rank, which wait for it at every halo exchange.
 * Call counts are exact and fixed per rank: update_cell is called STEPS x CELLS times
 * on ranks 0 .. size-2 and twice that on the last.
 *
 * Checks: the maximum principle (diffusion and absorption never make a cell hotter than
 * the hottest, nor colder than 0).  Prints, on rank 0, only numbers that do not depend
 * on the number of threads (the reductions are max and min, exact).  Exit status 0 if
 * the check passes, 1 otherwise.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 8192              /* per rank; the last rank gets twice as many */
#define STEPS 50
#define CHECK_EVERY 10
#define NEWTON 32               /* iterations per cell: a fixed cost per call */
#define D 0.4                   /* diffusion number (stable below 0.5) */
#define C 0.5                   /* absorption */

/* The cell's new value from its neighbourhood: x + C x^3 = the diffused value. */
static double update_cell(const double *u, long i)
{
    double rhs = u[i] + D * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    double x = rhs;
    for (int k = 0; k < NEWTON; k++)
        x -= (x + C * x * x * x - rhs) / (1.0 + 3.0 * C * x * x);
    return x;
}

/* A hump of heat in the middle of the rod of `total` cells; first is this block's
 * first cell in the rod.  u[0] and u[n + 1] are the ghost cells. */
static void init_cells(double *u, long n, long first, long total)
{
    for (long i = 1; i <= n; i++) {
        double x = (double)(first + i - 1) / (double)(total - 1);
        double s = sin(M_PI * x);
        u[i] = s * s * s * s;
    }
    u[0] = u[n + 1] = 0.0;
}

/* The ghost cells from the neighbours (none past the rod's ends: they stay 0). */
static void exchange_halo(double *u, long n, int rank, int size)
{
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    int right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    MPI_Sendrecv(&u[1], 1, MPI_DOUBLE, left, 0, &u[n + 1], 1, MPI_DOUBLE, right, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[n], 1, MPI_DOUBLE, right, 1, &u[0], 1, MPI_DOUBLE, left, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

static void relax(const double *u, double *v, long n)
{
#pragma omp parallel for schedule(static)
    for (long i = 1; i <= n; i++)
        v[i] = update_cell(u, i);
}

/* The largest change of a cell in the last step, over the whole rod. */
static double largest_change(const double *u, const double *v, long n)
{
    double change = 0.0, all;
#pragma omp parallel for schedule(static) reduction(max:change)
    for (long i = 1; i <= n; i++)
        change = fmax(change, fabs(v[i] - u[i]));
    MPI_Allreduce(&change, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

/* The rod's hottest and coldest cells. */
static void extremes(const double *u, long n, double *hi, double *lo)
{
    double mine[2] = {u[1], -u[1]}, all[2];
    for (long i = 2; i <= n; i++) {
        mine[0] = fmax(mine[0], u[i]);
        mine[1] = fmax(mine[1], -u[i]);
    }
    MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    *hi = all[0];
    *lo = -all[1];
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long total = (long)CELLS * (size + 1);
    long n = rank == size - 1 ? 2L * CELLS : CELLS;
    double *u = malloc((size_t)(n + 2) * sizeof *u), *v = malloc((size_t)(n + 2) * sizeof *v);
    if (!u || !v) {
        fprintf(stderr, "heat_mpi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    init_cells(u, n, (long)rank * CELLS, total);
    v[0] = v[n + 1] = 0.0;
    double start_hi, start_lo;
    extremes(u, n, &start_hi, &start_lo);

    for (int step = 1; step <= STEPS; step++) {
        exchange_halo(u, n, rank, size);
        relax(u, v, n);
        if (step % CHECK_EVERY == 0) {
            double change = largest_change(u, v, n);
            if (rank == 0)
                printf("step %d: largest change %.9f\n", step, change);
        }
        double *t = u;
        u = v;
        v = t;
    }

    double hi, lo;
    extremes(u, n, &hi, &lo);
    int ok = hi <= start_hi && lo >= 0.0;
    if (rank == 0) {
        printf("%d ranks, %ld cells: hottest %.9f (was %.9f), coldest %.9f\n", size, total, hi,
               start_hi, lo);
        if (!ok)
            printf("FAILED: the maximum principle\n");
    }
    free(u);
    free(v);
    MPI_Finalize();
    return ok ? 0 : 1;
}
