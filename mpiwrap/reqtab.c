/* mpiwrap/reqtab.c - the lock-free request table and the request pools.
 *
 * Thread-safe (see reqtab.h).  Not signal-safe: pools allocate with malloc.
 */
#include "mpiwrap/reqtab.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define K_EMPTY ((uintptr_t)0)
#define K_TOMB ((uintptr_t)1)
#define K_BUSY ((uintptr_t)2)
#define K_CLAIMED ((uintptr_t)1 << (sizeof(uintptr_t) * 8 - 1)) /* or-ed into a claimed key */

/* The key word alone decides ownership: a compare-and-swap from the handle
 * value to value|K_CLAIMED claims the entry, so a slot released and reused
 * for another handle between a lookup's load and its swap cannot be taken
 * by mistake.  Handles are pointers (Open MPI) or small integers (MPICH):
 * never 0, 1, 2, nor with the top bit set. */
struct slot {
	uintptr_t key;     /* atomic */
	struct hp_req *r;  /* written before the key is published */
};

struct ovf {
	struct ovf *next;
	uintptr_t key;
	struct hp_req *r;  /* NULL while claimed */
	int dead;
};

struct hp_reqpool {
	struct hp_req *local;  /* owner only */
	struct hp_req *remote; /* atomic stack: objects returned by other threads */
	struct hp_reqpool *free_next; /* on the list of exited threads' pools */
};

static struct {
	struct slot *s;
	uint32_t mask;
	size_t bytes;
	pthread_mutex_t ovf_lock;
	struct ovf *ovf;
	uint32_t novf;     /* atomic: live overflow entries */
	uint64_t inserts, overflow, live, live_max, probes_max; /* atomic, statistics */
} T = {.ovf_lock = PTHREAD_MUTEX_INITIALIZER};

/* initial-exec: one TLS load, no __tls_get_addr call (the library is
 * preloaded or linked, never dlopen'ed) */
static __thread struct hp_reqpool *tls_pool __attribute__((tls_model("initial-exec")));

static inline uint32_t hash_key(uintptr_t k)
{
	uint64_t x = (uint64_t)k;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return (uint32_t)x;
}

int hp_reqtab_init(uint32_t cap)
{
	uint32_t n = 64;
	while (n < cap && n < (1u << 26))
		n <<= 1;
	size_t bytes = (size_t)n * sizeof(struct slot);
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	T.s = p;
	T.mask = n - 1;
	T.bytes = bytes;
	return 0;
}

void hp_reqtab_fini(void)
{
	if (T.s)
		munmap(T.s, T.bytes);
	T.s = NULL;
	pthread_mutex_lock(&T.ovf_lock);
	while (T.ovf) {
		struct ovf *o = T.ovf;
		T.ovf = o->next;
		free(o);
	}
	pthread_mutex_unlock(&T.ovf_lock);
}

/* ---- pools -------------------------------------------------------------- */

/* What a fresh request zeroes: everything before the inline stage, or
 * without a piggyback extension not the slot's extension part (critical
 * path, ~0.5 KB), which nothing reads then. */
static size_t req_clear = offsetof(struct hp_req, inl);

void hp_req_clear_ext(int ext)
{
	req_clear = ext ? offsetof(struct hp_req, inl) : offsetof(struct hp_req, pb) + HP_PB_BASE;
}

/* A thread's pool outlives it: its objects may be in another thread's
 * hands (a request it posted, completed elsewhere), and come back to the
 * pool's return stack.  So when the thread exits its pool, with what it
 * holds, goes to a list and the next thread that needs a pool takes it
 * over.  Kept with each thread (32 objects of ~1.5 KB at least), 10,000
 * short threads making non-blocking calls grew a process by 450 MB. */
static pthread_key_t pool_key;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static int pool_key_ok;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hp_reqpool *pools_free;

static void pool_exit(void *arg)
{
	struct hp_reqpool *p = arg;
	tls_pool = NULL; /* this thread's later frees go to the return stack */
	pthread_mutex_lock(&pool_lock);
	p->free_next = pools_free;
	pools_free = p;
	pthread_mutex_unlock(&pool_lock);
}

static void pool_key_init(void)
{
	pool_key_ok = pthread_key_create(&pool_key, pool_exit) == 0;
}

/* The calling thread's pool: an exited thread's, or a new one. */
static struct hp_reqpool *pool_get(void)
{
	struct hp_reqpool *p = NULL;
	if (__atomic_load_n(&pools_free, __ATOMIC_RELAXED)) {
		pthread_mutex_lock(&pool_lock);
		p = pools_free;
		if (p)
			pools_free = p->free_next;
		pthread_mutex_unlock(&pool_lock);
	}
	if (!p && !(p = calloc(1, sizeof(*p))))
		return NULL;
	pthread_once(&pool_once, pool_key_init);
	if (pool_key_ok)
		pthread_setspecific(pool_key, p);
	tls_pool = p;
	return p;
}

struct hp_req *hp_req_alloc(void)
{
	struct hp_reqpool *p = tls_pool;
	if (!p && !(p = pool_get()))
		return NULL;
	if (!p->local)
		p->local = __atomic_exchange_n(&p->remote, NULL, __ATOMIC_ACQUIRE);
	if (!p->local) {
		enum { CHUNK = 32 };
		struct hp_req *c = calloc(CHUNK, sizeof(*c));
		if (!c)
			return NULL;
		for (int i = 0; i < CHUNK; i++) {
			c[i].pool = p;
			c[i].next = i + 1 < CHUNK ? &c[i + 1] : NULL;
		}
		p->local = c;
	}
	struct hp_req *r = p->local;
	p->local = r->next;
	/* keep the allocated stage and the owner across reuses */
	char *hs = r->heap_stage;
	size_t hc = r->heap_cap;
	memset(r, 0, req_clear);
	r->pool = p;
	r->heap_stage = hs;
	r->heap_cap = hc;
	r->st = MPI_DATATYPE_NULL;
	r->big = MPI_DATATYPE_NULL;
	r->half_req = MPI_REQUEST_NULL;
	return r;
}

char *hp_req_stage_heap(struct hp_req *r, size_t n)
{
	char *p = realloc(r->heap_stage, n);
	if (!p)
		return NULL;
	r->heap_stage = p;
	r->heap_cap = n;
	return p;
}

void hp_req_free(struct hp_req *r)
{
	if (!r)
		return;
	struct hp_reqpool *p = r->pool;
	if (p == tls_pool) {
		r->next = p->local;
		p->local = r;
		return;
	}
	struct hp_req *head = __atomic_load_n(&p->remote, __ATOMIC_RELAXED);
	do
		r->next = head;
	while (!__atomic_compare_exchange_n(&p->remote, &head, r, 1, __ATOMIC_RELEASE,
					    __ATOMIC_RELAXED));
}

/* ---- table -------------------------------------------------------------- */

static void note_live(int64_t d)
{
	uint64_t live = __atomic_add_fetch(&T.live, (uint64_t)d, __ATOMIC_RELAXED);
	if (d > 0) {
		uint64_t m = __atomic_load_n(&T.live_max, __ATOMIC_RELAXED);
		while (live > m && !__atomic_compare_exchange_n(&T.live_max, &m, live, 1,
								__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			;
	}
}

int hp_req_insert(uintptr_t key, struct hp_req *r)
{
	__atomic_add_fetch(&T.inserts, 1, __ATOMIC_RELAXED);
	note_live(1);
	if (T.s) {
		uint32_t h = hash_key(key);
		for (uint32_t i = 0; i < HP_REQ_PROBE; i++) {
			struct slot *s = &T.s[(h + i) & T.mask];
			uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
			if (k != K_EMPTY && k != K_TOMB)
				continue;
			if (!__atomic_compare_exchange_n(&s->key, &k, K_BUSY, 0, __ATOMIC_ACQUIRE,
							 __ATOMIC_RELAXED))
				continue;
			s->r = r;
			__atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
			uint64_t pm = __atomic_load_n(&T.probes_max, __ATOMIC_RELAXED);
			if (i + 1 > pm)
				__atomic_store_n(&T.probes_max, i + 1, __ATOMIC_RELAXED);
			return 0;
		}
	}
	struct ovf *o = malloc(sizeof(*o));
	if (!o)
		return 1; /* lost: the completion will count it as untracked */
	o->key = key;
	o->r = r;
	o->dead = 0;
	pthread_mutex_lock(&T.ovf_lock);
	o->next = T.ovf;
	T.ovf = o;
	__atomic_add_fetch(&T.novf, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&T.ovf_lock);
	__atomic_add_fetch(&T.overflow, 1, __ATOMIC_RELAXED);
	return 1;
}

int hp_req_claim(uintptr_t key, struct hp_req_claim *c)
{
	c->r = NULL;
	c->slot = NULL;
	c->key = key;
	if (key == K_EMPTY || key == K_TOMB || key == K_BUSY || (key & K_CLAIMED))
		return 0;
	if (T.s) {
		uint32_t h = hash_key(key);
		for (uint32_t i = 0; i < HP_REQ_PROBE; i++) {
			struct slot *s = &T.s[(h + i) & T.mask];
			uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
			if (k == K_EMPTY)
				break;
			if (k != key)
				continue;
			if (!__atomic_compare_exchange_n(&s->key, &k, key | K_CLAIMED, 0,
							 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
				continue; /* claimed or reused meanwhile */
			c->r = s->r;
			c->slot = s;
			return 1;
		}
	}
	if (__atomic_load_n(&T.novf, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&T.ovf_lock);
		for (struct ovf *o = T.ovf; o; o = o->next)
			if (!o->dead && o->key == key && o->r) {
				c->r = o->r;
				o->r = NULL;
				c->slot = o;
				break;
			}
		pthread_mutex_unlock(&T.ovf_lock);
		if (c->r) {
			c->slot = (void *)((uintptr_t)c->slot | 1); /* tag: overflow node */
			return 1;
		}
	}
	return 0;
}

void hp_req_release(struct hp_req_claim *c)
{
	if (!c->r)
		return;
	note_live(-1);
	uintptr_t tagged = (uintptr_t)c->slot;
	if (tagged & 1) {
		struct ovf *o = (struct ovf *)(tagged & ~(uintptr_t)1);
		pthread_mutex_lock(&T.ovf_lock);
		for (struct ovf **pp = &T.ovf; *pp; pp = &(*pp)->next)
			if (*pp == o) {
				*pp = o->next;
				break;
			}
		__atomic_sub_fetch(&T.novf, 1, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&T.ovf_lock);
		free(o);
	} else {
		struct slot *s = c->slot;
		__atomic_store_n(&s->key, K_TOMB, __ATOMIC_RELEASE);
	}
	c->r = NULL;
}

void hp_req_unclaim(struct hp_req_claim *c)
{
	if (!c->r)
		return;
	uintptr_t tagged = (uintptr_t)c->slot;
	if (tagged & 1) {
		struct ovf *o = (struct ovf *)(tagged & ~(uintptr_t)1);
		pthread_mutex_lock(&T.ovf_lock);
		o->r = c->r;
		pthread_mutex_unlock(&T.ovf_lock);
	} else {
		struct slot *s = c->slot;
		__atomic_store_n(&s->key, c->key, __ATOMIC_RELEASE);
	}
	c->r = NULL;
}

void hp_reqtab_stats(struct hp_reqtab_stats *s)
{
	s->cap = T.s ? T.mask + 1 : 0;
	s->inserts = __atomic_load_n(&T.inserts, __ATOMIC_RELAXED);
	s->overflow = __atomic_load_n(&T.overflow, __ATOMIC_RELAXED);
	s->live_max = __atomic_load_n(&T.live_max, __ATOMIC_RELAXED);
	s->probes_max = __atomic_load_n(&T.probes_max, __ATOMIC_RELAXED);
}
