/* repro_churn.c - 20000 short threads, created and joined one after another.
 * gcc -O1 -g -pthread repro_churn.c -o repro_churn
 * /usr/bin/time -v hyprof run -q -o c -- ./repro_churn 20000   (max RSS and time vs bare run) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
static volatile unsigned long sink;
static void *w(void *a){ for (unsigned long i=0;i<20000;i++) sink+=i; return a; }
int main(int argc,char**argv){
  int n = argc>1?atoi(argv[1]):20000;
  for (int i=0;i<n;i++){ pthread_t t; pthread_create(&t,NULL,w,NULL); pthread_join(t,NULL); }
  struct rusage ru; getrusage(RUSAGE_SELF,&ru);
  fprintf(stderr,"maxrss %ld KB\n", ru.ru_maxrss);
  printf("%d threads\n", n); return 0;
}
