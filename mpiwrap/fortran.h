/* mpiwrap/fortran.h - what the generated Fortran entry points need.
 *
 * Open MPI's Fortran bindings (mpif.h, `use mpi`, `use mpi_f08`) call the
 * PMPI_ C functions directly, so C wrappers never see a Fortran program's
 * calls.  hyprof therefore defines the Fortran symbols too (mpi_send_,
 * mpi_send__, mpi_send, MPI_SEND and mpi_send_f08_); each converts its
 * arguments the way Open MPI's own bindings do and runs the same wrapper
 * body as the C entry point (docs/mpi.md, "Fortran").
 *
 * Fortran passes every argument by reference; MPI_Fint is C int (checked).
 * The sentinels MPI_BOTTOM, MPI_IN_PLACE, MPI_STATUS(ES)_IGNORE are the
 * addresses of common blocks, recognised by address as Open MPI does.
 *
 * Runs in the thread that called MPI.  Not signal-safe (may allocate).
 */
#ifndef HYPROF_MPIWRAP_FORTRAN_H
#define HYPROF_MPIWRAP_FORTRAN_H

#include <mpi.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint must be a C int");

#define HP_FORTRAN_ALIAS(fn, name) \
	extern __typeof__(fn) name __attribute__((alias(#fn), visibility("default")))

/* The Fortran sentinels, under every name mangling a compiler may use. */
#define HP_FSENTINEL(n)                                         \
	extern char n __attribute__((weak));                    \
	extern char n##_ __attribute__((weak));                 \
	extern char n##__ __attribute__((weak))
HP_FSENTINEL(mpi_fortran_bottom);
HP_FSENTINEL(mpi_fortran_in_place);
HP_FSENTINEL(mpi_fortran_status_ignore);
HP_FSENTINEL(mpi_fortran_statuses_ignore);
extern char MPI_FORTRAN_BOTTOM __attribute__((weak));
extern char MPI_FORTRAN_IN_PLACE __attribute__((weak));

static inline int hp_fis(const void *p, const void *a, const void *b, const void *c, const void *d)
{
	return p && (p == a || p == b || p == c || p == d);
}

static inline void *hp_fbuf(void *p)
{
	if (hp_fis(p, &mpi_fortran_bottom, &mpi_fortran_bottom_, &mpi_fortran_bottom__,
		   &MPI_FORTRAN_BOTTOM))
		return MPI_BOTTOM;
	if (hp_fis(p, &mpi_fortran_in_place, &mpi_fortran_in_place_, &mpi_fortran_in_place__,
		   &MPI_FORTRAN_IN_PLACE))
		return MPI_IN_PLACE;
	return p;
}

static inline int hp_fstatus_ignored(const MPI_Fint *s)
{
	return s == MPI_F_STATUS_IGNORE ||
	       hp_fis(s, &mpi_fortran_status_ignore, &mpi_fortran_status_ignore_,
		      &mpi_fortran_status_ignore__, NULL);
}

static inline int hp_fstatuses_ignored(const MPI_Fint *s)
{
	return s == MPI_F_STATUSES_IGNORE ||
	       hp_fis(s, &mpi_fortran_statuses_ignore, &mpi_fortran_statuses_ignore_,
		      &mpi_fortran_statuses_ignore__, NULL);
}

/* Peers of a collective over comm: its size, the remote group's for an
 * intercommunicator (the length of Alltoallw's type arrays). */
static inline int hp_fcomm_peers(MPI_Comm comm)
{
	int inter = 0, n = 0;
	if (comm == MPI_COMM_NULL)
		return 0;
	PMPI_Comm_test_inter(comm, &inter);
	if (inter)
		PMPI_Comm_remote_size(comm, &n);
	else
		PMPI_Comm_size(comm, &n);
	return n;
}

/* Neighbours of comm's topology (the length of Neighbor_alltoallw's type
 * arrays): out- or in-degree; 0 without a topology (MPI then fails the
 * call, and no element is read). */
static inline int hp_fcomm_nbrs(MPI_Comm comm, int out)
{
	int topo = MPI_UNDEFINED, n = 0, in = 0, weighted = 0, rank = 0;
	if (comm == MPI_COMM_NULL || PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
		return 0;
	if (topo == MPI_CART && PMPI_Cartdim_get(comm, &n) == MPI_SUCCESS)
		return 2 * n;
	if (topo == MPI_GRAPH && PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS &&
	    PMPI_Graph_neighbors_count(comm, rank, &n) == MPI_SUCCESS)
		return n;
	if (topo == MPI_DIST_GRAPH && PMPI_Dist_graph_neighbors_count(comm, &in, &n, &weighted) == MPI_SUCCESS)
		return out ? n : in;
	return 0;
}

/* A CHARACTER(LEN=*) argument as a C string, leading and trailing blanks
 * dropped as Open MPI's bindings do; on the heap, freed by the caller. */
static inline char *hp_fstring(const char *f, size_t len)
{
	len = (unsigned)len; /* a compiler that passes an int length */
	while (len && *f == ' ') {
		f++;
		len--;
	}
	while (len && f[len - 1] == ' ')
		len--;
	char *c = malloc(len + 1);
	if (c) {
		memcpy(c, f, len);
		c[len] = 0;
	}
	return c;
}

/* Datatype arrays (Alltoallw): on the heap, freed by the caller after the
 * call (MPI keeps no reference to the array, as with Open MPI's bindings). */
static inline MPI_Datatype *hp_ftypes_in(const MPI_Fint *f, int n)
{
	MPI_Datatype *c = malloc((size_t)(n > 0 ? n : 1) * sizeof(*c));
	if (c)
		for (int i = 0; i < n; i++)
			c[i] = MPI_Type_f2c(f[i]);
	return c;
}

/* Request and status arrays: a per-thread buffer for small counts, the
 * heap above.  Each call uses at most one of each. */
#define HP_F_SMALL 64
extern __thread MPI_Request hp_freq_buf[HP_F_SMALL];
extern __thread MPI_Status hp_fst_buf[HP_F_SMALL];

static inline MPI_Request *hp_freqs_in(const MPI_Fint *f, int n)
{
	if (n < 0)
		n = 0;
	MPI_Request *c = n <= HP_F_SMALL ? hp_freq_buf : malloc((size_t)n * sizeof(*c));
	if (!c)
		return NULL;
	for (int i = 0; i < n; i++)
		c[i] = MPI_Request_f2c(f[i]);
	return c;
}

static inline void hp_freqs_out(MPI_Fint *f, MPI_Request *c, int n)
{
	for (int i = 0; i < n; i++)
		f[i] = MPI_Request_c2f(c[i]);
	if (c != hp_freq_buf)
		free(c);
}

static inline MPI_Status *hp_fstatuses_alloc(int n)
{
	if (n <= 0)
		n = 1;
	return n <= HP_F_SMALL ? hp_fst_buf : malloc((size_t)n * sizeof(MPI_Status));
}

/* The statuses as the caller left them (gen_wrappers.py, MPI_Status):
 * MPI leaves MPI_ERROR alone unless it returns MPI_ERR_IN_STATUS. */
static inline MPI_Status *hp_fstatuses_in(const MPI_Fint *f, int n)
{
	MPI_Status *c = hp_fstatuses_alloc(n);
	const int stride = (int)(sizeof(MPI_Status) / sizeof(MPI_Fint));
	if (c)
		for (int i = 0; i < n; i++)
			MPI_Status_f2c(f + (size_t)i * stride, &c[i]);
	return c;
}

static inline void hp_fstatuses_out(MPI_Fint *f, MPI_Status *c, int n)
{
	const int stride = (int)(sizeof(MPI_Status) / sizeof(MPI_Fint));
	for (int i = 0; i < n; i++)
		MPI_Status_c2f(&c[i], f + (size_t)i * stride);
	if (c != hp_fst_buf)
		free(c);
}

#endif
