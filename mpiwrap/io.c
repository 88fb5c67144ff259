/* mpiwrap/io.c - MPI-IO: time and bytes per call site.
 *
 * A file access moves no message, so nothing carries a piggyback and
 * nothing is compensated: each call is timed and counted per call site
 * (MPI time by call site shows where a program reads and writes, and how
 * long it takes), with the bytes it moved: for a blocking read or write
 * what its status says was transferred (MPI_Get_count in the call's
 * datatype; the bytes asked for when the status cannot say), for a
 * non-blocking one the bytes asked for when it is started.  Collective
 * accesses (_all, _ordered) and the collective file calls (open, close,
 * set_view, sync) are timed the same way; their time is the call's, not
 * waiting, since it includes the I/O itself.
 *
 * Runs in the thread that called MPI.  Not signal-safe.
 */
#include "mpiwrap/classes.h"
#include "mpiwrap/mpiwrap.h"

/* A blocking access returned rc with status st. */
static int io_done(struct hp_call *c, int rc, int count, MPI_Datatype type, MPI_Status *st)
{
	hp_call_t2(c);
	if (rc != MPI_SUCCESS)
		return rc;
	int n = MPI_UNDEFINED;
	if (PMPI_Get_count(st, type, &n) == MPI_SUCCESS && n != MPI_UNDEFINED && n >= 0)
		c->bytes = hp_type_bytes(c->mt, n, type);
	else
		c->bytes = hp_type_bytes(c->mt, count, type);
	return rc;
}

/* A non-blocking access was started (rc): the bytes asked for. */
static int io_started(struct hp_call *c, int rc, int count, MPI_Datatype type)
{
	hp_call_t2(c);
	c->bytes = rc == MPI_SUCCESS ? hp_type_bytes(c->mt, count, type) : 0;
	return rc;
}

/* Read, Read_all, Read_shared, Read_ordered */
int hp_w_io_read(struct hp_call *c, __typeof__(&PMPI_File_read) pmpi, MPI_File fh, void *buf, int count,
		 MPI_Datatype datatype, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	return io_done(c, pmpi(fh, buf, count, datatype, st), count, datatype, st);
}

/* Write, Write_all, Write_shared, Write_ordered */
int hp_w_io_write(struct hp_call *c, __typeof__(&PMPI_File_write) pmpi, MPI_File fh, const void *buf, int count,
		  MPI_Datatype datatype, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	return io_done(c, pmpi(fh, buf, count, datatype, st), count, datatype, st);
}

/* Read_at, Read_at_all */
int hp_w_io_read_at(struct hp_call *c, __typeof__(&PMPI_File_read_at) pmpi, MPI_File fh, MPI_Offset offset,
		    void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	return io_done(c, pmpi(fh, offset, buf, count, datatype, st), count, datatype, st);
}

/* Write_at, Write_at_all */
int hp_w_io_write_at(struct hp_call *c, __typeof__(&PMPI_File_write_at) pmpi, MPI_File fh, MPI_Offset offset,
		     const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
	MPI_Status lst;
	MPI_Status *st = status == MPI_STATUS_IGNORE ? &lst : status;
	return io_done(c, pmpi(fh, offset, buf, count, datatype, st), count, datatype, st);
}

/* Iread, Iread_all, Iread_shared */
int hp_w_io_iread(struct hp_call *c, __typeof__(&PMPI_File_iread) pmpi, MPI_File fh, void *buf, int count,
		  MPI_Datatype datatype, MPI_Request *request)
{
	return io_started(c, pmpi(fh, buf, count, datatype, request), count, datatype);
}

/* Iwrite, Iwrite_all, Iwrite_shared */
int hp_w_io_iwrite(struct hp_call *c, __typeof__(&PMPI_File_iwrite) pmpi, MPI_File fh, const void *buf, int count,
		   MPI_Datatype datatype, MPI_Request *request)
{
	return io_started(c, pmpi(fh, buf, count, datatype, request), count, datatype);
}

/* Iread_at, Iread_at_all */
int hp_w_io_iread_at(struct hp_call *c, __typeof__(&PMPI_File_iread_at) pmpi, MPI_File fh, MPI_Offset offset,
		     void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
	return io_started(c, pmpi(fh, offset, buf, count, datatype, request), count, datatype);
}

/* Iwrite_at, Iwrite_at_all */
int hp_w_io_iwrite_at(struct hp_call *c, __typeof__(&PMPI_File_iwrite_at) pmpi, MPI_File fh, MPI_Offset offset,
		      const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
	return io_started(c, pmpi(fh, offset, buf, count, datatype, request), count, datatype);
}
