/* md: molecular dynamics of a Lennard-Jones fluid in a periodic box.
 *
 * Computes: ATOMS atoms on a jittered cubic lattice in a periodic box (reduced units,
 * density 0.8), moved STEPS steps of velocity Verlet under the Lennard-Jones potential
 * cut at 2.5 sigma and shifted to zero there; the kinetic, potential and total energy
 * at the start and at the end.
 *
 * Shape: the forces are a `parallel for` over the atoms, each atom looping over all
 * others and calling the non-static dist (the minimum-image separation) for every pair
 * and pair_force (the Lennard-Jones force and energy) for every pair within the cut-off:
 * millions of calls per step of routines of a few tens of instructions, which gcc
 * inlines in a plain build, as in the MD codes cprof was measured on.  Kick and drift
 * are parallel loops without calls.
 *
 * Checks: the total energy drifts by less than 1% of the kinetic energy, and the total
 * momentum (zero at the start) stays below 1e-9 per atom.  Every atom's force is summed
 * over the others in index order by one thread and the energies are summed in order
 * afterwards, so every printed number is independent of the thread count.  Exit status
 * 0 if the checks pass, 1 otherwise.
 *
 * STEPS can be set at compile time (-DSTEPS=...) for a smaller run.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#define SIDE 11                 /* atoms per side of the lattice */
#define ATOMS (SIDE * SIDE * SIDE)
#ifndef STEPS
#define STEPS 24
#endif
#define DT 0.004
#define CUTOFF 2.5
#define DENSITY 0.8

static double pos[ATOMS][3], vel[ATOMS][3], force[ATOMS][3], energy[ATOMS];
static double box;

/* The separation a - b under the minimum-image convention; returns its square. */
double dist(const double *a, const double *b, double d[3])
{
    double r2 = 0.0;
    for (int k = 0; k < 3; k++) {
        double x = a[k] - b[k];
        if (x > 0.5 * box)
            x -= box;
        else if (x < -0.5 * box)
            x += box;
        d[k] = x;
        r2 += x * x;
    }
    return r2;
}

/* The Lennard-Jones pair at squared distance r2 (< CUTOFF^2): returns the force's factor
 * (the force on a is factor * d), adds the shifted pair energy to *e. */
double pair_force(double r2, double *e)
{
    static const double shift = 4.0 * (1.0 / 244140.625 - 1.0 / 244.140625); /* at 2.5 */
    double s2 = 1.0 / r2, s6 = s2 * s2 * s2;
    *e += 4.0 * s6 * (s6 - 1.0) - shift;
    return 24.0 * s6 * (2.0 * s6 - 1.0) * s2;
}

static void compute_forces(void)
{
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < ATOMS; i++) {
        double f[3] = { 0, 0, 0 }, e = 0.0;
        for (int j = 0; j < ATOMS; j++) {
            if (j == i)
                continue;
            double d[3];
            double r2 = dist(pos[i], pos[j], d);
            if (r2 < CUTOFF * CUTOFF) {
                double s = pair_force(r2, &e);
                for (int k = 0; k < 3; k++)
                    f[k] += s * d[k];
            }
        }
        for (int k = 0; k < 3; k++)
            force[i][k] = f[k];
        energy[i] = 0.5 * e;     /* each pair is seen from both atoms */
    }
}

static void kick(double h)
{
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < ATOMS; i++)
        for (int k = 0; k < 3; k++)
            vel[i][k] += h * force[i][k];
}

static void drift(double h)
{
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < ATOMS; i++)
        for (int k = 0; k < 3; k++) {
            pos[i][k] += h * vel[i][k];
            if (pos[i][k] >= box)       /* back into the box */
                pos[i][k] -= box;
            else if (pos[i][k] < 0.0)
                pos[i][k] += box;
        }
}

static uint64_t lcg = 12345;

static double uniform(void)
{
    lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg >> 11) * 0x1.0p-53;
}

static void setup(void)
{
    box = cbrt(ATOMS / DENSITY);
    double a = box / SIDE, mean[3] = { 0, 0, 0 };
    int n = 0;
    for (int x = 0; x < SIDE; x++)
        for (int y = 0; y < SIDE; y++)
            for (int z = 0; z < SIDE; z++, n++) {
                int c[3] = { x, y, z };
                for (int k = 0; k < 3; k++) {
                    pos[n][k] = (c[k] + 0.5 + 0.1 * (uniform() - 0.5)) * a;
                    vel[n][k] = uniform() - 0.5;
                    mean[k] += vel[n][k] / ATOMS;
                }
            }
    for (int i = 0; i < ATOMS; i++)
        for (int k = 0; k < 3; k++)
            vel[i][k] -= mean[k];
}

static void energies(double *kinetic, double *potential, double *momentum)
{
    double p[3] = { 0, 0, 0 };
    *kinetic = *potential = 0.0;
    for (int i = 0; i < ATOMS; i++) {
        for (int k = 0; k < 3; k++) {
            *kinetic += 0.5 * vel[i][k] * vel[i][k];
            p[k] += vel[i][k];
        }
        *potential += energy[i];
    }
    *momentum = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
}

int main(void)
{
    setup();
    compute_forces();
    double k0, u0, p0, k1, u1, p1;
    energies(&k0, &u0, &p0);
    for (int s = 0; s < STEPS; s++) {
        kick(0.5 * DT);
        drift(DT);
        compute_forces();
        kick(0.5 * DT);
    }
    energies(&k1, &u1, &p1);
    printf("%d atoms, %d steps\n", ATOMS, STEPS);
    printf("start: kinetic %.9e potential %.9e total %.9e\n", k0, u0, k0 + u0);
    printf("end:   kinetic %.9e potential %.9e total %.9e\n", k1, u1, k1 + u1);
    int failed = 0;
    if (!(fabs(k1 + u1 - (k0 + u0)) < 0.01 * k0)) {
        printf("FAILED: the total energy drifted by %g\n", k1 + u1 - (k0 + u0));
        failed = 1;
    }
    if (!(p1 < 1e-9 * ATOMS)) {
        printf("FAILED: the total momentum is %g\n", p1);
        failed = 1;
    }
    if (failed)
        return 1;
    printf("ok\n");
    return 0;
}
