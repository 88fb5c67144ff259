/* tests/mpi/lines.h - a test program's result lines, printed by rank 0 in
 * rank order (so a run's output does not depend on the ranks' timing and
 * can be compared with a plain run's).
 *   say(fmt, ...)           one line of this rank (at most LINES_MAX)
 *   lines_print(prefix)     collective: rank 0 prints every rank's lines as
 *                           "PREFIX R: line" ("[R] line" when prefix is
 *                           NULL), then "done N ranks"
 */
#ifndef HYPROF_TESTS_MPI_LINES_H
#define HYPROF_TESTS_MPI_LINES_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#define LINE 160
#ifndef LINES_MAX
#define LINES_MAX 64
#endif

static char out[LINES_MAX][LINE];
static int nout;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	if (nout == LINES_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out[nout++], LINE, fmt, ap);
	va_end(ap);
}

static void lines_print(const char *prefix)
{
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	char *all = rank == 0 ? malloc((size_t)size * LINES_MAX * LINE) : NULL;
	int *counts = rank == 0 ? malloc((size_t)size * sizeof(int)) : NULL;
	MPI_Gather(&nout, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Gather(out, LINES_MAX * LINE, MPI_CHAR, all, LINES_MAX * LINE, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (rank == 0) {
		for (int p = 0; p < size; p++)
			for (int i = 0; i < counts[p]; i++) {
				const char *l = all + ((size_t)p * LINES_MAX + i) * LINE;
				if (prefix)
					printf("%s %d: %s\n", prefix, p, l);
				else
					printf("[%d] %s\n", p, l);
			}
		printf("done %d ranks\n", size);
		free(all);
		free(counts);
	}
}

#endif
