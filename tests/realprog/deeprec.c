/* deeprec.c - a 20000-deep recursion with the work at the bottom, then a 50-deep one.
 * gcc -O1 -g deeprec.c -o deeprec ; also with -finstrument-functions */
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void leaf(void){ for (unsigned long i=0;i<100000000ul;i++) sink+=i; }
__attribute__((noinline)) static int rec(int d){ if(!d){ leaf(); return 0;} int r = rec(d-1)+1; sink+=r; return r; }
int main(int argc,char**argv){ int d = argc>1?atoi(argv[1]):20000; (void)d; printf("%d\n", rec(20000)+rec(50)); return 0; }
