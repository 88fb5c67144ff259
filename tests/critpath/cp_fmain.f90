! tests/critpath/cp_fmain.f90 - a Fortran main program whose loop is the
! work: N rounds of W ms in the main program itself and W ms in module
! procedure cpf::spin (busy waits on the clock), and an MPI_Allreduce.
! Symbols MAIN__ and __cpf_MOD_spin; names cp_fmain and cpf::spin in the
! profile (run.sh fmain, fmodule).
module cpf
  implicit none
contains
  subroutine spin(w)
    real, intent(in) :: w
    integer(8) :: t0, t, rate
    call system_clock(t0, rate)
    t = t0
    do while (real(t - t0) * 1000.0 / real(rate) < w)
      call system_clock(t)
    end do
  end subroutine
end module

program cp_fmain
  use mpi
  use cpf
  implicit none
  integer :: ierr, i, n, go, all
  integer(8) :: t0, t, rate
  real :: w
  character(len=16) :: arg
  call MPI_Init(ierr)
  call get_command_argument(1, arg)
  read (arg, *) n
  call get_command_argument(2, arg)
  read (arg, *) w
  call system_clock(count_rate=rate)
  do i = 1, n
    call system_clock(t0)
    t = t0
    do while (real(t - t0) * 1000.0 / real(rate) < w)
      call system_clock(t)
    end do
    call spin(w)
    go = 1
    call MPI_Allreduce(go, all, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  end do
  call MPI_Finalize(ierr)
  print '(a)', 'done fmain'
end program
