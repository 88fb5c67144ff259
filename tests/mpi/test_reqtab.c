/* tests/mpi/test_reqtab.c - the request table under concurrent use.
 *
 * Threads insert, look up, put back and retire entries whose keys collide
 * on purpose (small key space, handle values reused as soon as retired,
 * like MPI's request free lists), and some complete requests posted by
 * another thread.  Every claim must return the object inserted under that
 * key and still live; every object must come back exactly once.  A small
 * table forces the overflow list too.  No MPI calls.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiwrap/reqtab.h"

#define NTHREADS 4
#define ROUNDS 200000
#define KEYS 64 /* per thread; keys are (thread, slot) so they are reused */

struct shared_req {
	uintptr_t key; /* atomic: posted under this key, 0 when free */
	struct hp_req *r;
};

static struct shared_req handoff[NTHREADS][KEYS];
static int fails;

static void fail(const char *what, int line)
{
	if (__atomic_add_fetch(&fails, 1, __ATOMIC_RELAXED) <= 5)
		fprintf(stderr, "%s:%d: %s\n", __FILE__, line, what);
}

static void *worker(void *arg)
{
	int me = (int)(intptr_t)arg;
	unsigned seed = 12345u + (unsigned)me;
	for (int i = 0; i < ROUNDS; i++) {
		int k = rand_r(&seed) % KEYS;
		/* half of the time, retire a request another thread posted */
		int owner = (rand_r(&seed) & 1) ? me : rand_r(&seed) % NTHREADS;
		struct shared_req *h = &handoff[owner][k];
		uintptr_t key = __atomic_load_n(&h->key, __ATOMIC_ACQUIRE);
		if (key == 0) {
			if (owner != me)
				continue;
			/* post: the handle value depends on the slot only, so it
			 * repeats, as MPI reuses its request objects */
			struct hp_req *r = hp_req_alloc();
			if (!r) {
				fail("out of memory", __LINE__);
				return NULL;
			}
			key = ((uintptr_t)(owner * KEYS + k) << 4) | 0x1000;
			r->tag = (int)key;
			h->r = r;
			hp_req_insert(key, r);
			__atomic_store_n(&h->key, key, __ATOMIC_RELEASE);
			continue;
		}
		if (key == (uintptr_t)-1)
			continue; /* another thread is completing it */
		/* take the right to complete it (MPI: one thread waits on it) */
		if (!__atomic_compare_exchange_n(&h->key, &key, (uintptr_t)-1, 0, __ATOMIC_ACQUIRE,
						 __ATOMIC_RELAXED))
			continue;
		struct hp_req_claim c;
		if (!hp_req_claim(key, &c)) {
			fail("posted request not found", __LINE__);
			__atomic_store_n(&h->key, key, __ATOMIC_RELEASE);
			continue;
		}
		if (c.r != h->r || (uintptr_t)c.r->tag != key)
			fail("claimed the wrong request", __LINE__);
		if (rand_r(&seed) % 3 == 0) {
			/* a Test that did not complete */
			hp_req_unclaim(&c);
			__atomic_store_n(&h->key, key, __ATOMIC_RELEASE);
			continue;
		}
		struct hp_req *r = c.r;
		hp_req_release(&c);
		r->tag = 0;
		h->r = NULL;
		/* nobody can post this handle again before we let go of it */
		struct hp_req_claim again;
		if (hp_req_claim(key, &again)) {
			fail("retired request still found", __LINE__);
			hp_req_unclaim(&again);
		}
		hp_req_free(r);
		__atomic_store_n(&h->key, 0, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int run(uint32_t cap, const char *what)
{
	fails = 0;
	if (hp_reqtab_init(cap)) {
		fprintf(stderr, "cannot map the table\n");
		return 1;
	}
	pthread_t th[NTHREADS];
	for (int i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	struct hp_reqtab_stats st;
	hp_reqtab_stats(&st);
	printf("%s: cap %u, %llu inserts, %llu to the overflow list, longest probe %llu, "
	       "%d failure(s)\n",
	       what, st.cap, (unsigned long long)st.inserts, (unsigned long long)st.overflow,
	       (unsigned long long)st.probes_max, fails);
	if (cap <= 64 && st.overflow == 0) {
		fprintf(stderr, "%s:%d: a 64-slot table for %d live keys never overflowed\n", __FILE__,
			__LINE__, NTHREADS * KEYS);
		fails++;
	}
	hp_reqtab_fini();
	for (int t = 0; t < NTHREADS; t++)
		for (int k = 0; k < KEYS; k++)
			handoff[t][k].key = 0;
	return fails;
}

int main(void)
{
	int f = run(1 << 14, "large table");
	f += run(64, "small table (overflow list)");
	return f ? 1 : 0;
}
