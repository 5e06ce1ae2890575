/* cg: preconditioned conjugate gradients on a sparse 2-D Laplacian in CSR form.
 *
 * Computes: the solution of A x = b, where A is the 5-point Laplacian of an n x n grid
 * with zero Dirichlet boundary (symmetric positive definite, n^2 unknowns, stored in
 * compressed sparse row form) and b = A x_true for a known x_true (a smooth bump plus
 * LCG noise), by conjugate gradients with a line-Jacobi preconditioner (each grid row's
 * tridiagonal block solved exactly by the Thomas algorithm), to a relative residual of
 * 1e-10.
 *
 * Shape: per iteration, a `parallel for` sparse matrix-vector product, a preconditioner
 * whose `parallel for` calls solve_line for each grid row (S-C calls), two dot products
 * whose `parallel for` over fixed chunks calls chunk_dot (S-C calls) and three axpy-like
 * `parallel for` updates; sequential matrix assembly, factorisation and set-up.
 *
 * Checks: the residual recomputed from the final x (not the recurrence) is below 1e-9
 * relative, and x agrees with x_true to 1e-6 relative (max norm, a max-reduction).  The
 * dot products add per-chunk sums in a fixed order, so every number, the iteration
 * count included, is the same for any number of threads.  Exit status 0 if the checks
 * pass, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define GRID 320                /* unknowns per grid row; GRID^2 unknowns in all */
#define TOL 1e-10
#define MAX_ITER 5000
#define CHUNKS 64               /* dot products: fixed chunks, summed in order */

typedef struct {
    int n;                      /* rows */
    int *rowptr, *col;
    double *val;
} csr_t;

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p) {
        fprintf(stderr, "cg: out of memory\n");
        exit(1);
    }
    return p;
}

/* The 5-point Laplacian of a g x g grid, rows in grid order. */
static csr_t build_laplacian(int g)
{
    csr_t a;
    a.n = g * g;
    a.rowptr = xmalloc((size_t)(a.n + 1) * sizeof *a.rowptr);
    a.col = xmalloc((size_t)5 * a.n * sizeof *a.col);
    a.val = xmalloc((size_t)5 * a.n * sizeof *a.val);
    int k = 0;
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++) {
            int r = i * g + j;
            a.rowptr[r] = k;
            if (i > 0) { a.col[k] = r - g; a.val[k++] = -1.0; }
            if (j > 0) { a.col[k] = r - 1; a.val[k++] = -1.0; }
            a.col[k] = r; a.val[k++] = 4.0;
            if (j < g - 1) { a.col[k] = r + 1; a.val[k++] = -1.0; }
            if (i < g - 1) { a.col[k] = r + g; a.val[k++] = -1.0; }
        }
    a.rowptr[a.n] = k;
    return a;
}

static void free_csr(csr_t *a)
{
    free(a->rowptr);
    free(a->col);
    free(a->val);
}

/* y = A x */
static void spmv(const csr_t *a, const double *x, double *y)
{
#pragma omp parallel for schedule(static)
    for (int r = 0; r < a->n; r++) {
        double s = 0;
        for (int k = a->rowptr[r]; k < a->rowptr[r + 1]; k++)
            s += a->val[k] * x[a->col[k]];
        y[r] = s;
    }
}

static double chunk_dot(const double *x, const double *y, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

/* x . y, the same to the last bit for any number of threads. */
static double dot(const double *x, const double *y, int n)
{
    double part[CHUNKS];
#pragma omp parallel for schedule(static)
    for (int c = 0; c < CHUNKS; c++) {
        int lo = (int)((int64_t)n * c / CHUNKS), hi = (int)((int64_t)n * (c + 1) / CHUNKS);
        part[c] = chunk_dot(x + lo, y + lo, hi - lo);
    }
    double s = 0;
    for (int c = 0; c < CHUNKS; c++)
        s += part[c];
    return s;
}

/* y = x + alpha y */
static void xpay(const double *x, double alpha, double *y, int n)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        y[i] = x[i] + alpha * y[i];
}

/* y += alpha x */
static void axpy(double alpha, const double *x, double *y, int n)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++)
        y[i] += alpha * x[i];
}

/* ---- line-Jacobi preconditioner ------------------------------------------------ */

/* Every grid row's block is the same tridiagonal [-1 4 -1] matrix: its Thomas
 * factorisation (modified super-diagonal cp and inverse pivots ip) is computed once. */
static double line_cp[GRID], line_ip[GRID];

static void factor_line(void)
{
    double c = 0;
    for (int j = 0; j < GRID; j++) {
        double pivot = 4.0 + c;         /* 4 - (-1) * cp[j-1] */
        line_ip[j] = 1.0 / pivot;
        line_cp[j] = -1.0 * line_ip[j];
        c = line_cp[j];
    }
}

/* z = T^-1 r on one grid row of GRID unknowns. */
static void solve_line(const double *r, double *z)
{
    double prev = 0;
    for (int j = 0; j < GRID; j++) {    /* forward: z' = (r + z'[j-1]) / pivot */
        prev = (r[j] + prev) * line_ip[j];
        z[j] = prev;
    }
    for (int j = GRID - 2; j >= 0; j--) /* backward */
        z[j] -= line_cp[j] * z[j + 1];
}

static void precondition(const double *r, double *z)
{
#pragma omp parallel for schedule(static)
    for (int line = 0; line < GRID; line++)
        solve_line(r + (size_t)line * GRID, z + (size_t)line * GRID);
}

/* ---- the solver ----------------------------------------------------------------- */

/* Solves A x = b from x = 0; returns the number of iterations, or -1. */
static int pcg(const csr_t *a, const double *b, double *x, double tol)
{
    int n = a->n;
    double *r = xmalloc((size_t)n * sizeof *r), *z = xmalloc((size_t)n * sizeof *z);
    double *p = xmalloc((size_t)n * sizeof *p), *q = xmalloc((size_t)n * sizeof *q);
    for (int i = 0; i < n; i++) {
        x[i] = 0;
        r[i] = b[i];
    }
    double bnorm = sqrt(dot(b, b, n));
    precondition(r, z);
    for (int i = 0; i < n; i++)
        p[i] = z[i];
    double rz = dot(r, z, n);
    int it, result = -1;
    for (it = 1; it <= MAX_ITER; it++) {
        spmv(a, p, q);
        double alpha = rz / dot(p, q, n);
        axpy(alpha, p, x, n);
        axpy(-alpha, q, r, n);
        if (sqrt(dot(r, r, n)) < tol * bnorm) {
            result = it;
            break;
        }
        precondition(r, z);
        double rz_new = dot(r, z, n);
        xpay(z, rz_new / rz, p, n);
        rz = rz_new;
    }
    free(r);
    free(z);
    free(p);
    free(q);
    return result;
}

/* ---- set-up and checks ---------------------------------------------------------- */

static void make_solution(double *x, int g, uint64_t seed)
{
    uint64_t s = seed;
    for (int i = 0; i < g; i++)
        for (int j = 0; j < g; j++) {
            s = s * 6364136223846793005ULL + 1442695040888963407ULL;
            double noise = (double)(s >> 11) / 9007199254740992.0 - 0.5;
            double u = (i + 1.0) / (g + 1.0), v = (j + 1.0) / (g + 1.0);
            x[i * g + j] = 16.0 * u * (1 - u) * v * (1 - v) + 0.1 * noise;
        }
}

/* max |x - y| / max |y|, with max-reductions. */
static double relative_error(const double *x, const double *y, int n)
{
    double diff = 0, size = 0;
#pragma omp parallel for schedule(static) reduction(max:diff, size)
    for (int i = 0; i < n; i++) {
        diff = fmax(diff, fabs(x[i] - y[i]));
        size = fmax(size, fabs(y[i]));
    }
    return diff / size;
}

int main(void)
{
    csr_t a = build_laplacian(GRID);
    int n = a.n;
    double *x_true = xmalloc((size_t)n * sizeof *x_true), *b = xmalloc((size_t)n * sizeof *b);
    double *x = xmalloc((size_t)n * sizeof *x), *ax = xmalloc((size_t)n * sizeof *ax);
    make_solution(x_true, GRID, 7);
    spmv(&a, x_true, b);
    factor_line();
    int iterations = pcg(&a, b, x, TOL);
    spmv(&a, x, ax);
    double residual = relative_error(ax, b, n);
    double error = relative_error(x, x_true, n);
    printf("cg: %d unknowns, %d nonzeros: %d iterations, residual %.3e, error %.3e\n",
           n, a.rowptr[n], iterations, residual, error);
    int ok = iterations > 0 && residual < 1e-9 && error < 1e-6;
    if (!ok)
        printf("FAILED: %s\n", iterations < 0 ? "no convergence" : "inaccurate solution");
    else
        printf("ok\n");
    free(x_true);
    free(b);
    free(x);
    free(ax);
    free_csr(&a);
    return ok ? 0 : 1;
}
