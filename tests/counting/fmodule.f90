! tests/counting/fmodule.f90 - a Fortran module procedure, instrumented
! (-finstrument-functions): the report names it as gdb does, fmod::fwork,
! not by gfortran's symbol __fmod_MOD_fwork.  The main program (fmodule,
! MAIN__ in the symbol table) calls it 30 times.
module fmod
  implicit none
contains
  subroutine fwork(x, n)
    real(8), intent(inout) :: x
    integer, intent(in) :: n
    x = x + sqrt(real(n, 8))
  end subroutine fwork
end module fmod

program fmodule
  use fmod
  implicit none
  integer :: i
  real(8) :: x
  x = 0
  do i = 1, 30
    call fwork(x, i)
  end do
  print '(A,F8.3)', 'x ', x
end program fmodule
