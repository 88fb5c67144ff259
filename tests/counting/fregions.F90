! tests/counting/fregions.F90 - Fortran regions through the binding:
!   fsolve 1, fsolve/fstep 20
program fregions
  use hyprof
  implicit none
  integer :: i
  real(8) :: x
  x = 0
  call hyprof_region_begin_f("fsolve", __FILE__, __LINE__)
  do i = 1, 20
    call hyprof_region_begin_f("fstep")
    x = x + sqrt(real(i, 8))
    call hyprof_region_end_f("fstep   ")
  end do
  call hyprof_region_end_f("fsolve")
  print '(A,I0,A,F8.3)', 'active ', hyprof_active_f(), ' x ', x
end program fregions
