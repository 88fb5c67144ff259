! counting/hyprof_mod.f90 - Fortran binding of hyprof's region API
! (ISO_C_BINDING).  Build: the project builds libhyprof_f.a (this module and
! counting/fortran/hyprof_f.c) and puts hyprof.mod in <build>/include.
!
!   use hyprof
!   call hyprof_region_begin_f("solve")                 ! or, in a .F90 file:
!   call hyprof_region_begin_f("solve", __FILE__, __LINE__)
!   ...
!   call hyprof_region_end_f("solve")
!
! Link with -lhyprof_f.  Without the runtime every call is a few
! instructions; under `hyprof run` the regions are counted (hybrid) or timed
! (measured) like functions.  Trailing blanks of names are ignored.
module hyprof
  use, intrinsic :: iso_c_binding, only: c_char, c_int, c_null_char
  implicit none
  private
  public :: hyprof_region_begin_f, hyprof_region_end_f, hyprof_active_f

  interface
    subroutine c_region_begin(name, n, file, line) bind(C, name="hyprof_f_region_begin")
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int), value :: n
      character(kind=c_char), dimension(*), intent(in) :: file
      integer(c_int), value :: line
    end subroutine c_region_begin
    subroutine c_region_end(name, n) bind(C, name="hyprof_f_region_end")
      import :: c_char, c_int
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int), value :: n
    end subroutine c_region_end
    function c_active() result(m) bind(C, name="hyprof_f_active")
      import :: c_int
      integer(c_int) :: m
    end function c_active
  end interface

contains

  subroutine hyprof_region_begin_f(name, file, line)
    character(len=*), intent(in) :: name
    character(len=*), intent(in), optional :: file
    integer, intent(in), optional :: line
    integer(c_int) :: l
    l = 0
    if (present(line)) l = int(line, c_int)
    if (present(file)) then
      call c_region_begin(name, int(len_trim(name), c_int), trim(file) // c_null_char, l)
    else
      call c_region_begin(name, int(len_trim(name), c_int), c_null_char, l)
    end if
  end subroutine hyprof_region_begin_f

  subroutine hyprof_region_end_f(name)
    character(len=*), intent(in) :: name
    call c_region_end(name, int(len_trim(name), c_int))
  end subroutine hyprof_region_end_f

  ! 0: no runtime or sampled mode; 1: hybrid; 2: measured.
  integer function hyprof_active_f()
    hyprof_active_f = int(c_active())
  end function hyprof_active_f

end module hyprof
