/* runtime/zz_tmp_stubs.c - TEMPORARY weak stand-ins for functions other parts
 * of hyprof own and have not landed yet; their real definitions win.  To be
 * deleted as soon as calib/ provides them. */
#include "calib/calib.h"

__attribute__((weak)) struct hp_calib hp_calib;
__attribute__((weak)) int hp_calib_startup(void)
{
	return 0;
}
