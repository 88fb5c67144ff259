/* tests/critpath/cp_cxx.cpp - selecting C++ functions by name (issue 6):
 * the qualified name without parameters (app::Stage::consume, both of its
 * overloads), the symbol-table spelling (_ZN3app7produceIdEEvT_), or a
 * function template's name with its arguments (app::produce<double>, whose
 * demangled name starts with its return type: "void
 * app::produce<double>(double)").
 *
 *   cp_cxx N A B   (2 ranks) N items flow rank 0 -> rank 1: rank 0 runs
 *       app::produce<double>(double) for A ms per item and sends it, rank 1
 *       receives it and runs app::Stage::consume(double) for B ms (and the
 *       overload app::Stage::consume(int) for 1 ms).  With B + 1 > A the
 *       critical path is A + N*(B + 1), ends on rank 1; consume's share is
 *       N*(B + 1), produce's A (the first item).
 *
 * Work sleeps to an absolute deadline, as in cp_progs.c.
 */
#include <mpi.h>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#define NOINSTR __attribute__((no_instrument_function))
#define WORK __attribute__((noinline))

static NOINSTR void work_for(double ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	long long ns = (long long)t.tv_nsec + (long long)(ms * 1e6);
	t.tv_sec += (time_t)(ns / 1000000000);
	t.tv_nsec = (long)(ns % 1000000000);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) != 0)
		;
}

namespace app {
template <typename T> WORK void produce(T ms) { work_for(ms); }

struct Stage {
	WORK static void consume(double ms) { work_for(ms); }
	WORK static void consume(int ms) { work_for(ms); }
};
} // namespace app

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc != 4 || size != 2) {
		if (rank == 0)
			std::fprintf(stderr, "usage: cp_cxx N A B (2 ranks)\n");
		MPI_Finalize();
		return 2;
	}
	int n = std::atoi(argv[1]);
	double a = std::atof(argv[2]), b = std::atof(argv[3]);
	for (int i = 0; i < n; i++) {
		int item = i;
		if (rank == 0) {
			app::produce(a);
			MPI_Send(&item, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
		} else {
			MPI_Recv(&item, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			app::Stage::consume(b);
			app::Stage::consume(1);
		}
	}
	MPI_Finalize();
	if (rank == 0)
		std::printf("done cxx\n");
	return 0;
}
