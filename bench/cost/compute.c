/* bench/cost/compute.c - compute-bound: few calls, long floating-point loops
 * (a small n-body step and a dense matrix product).  The probes hardly run;
 * the measurement cost is the sampler's and the start-up's.
 *
 * Usage: compute [SCALE]   (default 100: about 2 s on the reference VM)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NB 512
#define NM 160

static double px[NB], py[NB], pz[NB], vx[NB], vy[NB], vz[NB], mass[NB];
static double A[NM][NM], B[NM][NM], C[NM][NM];

__attribute__((noinline)) static void nbody_step(double dt)
{
	for (int i = 0; i < NB; i++) {
		double ax = 0, ay = 0, az = 0;
		for (int j = 0; j < NB; j++) {
			double dx = px[j] - px[i], dy = py[j] - py[i], dz = pz[j] - pz[i];
			double r2 = dx * dx + dy * dy + dz * dz + 1e-3;
			double inv = mass[j] / (r2 * sqrt(r2));
			ax += dx * inv;
			ay += dy * inv;
			az += dz * inv;
		}
		vx[i] += ax * dt;
		vy[i] += ay * dt;
		vz[i] += az * dt;
	}
	for (int i = 0; i < NB; i++) {
		px[i] += vx[i] * dt;
		py[i] += vy[i] * dt;
		pz[i] += vz[i] * dt;
	}
}

__attribute__((noinline)) static void matmul(void)
{
	for (int i = 0; i < NM; i++)
		for (int j = 0; j < NM; j++) {
			double s = 0;
			for (int k = 0; k < NM; k++)
				s += A[i][k] * B[k][j];
			C[i][j] = s;
		}
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 100;
	for (int i = 0; i < NB; i++) {
		px[i] = sin(i), py[i] = cos(i), pz[i] = sin(2.0 * i);
		mass[i] = 1.0 + (i % 7);
	}
	for (int i = 0; i < NM; i++)
		for (int j = 0; j < NM; j++)
			A[i][j] = (i + j) % 5, B[i][j] = (i * j) % 3;
	double chk = 0;
	for (int s = 0; s < scale; s++) {
		for (int k = 0; k < 8; k++)
			nbody_step(1e-4);
		for (int k = 0; k < 4; k++)
			matmul();
		chk += C[s % NM][7] + px[s % NB];
	}
	printf("compute %d: %.6f\n", scale, chk);
	return 0;
}
