/* plug: a plugin loaded with dlopen by dlmain. */
#include "work.h"

__attribute__((noinline)) void plug_inner(unsigned long n) { spin(n); }
void plug_work(unsigned long n);
void plug_work(unsigned long n) { plug_inner(n); }
