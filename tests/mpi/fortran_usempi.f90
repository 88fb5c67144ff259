! tests/mpi/fortran_usempi.f90 - Fortran (`use mpi`) calls through hyprof.
!
! Open MPI's Fortran bindings call PMPI_ directly, so hyprof wraps the
! Fortran symbols themselves (mpiwrap/fortran.h).  This program's output
! must be the same with and without hyprof, and its profile must show the
! calls made here (tests/mpi/e2e.sh fortran).  Built once with `use mpi`
! and once with mpif.h (the same code, HP_MPIF_H defined).
program fortran_mpi
#ifdef HP_MPIF_H
  implicit none
  include 'mpif.h'
#else
  use mpi
  implicit none
#endif
  integer :: ierr, rank, nproc, i, n, idx, outcount, peer, half, dup
  integer :: st(MPI_STATUS_SIZE), sts(MPI_STATUS_SIZE, 4)
  integer :: reqs(4), sreqs(4), idxs(4), vals(4, 4), sb(4, 4), buf(8), big(1000)
  double precision :: x, y(3)
  logical :: flag
  ! one-sided and MPI-IO
  integer :: win, wmem(4), fh, intsize, ring
  integer(kind=MPI_ADDRESS_KIND) :: nd(2)
  logical :: periods(1)
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp
  integer(kind=MPI_OFFSET_KIND) :: off
  character(len=40) :: fname

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc, ierr)
  peer = 1 - rank

  ! blocking, with a status, a larger buffer and a wildcard
  if (rank == 0) then
    do i = 1, 5
      buf(i) = 10 * i
    end do
    call MPI_Send(buf, 5, MPI_INTEGER, 1, 7, MPI_COMM_WORLD, ierr)
    call MPI_Send(big, 0, MPI_INTEGER, 1, 8, MPI_COMM_WORLD, ierr)
  else if (rank == 1) then
    buf = -1
    call MPI_Recv(buf, 8, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st, ierr)
    call MPI_Get_count(st, MPI_INTEGER, n, ierr)
    print '(a,i0,a,i0,a,i0,a,5i4,a,i0)', 'recv: source ', st(MPI_SOURCE), ' tag ', st(MPI_TAG), &
         ' count ', n, ' data', buf(1:5), ' untouched ', buf(6)
    call MPI_Recv(big, 1000, MPI_INTEGER, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    print '(a,i0)', 'zero-size recv ierr ', ierr
  end if

  ! non-blocking: four receives completed with Waitany, then Waitsome, Waitall
  if (rank < 2) then
    do i = 1, 4
      call MPI_Irecv(vals(1, i), 4, MPI_INTEGER, peer, 20 + i, MPI_COMM_WORLD, reqs(i), ierr)
    end do
    do i = 4, 1, -1
      buf(1:4) = 100 * rank + i
      call MPI_Send(buf, 4, MPI_INTEGER, peer, 20 + i, MPI_COMM_WORLD, ierr)
    end do
    n = 0
    do i = 1, 4
      call MPI_Waitany(4, reqs, idx, st, ierr)
      n = n + idx * vals(1, idx)
      if (st(MPI_TAG) /= 20 + idx) print '(a,i0,a,i0)', 'waitany: index ', idx, ' tag ', st(MPI_TAG)
    end do
    print '(a,i0,a,i0)', 'waitany: rank ', rank, ' weighted sum ', n
    call MPI_Waitany(4, reqs, idx, st, ierr)
    print '(a,l1)', 'waitany on nulls gives MPI_UNDEFINED: ', idx == MPI_UNDEFINED
    do i = 1, 4
      call MPI_Irecv(vals(1, i), 4, MPI_INTEGER, peer, 30 + i, MPI_COMM_WORLD, reqs(i), ierr)
    end do
    do i = 1, 4
      buf(1:4) = i
      call MPI_Send(buf, i, MPI_INTEGER, peer, 30 + i, MPI_COMM_WORLD, ierr)
    end do
    n = 0
    outcount = 0
    do while (n < 4)
      call MPI_Waitsome(4, reqs, outcount, idxs, sts, ierr)
      do i = 1, outcount
        call MPI_Get_count(sts(:, i), MPI_INTEGER, idx, ierr)
        if (idx /= idxs(i)) print '(a,i0,a,i0)', 'waitsome: index ', idxs(i), ' count ', idx
      end do
      n = n + outcount
    end do
    print '(a,i0,a,i0)', 'waitsome: rank ', rank, ' completed ', n
    do i = 1, 4
      call MPI_Irecv(vals(1, i), 4, MPI_INTEGER, peer, 40 + i, MPI_COMM_WORLD, reqs(i), ierr)
    end do
    do i = 1, 4
      sb(:, i) = 7 * i + rank
      call MPI_Isend(sb(1, i), 4, MPI_INTEGER, peer, 40 + i, MPI_COMM_WORLD, sreqs(i), ierr)
    end do
    call MPI_Wait(sreqs(1), MPI_STATUS_IGNORE, ierr)
    call MPI_Waitall(4, reqs, sts, ierr)
    call MPI_Waitall(4, sreqs, MPI_STATUSES_IGNORE, ierr)
    print '(a,i0,a,4i4,a,i0)', 'waitall: rank ', rank, ' data', vals(1, 1:4), ' tag ', sts(MPI_TAG, 3)
    ! Test and Iprobe, logical flags
    call MPI_Irecv(buf, 8, MPI_INTEGER, peer, 50, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Send(vals, 3, MPI_INTEGER, peer, 50, MPI_COMM_WORLD, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Test(reqs(1), flag, st, ierr)
    end do
    call MPI_Get_count(st, MPI_INTEGER, n, ierr)
    print '(a,i0,a,i0)', 'test: count ', n, ' null ', merge(1, 0, reqs(1) == MPI_REQUEST_NULL)
    call MPI_Send(y, 3, MPI_DOUBLE_PRECISION, peer, 51, MPI_COMM_WORLD, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Iprobe(peer, 51, MPI_COMM_WORLD, flag, st, ierr)
    end do
    call MPI_Get_count(st, MPI_DOUBLE_PRECISION, n, ierr)
    print '(a,i0)', 'iprobe: count ', n
    call MPI_Recv(y, 3, MPI_DOUBLE_PRECISION, peer, 51, MPI_COMM_WORLD, st, ierr)
    call MPI_Sendrecv(rank, 1, MPI_INTEGER, peer, 52, n, 1, MPI_INTEGER, peer, 52, MPI_COMM_WORLD, st, ierr)
    print '(a,i0)', 'sendrecv: got ', n
  end if
  call MPI_Recv(buf, 1, MPI_INTEGER, MPI_PROC_NULL, 0, MPI_COMM_WORLD, st, ierr)
  print '(a,l1)', 'proc_null: ', st(MPI_SOURCE) == MPI_PROC_NULL
  ! a received status's MPI_ERROR is the caller's: Open MPI's MPI_RECV hands
  ! MPI the Fortran status itself, and MPI sets that field only with
  ! MPI_ERR_IN_STATUS (its MPI_SENDRECV copies an uninitialised one instead)
  st(MPI_ERROR) = 4242
  if (rank == 0) call MPI_Send(rank, 1, MPI_INTEGER, 1, 53, MPI_COMM_WORLD, ierr)
  if (rank == 1) then
    call MPI_Recv(n, 1, MPI_INTEGER, 0, 53, MPI_COMM_WORLD, st, ierr)
    print '(a,i0,a,i0)', 'recv status: tag ', st(MPI_TAG), ' MPI_ERROR ', st(MPI_ERROR)
  end if

  ! collectives, MPI_IN_PLACE
  x = rank + 1
  call MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  print '(a,f6.1)', 'allreduce in place: ', x
  n = rank
  call MPI_Bcast(n, 1, MPI_INTEGER, nproc - 1, MPI_COMM_WORLD, ierr)
  print '(a,i0)', 'bcast: ', n
  buf(1) = rank * 3
  call MPI_Reduce(buf, n, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,i0)', 'reduce: ', n
  call MPI_Gather(rank, 1, MPI_INTEGER, big, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a,3i3)', 'gather: ', big(1:min(3, nproc))
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  ! Alltoallw: an array of datatype handles, one per rank
  do i = 1, min(nproc, 4)
    idxs(i) = 1
    reqs(i) = MPI_INTEGER
    sb(i, 1) = (i - 1) * 4
    sb(i, 2) = rank * 10 + i
  end do
  if (nproc <= 4) then
    call MPI_Alltoallw(sb(:, 2), idxs, sb(:, 1), reqs, vals(:, 1), idxs, sb(:, 1), reqs, MPI_COMM_WORLD, ierr)
    print '(a,4i4)', 'alltoallw: ', vals(1:nproc, 1)
  end if
  ! Neighbor_alltoallw on a periodic ring: the type arrays are as long as
  ! the topology's degree (2), not the communicator's size
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, [nproc], periods, .false., ring, ierr)
  sb(1:2, 2) = [rank * 10 + 1, rank * 10 + 2]
  call MPI_Type_size(MPI_INTEGER, intsize, ierr)
  nd = [0_MPI_ADDRESS_KIND, int(intsize, MPI_ADDRESS_KIND)]
  idxs(1:2) = 1
  reqs(1:2) = MPI_INTEGER
  vals(1:2, 1) = -1
  call MPI_Neighbor_alltoallw(sb(:, 2), idxs, nd, reqs, vals(:, 1), idxs, nd, reqs, ring, ierr)
  print '(a,i0,2i5)', 'neighbor_alltoallw: ', ierr, vals(1:2, 1)
  call MPI_Comm_free(ring, ierr)
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Comm_dup(half, dup, ierr)
  call MPI_Allreduce(rank, n, 1, MPI_INTEGER, MPI_SUM, dup, ierr)
  print '(a,i0)', 'split+dup allreduce: ', n
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free(half, ierr)

  ! one-sided: a put to the peer in a fence epoch, a get under a lock
  call MPI_Type_size(MPI_INTEGER, intsize, ierr)
  wmem = 0
  wsize = 4 * intsize
  call MPI_Win_create(wmem, wsize, intsize, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  buf(1:2) = [100 + rank, 200 + rank]
  disp = 1
  call MPI_Put(buf, 2, MPI_INTEGER, peer, disp, 2, MPI_INTEGER, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  print '(a,4i5)', 'rma put: ', wmem
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win, ierr)
  disp = 2
  call MPI_Get(n, 1, MPI_INTEGER, peer, disp, 1, MPI_INTEGER, win, ierr)
  call MPI_Win_unlock(peer, win, ierr)
  print '(a,i5)', 'rma get: ', n
  call MPI_Win_free(win, ierr)
  print '(a,l1)', 'rma win freed: ', win == MPI_WIN_NULL

  ! MPI-IO: each rank writes 4 integers at its offset, reads its peer's
  ! the name blank-padded, as a CHARACTER variable longer than its contents
  fname = 'hp_fortran_io.tmp'
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh, ierr)
  print '(a,i0)', 'io open: ', ierr
  off = 0
  call MPI_File_set_view(fh, off, MPI_BYTE, MPI_BYTE, 'native  ', MPI_INFO_NULL, ierr)
  print '(a,i0)', 'io set_view: ', ierr
  buf(1:4) = [1, 2, 3, 4] + 10 * rank
  off = rank * 4 * intsize
  call MPI_File_write_at(fh, off, buf, 4, MPI_INTEGER, st, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  off = peer * 4 * intsize
  call MPI_File_read_at(fh, off, vals(:, 1), 4, MPI_INTEGER, st, ierr)
  call MPI_Get_count(st, MPI_INTEGER, n, ierr)
  print '(a,i0,a,4i4)', 'io read: ', n, ' ints', vals(:, 1)
  call MPI_File_close(fh, ierr)
  print '(a,l1)', 'io closed: ', fh == MPI_FILE_NULL
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) call MPI_File_delete('hp_fortran_io.tmp', MPI_INFO_NULL, ierr)
  call MPI_Finalize(ierr)
end program fortran_mpi
