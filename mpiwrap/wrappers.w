# mpiwrap/wrappers.w - the one template of hyprof's PMPI wrappers.
#
# gen_wrappers.py expands it at build time into wrappers.c (every C entry
# point MPI_X and its Fortran entry points mpi_x, mpi_x_, mpi_x__, MPI_X,
# mpi_x_f08_), fn.h (the function ids and names) and classes.h (the
# prototypes of the class functions in p2p.c, complete.c, coll.c, comm.c,
# init.c).  The generated files are build outputs, never committed.
#
# Each wrapped function is one line:
#     %fn CLASS [nofortran] [if=MACRO] PROTOTYPE
# if=MACRO: only where the MPI has the function (the build defines MACRO,
# mpiwrap/CMakeLists.txt; needs nofortran).
# The prototype is the C one of mpi.h; comments after a parameter tell the
# Fortran side what the parameter is when its C type alone does not:
#     /*inout*/        MPI_Request * read and written (default: written)
#     /*logical*/      int * that Fortran sees as LOGICAL
#     /*index*/        int * index that Fortran counts from 1
#     /*indices:N*/    int[] of N indices counted from 1 in Fortran
#     /*n:N*/          MPI_Request[] or MPI_Status[] of N elements
#     /*drop*/         not passed from Fortran (argc, argv): NULL
#     /*detach*/       MPI_Buffer_detach's address out-parameter
# N is a C expression over the Fortran parameters (pointers), e.g. *count.
#
# Each class is a body between %class NAME and %end.  A plain class body
# runs inside the common envelope:
#     struct hp_call c;
#     if (!hp_call_enter(&c, ID, ra))        guard: not ours, or nested
#         return PMPI_X(args);
#     int rc;
#     <body>                                 time, call PMPI, piggyback, rule
#     hp_call_leave(&c);                     record, charge our own cost
#     return rc;
# A class marked `raw` is the whole body (MPI_Init, MPI_Finalize).
# Placeholders: {{pmpi}} the PMPI function, {{args}} the arguments,
# {{id}} the function id, {{name}} the MPI name; {{pmpi_int}} in a
# large-count function (MPI_X_c) is the PMPI function of its int-count twin
# (PMPI_X), and its class's prototype takes that one; {{twin}} is the class
# function of that twin (hp_w_<its class>).

# ---- life cycle ------------------------------------------------------------
%class init raw
	return hp_w_init(ra, {{pmpi}}, {{args}});
%end
%class init_thread raw
	return hp_w_init_thread(ra, {{pmpi}}, {{args}});
%end
%class finalize raw
	return hp_w_finalize(ra, {{pmpi}});
%end
%class abort raw
	return hp_w_abort(ra, {{pmpi}}, {{args}});
%end

%fn init         int MPI_Init(int *argc /*drop*/, char ***argv /*drop*/)
%fn init_thread  int MPI_Init_thread(int *argc /*drop*/, char ***argv /*drop*/, int required, int *provided)
%fn finalize     int MPI_Finalize(void)
%fn abort        int MPI_Abort(MPI_Comm comm, int errorcode)
# MPI 4's Sessions: the wrappers start at MPI_Init only; a program of the
# Sessions model alone is told it is not profiled (init.c)
%class session_finalize raw
	return hp_w_session_finalize(ra, {{pmpi}}, {{args}});
%end
%fn session_finalize nofortran if=HP_HAVE_MPI_SESSIONS int MPI_Session_finalize(MPI_Session *session)

# ---- point to point ----------------------------------------------------------
%class send
	rc = hp_w_send(&c, {{pmpi}}, {{args}});
%end
%class recv
	rc = hp_w_recv(&c, {{pmpi}}, {{args}});
%end
%class isend
	rc = hp_w_isend(&c, {{pmpi}}, {{args}});
%end
%class irecv
	rc = hp_w_irecv(&c, {{pmpi}}, {{args}});
%end
%class sendrecv
	rc = hp_w_sendrecv(&c, {{pmpi}}, {{args}});
%end
%class sendrecv_replace
	rc = hp_w_sendrecv_replace(&c, {{pmpi}}, {{args}});
%end
%class probe
	rc = hp_w_probe(&c, {{pmpi}}, {{args}});
%end
%class iprobe
	rc = hp_w_iprobe(&c, {{pmpi}}, {{args}});
%end
%class mprobe
	rc = hp_w_mprobe(&c, {{pmpi}}, {{args}});
%end
%class improbe
	rc = hp_w_improbe(&c, {{pmpi}}, {{args}});
%end
%class mrecv
	rc = hp_w_mrecv(&c, {{pmpi}}, {{args}});
%end
%class imrecv
	rc = hp_w_imrecv(&c, {{pmpi}}, {{args}});
%end
%class psend
	rc = hp_w_psend(&c, {{pmpi}}, {{args}});
%end
%class precv
	rc = hp_w_precv(&c, {{pmpi}}, {{args}});
%end
%class start
	rc = hp_w_start(&c, {{pmpi}}, {{args}});
%end
%class startall
	rc = hp_w_startall(&c, {{pmpi}}, {{args}});
%end
%class buffer_attach
	rc = hp_w_buffer_attach(&c, {{pmpi}}, {{args}});
%end
%class buffer_detach
	rc = hp_w_buffer_detach(&c, {{pmpi}}, {{args}});
%end

%fn send     int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
%fn send     int MPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
%fn send     int MPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
%fn send     int MPI_Rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
%fn recv     int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
%fn isend    int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn isend    int MPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn isend    int MPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn isend    int MPI_Irsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn irecv    int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
%fn sendrecv int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
%fn sendrecv_replace int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
%fn probe    int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
%fn iprobe   int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag /*logical*/, MPI_Status *status)
%fn mprobe   int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
%fn improbe  int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag /*logical*/, MPI_Message *message, MPI_Status *status)
%fn mrecv    int MPI_Mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message /*inout*/, MPI_Status *status)
%fn imrecv   int MPI_Imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message /*inout*/, MPI_Request *request)
%fn psend    int MPI_Send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn psend    int MPI_Ssend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn psend    int MPI_Bsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn psend    int MPI_Rsend_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn precv    int MPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
%fn start    int MPI_Start(MPI_Request *request /*inout*/)
%fn startall int MPI_Startall(int count, MPI_Request array_of_requests[] /*n:*count*/)
%fn buffer_attach int MPI_Buffer_attach(void *buffer, int size)
%fn buffer_detach int MPI_Buffer_detach(void *buffer_addr /*detach*/, int *size)

# MPI-4, where the MPI has it (MPICH 4; Open MPI 4.1 has none of these,
# Open MPI 5 Isendrecv and partitioned, whose Fortran bindings call PMPI_:
# the Isendrecv ones get Fortran entry points; MPI_Count has no Fortran
# conversion here, so the others are C only).
# Isendrecv(_replace): one request, each half with its piggyback (p2p.c).
# Partitioned: no piggyback on either side (p2p.c says why).  Large counts:
# through the int-count classes (bigcount.c).  Without these wrappers a
# message would bypass the piggyback on one side only.
%class isendrecv
	rc = hp_w_isendrecv(&c, {{pmpi}}, {{args}});
%end
%class isendrecv_replace
	rc = hp_w_isendrecv_replace(&c, {{pmpi}}, {{args}});
%end
%class psend_part
	rc = hp_w_psend_part(&c, {{pmpi}}, {{args}});
%end
%class precv_part
	rc = hp_w_precv_part(&c, {{pmpi}}, {{args}});
%end
%class send_c
	rc = hp_w_send_c(&c, {{pmpi_int}}, {{args}});
%end
%class recv_c
	rc = hp_w_recv_c(&c, {{pmpi_int}}, {{args}});
%end
%class isend_c
	rc = hp_w_isend_c(&c, {{pmpi_int}}, {{args}});
%end
%class irecv_c
	rc = hp_w_irecv_c(&c, {{pmpi_int}}, {{args}});
%end
%class sendrecv_c
	rc = hp_w_sendrecv_c(&c, {{pmpi_int}}, {{args}});
%end
%class sendrecv_replace_c
	rc = hp_w_sendrecv_replace_c(&c, {{pmpi_int}}, {{args}});
%end
%class mrecv_c
	rc = hp_w_mrecv_c(&c, {{pmpi_int}}, {{args}});
%end
%class imrecv_c
	rc = hp_w_imrecv_c(&c, {{pmpi_int}}, {{args}});
%end
%class psend_c
	rc = hp_w_psend_c(&c, {{pmpi_int}}, {{args}});
%end
%class precv_c
	rc = hp_w_precv_c(&c, {{pmpi_int}}, {{args}});
%end
%class isendrecv_c
	rc = hp_w_isendrecv_c(&c, {{pmpi_int}}, {{args}});
%end
%class isendrecv_replace_c
	rc = hp_w_isendrecv_replace_c(&c, {{pmpi_int}}, {{args}});
%end

%fn isendrecv if=HP_HAVE_MPI_ISENDRECV int MPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
%fn isendrecv_replace if=HP_HAVE_MPI_ISENDRECV int MPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
%fn psend_part nofortran if=HP_HAVE_MPI_PARTITIONED int MPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
%fn precv_part nofortran if=HP_HAVE_MPI_PARTITIONED int MPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
%fn send_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
%fn send_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
%fn send_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
%fn send_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
%fn recv_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
%fn isend_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn isend_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn isend_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn isend_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn irecv_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
%fn sendrecv_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
%fn sendrecv_replace_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
%fn mrecv_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status)
%fn imrecv_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request)
%fn psend_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn psend_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn psend_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn psend_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request)
%fn precv_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request)
%fn isendrecv_c nofortran if=HP_HAVE_MPI_ISENDRECV_C int MPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request)
%fn isendrecv_replace_c nofortran if=HP_HAVE_MPI_ISENDRECV_C int MPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request)

# ---- completion ----------------------------------------------------------------
%class wait
	rc = hp_w_wait(&c, {{pmpi}}, {{args}});
%end
%class test
	rc = hp_w_test(&c, {{pmpi}}, {{args}});
%end
%class waitall
	rc = hp_w_waitall(&c, {{pmpi}}, {{args}});
%end
%class testall
	rc = hp_w_testall(&c, {{pmpi}}, {{args}});
%end
%class waitany
	rc = hp_w_waitany(&c, {{pmpi}}, {{args}});
%end
%class testany
	rc = hp_w_testany(&c, {{pmpi}}, {{args}});
%end
%class waitsome
	rc = hp_w_waitsome(&c, {{pmpi}}, {{args}});
%end
%class request_free
	rc = hp_w_request_free(&c, {{pmpi}}, {{args}});
%end
%class request_get_status
	rc = hp_w_request_get_status(&c, {{pmpi}}, {{args}});
%end
%class cancel
	rc = hp_w_cancel(&c, {{pmpi}}, {{args}});
%end

%fn wait     int MPI_Wait(MPI_Request *request /*inout*/, MPI_Status *status)
%fn test     int MPI_Test(MPI_Request *request /*inout*/, int *flag /*logical*/, MPI_Status *status)
%fn waitall  int MPI_Waitall(int count, MPI_Request array_of_requests[] /*n:*count*/, MPI_Status array_of_statuses[] /*n:*count*/)
%fn testall  int MPI_Testall(int count, MPI_Request array_of_requests[] /*n:*count*/, int *flag /*logical*/, MPI_Status array_of_statuses[] /*n:*count*/)
%fn waitany  int MPI_Waitany(int count, MPI_Request array_of_requests[] /*n:*count*/, int *index /*index*/, MPI_Status *status)
%fn testany  int MPI_Testany(int count, MPI_Request array_of_requests[] /*n:*count*/, int *index /*index*/, int *flag /*logical*/, MPI_Status *status)
%fn waitsome int MPI_Waitsome(int incount, MPI_Request array_of_requests[] /*n:*incount*/, int *outcount, int array_of_indices[] /*indices:*outcount*/, MPI_Status array_of_statuses[] /*n:*incount*/)
%fn waitsome int MPI_Testsome(int incount, MPI_Request array_of_requests[] /*n:*incount*/, int *outcount, int array_of_indices[] /*indices:*outcount*/, MPI_Status array_of_statuses[] /*n:*incount*/)
%fn request_free int MPI_Request_free(MPI_Request *request /*inout*/)
%fn request_get_status int MPI_Request_get_status(MPI_Request request, int *flag /*logical*/, MPI_Status *status)
%fn cancel   int MPI_Cancel(MPI_Request *request /*inout*/)

# ---- collectives -----------------------------------------------------------------
# Each class times the call, then exchanges the delays (coll.c says how).
%class barrier
	rc = hp_w_barrier(&c, {{pmpi}}, {{args}});
%end
%class bcast
	rc = hp_w_bcast(&c, {{pmpi}}, {{args}});
%end
%class gather
	rc = hp_w_gather(&c, {{pmpi}}, {{args}});
%end
%class gatherv
	rc = hp_w_gatherv(&c, {{pmpi}}, {{args}});
%end
%class scatter
	rc = hp_w_scatter(&c, {{pmpi}}, {{args}});
%end
%class scatterv
	rc = hp_w_scatterv(&c, {{pmpi}}, {{args}});
%end
%class allgather
	rc = hp_w_allgather(&c, {{pmpi}}, {{args}});
%end
%class allgatherv
	rc = hp_w_allgatherv(&c, {{pmpi}}, {{args}});
%end
%class alltoall
	rc = hp_w_alltoall(&c, {{pmpi}}, {{args}});
%end
%class alltoallv
	rc = hp_w_alltoallv(&c, {{pmpi}}, {{args}});
%end
%class alltoallw
	rc = hp_w_alltoallw(&c, {{pmpi}}, {{args}});
%end
%class reduce
	rc = hp_w_reduce(&c, {{pmpi}}, {{args}});
%end
%class allreduce
	rc = hp_w_allreduce(&c, {{pmpi}}, {{args}});
%end
%class reduce_scatter
	rc = hp_w_reduce_scatter(&c, {{pmpi}}, {{args}});
%end
%class reduce_scatter_block
	rc = hp_w_reduce_scatter_block(&c, {{pmpi}}, {{args}});
%end

%fn barrier    int MPI_Barrier(MPI_Comm comm)
%fn bcast      int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
%fn gather     int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
%fn gatherv    int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
%fn scatter    int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
%fn scatterv   int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
%fn allgather  int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
%fn allgatherv int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
%fn alltoall   int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
%fn alltoallv  int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
%fn alltoallw int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[] /*types:comm+sendbuf*/, void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[] /*types:comm*/, MPI_Comm comm)
%fn reduce     int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
%fn allreduce  int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
%fn reduce_scatter int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
%fn reduce_scatter_block int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
%fn allreduce  int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
%fn allreduce  int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)

# ---- non-blocking collectives (MPI 3) ----------------------------------------------
# Statistics only (coll.c: ICOLL): the initiation is timed and recorded with
# this rank's data; no delay is exchanged (a collective inside the wrapper
# would make the initiation block) and the completion is timed by the Wait
# or Test that completes the request.
%class ibarrier
	rc = hp_w_ibarrier(&c, {{pmpi}}, {{args}});
%end
%class ibcast
	rc = hp_w_ibcast(&c, {{pmpi}}, {{args}});
%end
%class igather
	rc = hp_w_igather(&c, {{pmpi}}, {{args}});
%end
%class igatherv
	rc = hp_w_igatherv(&c, {{pmpi}}, {{args}});
%end
%class iscatter
	rc = hp_w_iscatter(&c, {{pmpi}}, {{args}});
%end
%class iscatterv
	rc = hp_w_iscatterv(&c, {{pmpi}}, {{args}});
%end
%class iallgather
	rc = hp_w_iallgather(&c, {{pmpi}}, {{args}});
%end
%class iallgatherv
	rc = hp_w_iallgatherv(&c, {{pmpi}}, {{args}});
%end
%class ialltoall
	rc = hp_w_ialltoall(&c, {{pmpi}}, {{args}});
%end
%class ialltoallv
	rc = hp_w_ialltoallv(&c, {{pmpi}}, {{args}});
%end
%class ialltoallw
	rc = hp_w_ialltoallw(&c, {{pmpi}}, {{args}});
%end
%class ireduce
	rc = hp_w_ireduce(&c, {{pmpi}}, {{args}});
%end
%class iallreduce
	rc = hp_w_iallreduce(&c, {{pmpi}}, {{args}});
%end
%class ireduce_scatter
	rc = hp_w_ireduce_scatter(&c, {{pmpi}}, {{args}});
%end
%class ireduce_scatter_block
	rc = hp_w_ireduce_scatter_block(&c, {{pmpi}}, {{args}});
%end

%fn ibarrier    int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
%fn ibcast      int MPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
%fn igather     int MPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
%fn igatherv    int MPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
%fn iscatter    int MPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
%fn iscatterv   int MPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
%fn iallgather  int MPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
%fn iallgatherv int MPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
%fn ialltoall   int MPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
%fn ialltoallv  int MPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
%fn ialltoallw int MPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[] /*types:comm+sendbuf*/, void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[] /*types:comm*/, MPI_Comm comm, MPI_Request *request)
%fn ireduce     int MPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
%fn iallreduce  int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
%fn ireduce_scatter int MPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
%fn ireduce_scatter_block int MPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
%fn iallreduce  int MPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
%fn iallreduce  int MPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)

# ---- large-count collectives (MPI 4), where the MPI has them ---------------------------
# Counts that fit an int: the int-count twin's wrapper (statistics, the delay
# exchange); larger ones straight to MPI, timed as a plain call (a
# contiguous type of the count would not do for a reduction with a
# predefined operation).  The v and w kinds (count and displacement arrays)
# pass straight to MPI, like the persistent collectives.
%class bcast_c
	if (HP_FITS_INT(count))
		rc = {{twin}}(&c, {{pmpi_int}}, buffer, (int)count, datatype, root, comm);
	else
		rc = hp_call_pass(&c, {{pmpi}}({{args}}));
%end
%class ibcast_c
	if (HP_FITS_INT(count))
		rc = {{twin}}(&c, {{pmpi_int}}, buffer, (int)count, datatype, root, comm, request);
	else
		rc = hp_call_pass(&c, {{pmpi}}({{args}}));
%end
%class rooted_c
	if (HP_FITS_INT(sendcount) && HP_FITS_INT(recvcount))
		rc = {{twin}}(&c, {{pmpi_int}}, sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype, root, comm);
	else
		rc = hp_call_pass(&c, {{pmpi}}({{args}}));
%end
%class irooted_c
	if (HP_FITS_INT(sendcount) && HP_FITS_INT(recvcount))
		rc = {{twin}}(&c, {{pmpi_int}}, sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype, root, comm, request);
	else
		rc = hp_call_pass(&c, {{pmpi}}({{args}}));
%end
%class all_c
	if (HP_FITS_INT(sendcount) && HP_FITS_INT(recvcount))
		rc = {{twin}}(&c, {{pmpi_int}}, sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype, comm);
	else
		rc = hp_call_pass(&c, {{pmpi}}({{args}}));
%end
%class iall_c
	if (HP_FITS_INT(sendcount) && HP_FITS_INT(recvcount))
		rc = {{twin}}(&c, {{pmpi_int}}, sendbuf, (int)sendcount, sendtype, recvbuf, (int)recvcount, recvtype, comm, request);
	else
		rc = hp_call_pass(&c, {{pmpi}}({{args}}));
%end
%class reduce_c
	if (HP_FITS_INT(count))
		rc = {{twin}}(&c, {{pmpi_int}}, sendbuf, recvbuf, (int)count, datatype, op, root, comm);
	else
		rc = hp_call_pass(&c, {{pmpi}}({{args}}));
%end
%class ireduce_c
	if (HP_FITS_INT(count))
		rc = {{twin}}(&c, {{pmpi_int}}, sendbuf, recvbuf, (int)count, datatype, op, root, comm, request);
	else
		rc = hp_call_pass(&c, {{pmpi}}({{args}}));
%end
%class allreduce_c
	if (HP_FITS_INT(count))
		rc = {{twin}}(&c, {{pmpi_int}}, sendbuf, recvbuf, (int)count, datatype, op, comm);
	else
		rc = hp_call_pass(&c, {{pmpi}}({{args}}));
%end
%class iallreduce_c
	if (HP_FITS_INT(count))
		rc = {{twin}}(&c, {{pmpi_int}}, sendbuf, recvbuf, (int)count, datatype, op, comm, request);
	else
		rc = hp_call_pass(&c, {{pmpi}}({{args}}));
%end

%fn bcast_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
%fn ibcast_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
%fn rooted_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
%fn rooted_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
%fn irooted_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
%fn irooted_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
%fn all_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
%fn all_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
%fn all_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
%fn all_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
%fn iall_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
%fn iall_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
%fn iall_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
%fn iall_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
%fn reduce_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm)
%fn ireduce_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request)
%fn allreduce_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
%fn allreduce_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
%fn allreduce_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
%fn allreduce_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
%fn iallreduce_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
%fn iallreduce_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
%fn iallreduce_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
%fn iallreduce_c nofortran if=HP_HAVE_MPI_BIGCOUNT int MPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)

# ---- neighbourhood collectives (MPI 3) ---------------------------------------------
# Statistics only (coll.c: NCOLL, ICOLL): calls, the bytes this rank sends to
# its out-neighbours, the call's time; no delay is exchanged (it would take
# a collective over the neighbourhood).  A blocking one counts whole as raw
# waiting, uncompensated.
%class neighbor_allgather
	rc = hp_w_neighbor_allgather(&c, {{pmpi}}, {{args}});
%end
%class neighbor_allgatherv
	rc = hp_w_neighbor_allgatherv(&c, {{pmpi}}, {{args}});
%end
%class neighbor_alltoallv
	rc = hp_w_neighbor_alltoallv(&c, {{pmpi}}, {{args}});
%end
%class neighbor_alltoallw
	rc = hp_w_neighbor_alltoallw(&c, {{pmpi}}, {{args}});
%end
%class ineighbor_allgather
	rc = hp_w_ineighbor_allgather(&c, {{pmpi}}, {{args}});
%end
%class ineighbor_allgatherv
	rc = hp_w_ineighbor_allgatherv(&c, {{pmpi}}, {{args}});
%end
%class ineighbor_alltoallv
	rc = hp_w_ineighbor_alltoallv(&c, {{pmpi}}, {{args}});
%end
%class ineighbor_alltoallw
	rc = hp_w_ineighbor_alltoallw(&c, {{pmpi}}, {{args}});
%end

%fn neighbor_allgather  int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
%fn neighbor_allgatherv int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
%fn neighbor_allgather  int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
%fn neighbor_alltoallv  int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
%fn neighbor_alltoallw int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[] /*types:comm/out*/, void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[] /*types:comm/in*/, MPI_Comm comm)
%fn ineighbor_allgather  int MPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
%fn ineighbor_allgatherv int MPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
%fn ineighbor_allgather  int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
%fn ineighbor_alltoallv  int MPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
%fn ineighbor_alltoallw int MPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[] /*types:comm/out*/, void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[] /*types:comm/in*/, MPI_Comm comm, MPI_Request *request)

# ---- communicators and datatypes -------------------------------------------------
%class comm_new
	rc = hp_w_comm_new(&c, {{pmpi}}, {{args}});
%end
%class comm_split
	rc = hp_w_comm_split(&c, {{pmpi}}, {{args}});
%end
%class comm_split_type
	rc = hp_w_comm_split_type(&c, {{pmpi}}, {{args}});
%end
%class comm_create
	rc = hp_w_comm_create(&c, {{pmpi}}, {{args}});
%end
%class comm_create_group
	rc = hp_w_comm_create_group(&c, {{pmpi}}, {{args}});
%end
%class intercomm_create
	rc = hp_w_intercomm_create(&c, {{pmpi}}, {{args}});
%end
%class intercomm_merge
	rc = hp_w_intercomm_merge(&c, {{pmpi}}, {{args}});
%end
%class cart_create
	rc = hp_w_cart_create(&c, {{pmpi}}, {{args}});
%end
%class cart_sub
	rc = hp_w_cart_sub(&c, {{pmpi}}, {{args}});
%end
%class comm_free
	rc = hp_w_comm_free(&c, {{pmpi}}, {{args}});
%end
%class type_free
	rc = hp_w_type_free(&c, {{pmpi}}, {{args}});
%end

%fn comm_new    int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
%fn comm_split  int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
%fn comm_split_type int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
%fn comm_create int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
%fn comm_create_group int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
%fn intercomm_create int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm)
%fn intercomm_merge int MPI_Intercomm_merge(MPI_Comm intercomm, int high /*logical*/, MPI_Comm *newintracomm)
%fn cart_create int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[] /*logicals*/, int reorder /*logical*/, MPI_Comm *comm_cart)
%fn cart_sub    int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[] /*logicals*/, MPI_Comm *newcomm)
%fn comm_free   int MPI_Comm_free(MPI_Comm *comm /*inout*/)
# its handle value may come back for the next communicator, which must not
# inherit the disconnected one's record (another world: no piggyback)
%fn comm_free   int MPI_Comm_disconnect(MPI_Comm *comm /*inout*/)
%fn type_free   int MPI_Type_free(MPI_Datatype *datatype /*inout*/)

# ---- one-sided communication (rma.c) ----------------------------------------------
# Counted per call site and target (no piggyback: nothing travels with the
# data); synchronisation calls' time is waiting, MPI_Win_fence exchanges the
# delays like a symmetric collective.  Fortran entry points too (a
# window's address-sized arguments are INTEGER(KIND=MPI_ADDRESS_KIND)), as
# for the other wrappers.
%class win_create
	rc = hp_w_win_create(&c, {{pmpi}}, {{args}});
%end
%class win_allocate
	rc = hp_w_win_allocate(&c, {{pmpi}}, {{args}});
%end
%class win_create_dynamic
	rc = hp_w_win_create_dynamic(&c, {{pmpi}}, {{args}});
%end
%class win_free
	rc = hp_w_win_free(&c, {{pmpi}}, {{args}});
%end
%class rma_put
	rc = hp_w_rma_put(&c, {{pmpi}}, {{args}});
%end
%class rma_get
	rc = hp_w_rma_get(&c, {{pmpi}}, {{args}});
%end
%class rma_acc
	rc = hp_w_rma_acc(&c, {{pmpi}}, {{args}});
%end
%class rma_rput
	rc = hp_w_rma_rput(&c, {{pmpi}}, {{args}});
%end
%class rma_rget
	rc = hp_w_rma_rget(&c, {{pmpi}}, {{args}});
%end
%class rma_racc
	rc = hp_w_rma_racc(&c, {{pmpi}}, {{args}});
%end
%class rma_getacc
	rc = hp_w_rma_getacc(&c, {{pmpi}}, {{args}});
%end
%class rma_rgetacc
	rc = hp_w_rma_rgetacc(&c, {{pmpi}}, {{args}});
%end
%class rma_fop
	rc = hp_w_rma_fop(&c, {{pmpi}}, {{args}});
%end
%class rma_cas
	rc = hp_w_rma_cas(&c, {{pmpi}}, {{args}});
%end
%class win_fence
	rc = hp_w_win_fence(&c, {{pmpi}}, {{args}});
%end
%class win_sync
	rc = hp_w_win_sync(&c, {{pmpi}}, {{args}});
%end
%class win_lock_all
	rc = hp_w_win_lock_all(&c, {{pmpi}}, {{args}});
%end
%class win_start
	rc = hp_w_win_start(&c, {{pmpi}}, {{args}});
%end
%class win_test
	rc = hp_w_win_test(&c, {{pmpi}}, {{args}});
%end
%class win_lock
	rc = hp_w_win_lock(&c, {{pmpi}}, {{args}});
%end
%class win_unlock
	rc = hp_w_win_unlock(&c, {{pmpi}}, {{args}});
%end

%fn win_create int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win)
%fn win_allocate int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
%fn win_allocate int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win)
%fn win_create_dynamic int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
%fn win_free int MPI_Win_free(MPI_Win *win /*inout*/)
%fn rma_put int MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
%fn rma_get int MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
%fn rma_acc int MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
%fn rma_rput int MPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
%fn rma_rget int MPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
%fn rma_racc int MPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
%fn rma_getacc int MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
%fn rma_rgetacc int MPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
%fn rma_fop int MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
%fn rma_cas int MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
%fn win_fence int MPI_Win_fence(int assert, MPI_Win win)
%fn win_sync int MPI_Win_complete(MPI_Win win)
%fn win_sync int MPI_Win_wait(MPI_Win win)
%fn win_sync int MPI_Win_unlock_all(MPI_Win win)
%fn win_sync int MPI_Win_flush_all(MPI_Win win)
%fn win_sync int MPI_Win_flush_local_all(MPI_Win win)
%fn win_sync int MPI_Win_sync(MPI_Win win)
%fn win_lock_all int MPI_Win_lock_all(int assert, MPI_Win win)
%fn win_start int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
%fn win_start int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
%fn win_test int MPI_Win_test(MPI_Win win, int *flag)
%fn win_lock int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
%fn win_unlock int MPI_Win_unlock(int rank, MPI_Win win)
%fn win_unlock int MPI_Win_flush(int rank, MPI_Win win)
%fn win_unlock int MPI_Win_flush_local(int rank, MPI_Win win)

# ---- MPI-IO (io.c) -------------------------------------------------------------------
# Timed and counted per call site with the bytes moved; no piggyback, no
# compensation (no message).  Fortran strings (File_open's name,
# File_set_view's representation) are converted by /*fstring*/.
%class io_open
	rc = {{pmpi}}({{args}});
%end
%class io_close
	rc = {{pmpi}}({{args}});
%end
%class io_set_view
	rc = {{pmpi}}({{args}});
%end
%class io_sync
	rc = {{pmpi}}({{args}});
%end
%class io_read
	rc = hp_w_io_read(&c, {{pmpi}}, {{args}});
%end
%class io_write
	rc = hp_w_io_write(&c, {{pmpi}}, {{args}});
%end
%class io_read_at
	rc = hp_w_io_read_at(&c, {{pmpi}}, {{args}});
%end
%class io_write_at
	rc = hp_w_io_write_at(&c, {{pmpi}}, {{args}});
%end
%class io_iread
	rc = hp_w_io_iread(&c, {{pmpi}}, {{args}});
%end
%class io_iwrite
	rc = hp_w_io_iwrite(&c, {{pmpi}}, {{args}});
%end
%class io_iread_at
	rc = hp_w_io_iread_at(&c, {{pmpi}}, {{args}});
%end
%class io_iwrite_at
	rc = hp_w_io_iwrite_at(&c, {{pmpi}}, {{args}});
%end

%fn io_open int MPI_File_open(MPI_Comm comm, const char *filename /*fstring*/, int amode, MPI_Info info, MPI_File *fh)
%fn io_close int MPI_File_close(MPI_File *fh /*inout*/)
%fn io_set_view int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep /*fstring*/, MPI_Info info)
%fn io_sync int MPI_File_sync(MPI_File fh)
%fn io_read int MPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
%fn io_read int MPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
%fn io_read int MPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
%fn io_read int MPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
%fn io_write int MPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
%fn io_write int MPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
%fn io_write int MPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
%fn io_write int MPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
%fn io_read_at int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
%fn io_read_at int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
%fn io_write_at int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
%fn io_write_at int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
%fn io_iread int MPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
%fn io_iread int MPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
%fn io_iwrite int MPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
%fn io_iwrite int MPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
%fn io_iread_at int MPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
%fn io_iwrite_at int MPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
%fn io_iread int MPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
%fn io_iwrite int MPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
%fn io_iread_at int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
%fn io_iwrite_at int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
