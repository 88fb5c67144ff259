! tests/mpi/fortran_f08.f90 - Fortran 2008 bindings (`use mpi_f08`) through hyprof.
program fortran_f08
  use mpi_f08
  implicit none
  integer :: rank, nproc, i, n, idx, peer
  type(MPI_Status) :: st
  type(MPI_Request) :: reqs(2)
  integer :: buf(4), got(4, 2)
  double precision :: x
  logical :: flag
  type(MPI_Win) :: win
  integer :: wmem(2), intsize
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nproc)
  peer = 1 - rank
  if (rank < 2) then
    do i = 1, 2
      call MPI_Irecv(got(:, i), 4, MPI_INTEGER, peer, i, MPI_COMM_WORLD, reqs(i))
    end do
    buf = [1, 2, 3, 4] + 10 * rank
    ! only tag 1 is in flight: Waitany must pick it (index 1)
    call MPI_Send(buf, 2, MPI_INTEGER, peer, 1, MPI_COMM_WORLD)
    call MPI_Waitany(2, reqs, idx, st)
    call MPI_Send(buf, 4, MPI_INTEGER, peer, 2, MPI_COMM_WORLD)
    call MPI_Get_count(st, MPI_INTEGER, n)
    print '(a,i0,a,i0,a,i0)', 'f08 waitany: rank ', rank, ' tag ', st%MPI_TAG, ' count ', n
    flag = .false.
    do while (.not. flag)
      call MPI_Test(reqs(3 - idx), flag, st)
    end do
    call MPI_Get_count(st, MPI_INTEGER, n)
    print '(a,i0,a,i0,a,4i4)', 'f08 test: rank ', rank, ' count ', n, ' data', got(:, 2)
  end if
  x = rank
  call MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD)
  print '(a,f6.1)', 'f08 allreduce: ', x
  call MPI_Barrier(MPI_COMM_WORLD)
  ! one-sided: each rank puts its rank + 70 into its right neighbour's window
  call MPI_Type_size(MPI_INTEGER, intsize)
  wmem = 0
  wsize = 2 * intsize
  call MPI_Win_create(wmem, wsize, intsize, MPI_INFO_NULL, MPI_COMM_WORLD, win)
  call MPI_Win_fence(0, win)
  n = rank + 70
  disp = 1
  call MPI_Put(n, 1, MPI_INTEGER, mod(rank + 1, nproc), disp, 1, MPI_INTEGER, win)
  call MPI_Win_fence(0, win)
  print '(a,2i4)', 'f08 put: ', wmem
  call MPI_Win_free(win)
  call MPI_Finalize()
end program fortran_f08
