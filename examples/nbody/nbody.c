/* nbody: direct-summation gravitational N-body integration with velocity Verlet.
 *
 * Computes: the motion of N equal-mass bodies, initially spread uniformly in a unit ball
 * (from a seeded LCG) with small random velocities and no net momentum, under softened
 * Newtonian gravity (G = 1, total mass 1) for STEPS time steps of velocity Verlet
 * (kick-drift-kick).
 *
 * Shape: each step has three `parallel for` loops: the half-step kicks and the drift
 * (plain loops), and the O(N^2) force computation, whose loop calls body_accel for each
 * body (an S-C call of compute_forces), which calls tile_accel for each tile of the
 * other bodies (C-S calls: body_accel is entered concurrently).  Energies are
 * `parallel for` loops with sum-reductions; set-up and the momentum check are
 * sequential.
 *
 * Checks: total energy is conserved to a relative 1e-4 over the run, total momentum
 * stays zero, and the system stays bound.  Forces are summed in a fixed order per body,
 * so the trajectory does not depend on the number of threads; the energies come from
 * parallel reductions, whose last bits may, so they are printed rounded.  Exit status 0
 * if the checks pass, 1 otherwise.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 2048
#define STEPS 60
#define DT 1e-3
#define EPS2 (0.05 * 0.05)      /* softening length squared */
#define TILE 512

typedef struct {
    double x[N], y[N], z[N];
    double vx[N], vy[N], vz[N];
    double ax[N], ay[N], az[N];
    double m[N];
} system_t;

static system_t sys_;

static uint64_t lcg_state;

/* A uniform deviate in [-1, 1). */
static double uniform(void)
{
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

static void initialise(system_t *s, uint64_t seed)
{
    lcg_state = seed;
    double px = 0, py = 0, pz = 0;
    for (int i = 0; i < N; i++) {
        double x, y, z;
        do {                    /* rejection sampling of the unit ball */
            x = uniform();
            y = uniform();
            z = uniform();
        } while (x * x + y * y + z * z > 1.0);
        s->x[i] = x;
        s->y[i] = y;
        s->z[i] = z;
        s->vx[i] = 0.3 * uniform();
        s->vy[i] = 0.3 * uniform();
        s->vz[i] = 0.3 * uniform();
        s->m[i] = 1.0 / N;
        px += s->m[i] * s->vx[i];
        py += s->m[i] * s->vy[i];
        pz += s->m[i] * s->vz[i];
    }
    for (int i = 0; i < N; i++) {   /* remove the net momentum (total mass is 1) */
        s->vx[i] -= px;
        s->vy[i] -= py;
        s->vz[i] -= pz;
    }
}

/* Adds to acc the acceleration of body i due to bodies j0..j1-1. */
static void tile_accel(const system_t *s, int i, int j0, int j1, double acc[3])
{
    double xi = s->x[i], yi = s->y[i], zi = s->z[i];
    double ax = 0, ay = 0, az = 0;
    for (int j = j0; j < j1; j++) {
        double dx = s->x[j] - xi, dy = s->y[j] - yi, dz = s->z[j] - zi;
        double r2 = dx * dx + dy * dy + dz * dz + EPS2;
        double inv = 1.0 / sqrt(r2);
        double f = s->m[j] * inv * inv * inv;   /* the j == i term is zero: dx = 0 */
        ax += f * dx;
        ay += f * dy;
        az += f * dz;
    }
    acc[0] += ax;
    acc[1] += ay;
    acc[2] += az;
}

static void body_accel(system_t *s, int i)
{
    double acc[3] = { 0, 0, 0 };
    for (int j0 = 0; j0 < N; j0 += TILE)
        tile_accel(s, i, j0, j0 + TILE < N ? j0 + TILE : N, acc);
    s->ax[i] = acc[0];
    s->ay[i] = acc[1];
    s->az[i] = acc[2];
}

static void compute_forces(system_t *s)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++)
        body_accel(s, i);
}

static void kick(system_t *s, double dt)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        s->vx[i] += dt * s->ax[i];
        s->vy[i] += dt * s->ay[i];
        s->vz[i] += dt * s->az[i];
    }
}

static void drift(system_t *s, double dt)
{
#pragma omp parallel for schedule(static)
    for (int i = 0; i < N; i++) {
        s->x[i] += dt * s->vx[i];
        s->y[i] += dt * s->vy[i];
        s->z[i] += dt * s->vz[i];
    }
}

static void step(system_t *s, double dt)
{
    kick(s, dt / 2);
    drift(s, dt);
    compute_forces(s);
    kick(s, dt / 2);
}

static double kinetic_energy(const system_t *s)
{
    double k = 0;
#pragma omp parallel for schedule(static) reduction(+:k)
    for (int i = 0; i < N; i++)
        k += 0.5 * s->m[i] * (s->vx[i] * s->vx[i] + s->vy[i] * s->vy[i] + s->vz[i] * s->vz[i]);
    return k;
}

/* The potential energy of the pairs (i, j) with j > i. */
static double body_potential(const system_t *s, int i)
{
    double u = 0;
    for (int j = i + 1; j < N; j++) {
        double dx = s->x[j] - s->x[i], dy = s->y[j] - s->y[i], dz = s->z[j] - s->z[i];
        u -= s->m[i] * s->m[j] / sqrt(dx * dx + dy * dy + dz * dz + EPS2);
    }
    return u;
}

static double potential_energy(const system_t *s)
{
    double u = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+:u)
    for (int i = 0; i < N; i++)
        u += body_potential(s, i);
    return u;
}

static double momentum(const system_t *s)
{
    double px = 0, py = 0, pz = 0;
    for (int i = 0; i < N; i++) {
        px += s->m[i] * s->vx[i];
        py += s->m[i] * s->vy[i];
        pz += s->m[i] * s->vz[i];
    }
    return sqrt(px * px + py * py + pz * pz);
}

int main(void)
{
    system_t *s = &sys_;
    initialise(s, 42);
    compute_forces(s);
    double k0 = kinetic_energy(s), u0 = potential_energy(s), e0 = k0 + u0;
    for (int t = 0; t < STEPS; t++)
        step(s, DT);
    double k1 = kinetic_energy(s), u1 = potential_energy(s), e1 = k1 + u1;
    double drift_rel = fabs((e1 - e0) / e0);
    double p = momentum(s);
    printf("nbody: %d bodies, %d steps: energy %.5f -> %.5f (kinetic %.4f -> %.4f)\n",
           N, STEPS, e0, e1, k0, k1);
    if (!(drift_rel < 1e-4) || !(p < 1e-12) || !(e1 < 0)) {
        printf("FAILED: relative energy drift %g, momentum %g, energy %g\n",
               drift_rel, p, e1);
        return 1;
    }
    printf("ok\n");
    return 0;
}
