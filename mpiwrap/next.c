/* mpiwrap/next.c - the next tool's MPI_X, where another PMPI tool is loaded.
 *
 * A PMPI tool (a call counter, a checker) defines MPI_Send and calls
 * PMPI_Send.  hyprof's wrappers come first (LD_PRELOAD puts them ahead of
 * the program's libraries and of the user's own LD_PRELOAD); if they called
 * PMPI_Send, the other tool would never see a call, and its MPI_Finalize,
 * where such tools print what they found, would never run.  So each
 * wrapper calls the MPI_X that follows it in the lookup order: the other
 * tool's, which calls PMPI_X itself, or, when nobody else defines MPI_X,
 * PMPI_X (the MPI library's MPI_X is the same function, or an alias of it,
 * and calling PMPI_X skips nothing).  hyprof's own calls (the agreement,
 * calibration, the merge, the piggyback's exchanges) stay on PMPI_X: the
 * other tool sees only calls the program made.
 */
#include <dlfcn.h>

#include "mpiwrap/mpiwrap.h"

void *hp_mpi_next(const char *name, void *pmpi)
{
	void *f = dlsym(RTLD_NEXT, name);
	Dl_info a, b;
	if (!f || f == pmpi)
		return pmpi;
	/* the MPI library's own MPI_X (MPICH: a weak alias of PMPI_X) */
	if (!dladdr(f, &a) || !dladdr(pmpi, &b) || a.dli_fbase == b.dli_fbase)
		return pmpi;
	return f;
}
