/* tests/counting/hp_kv.c - print a kv section of a profile as key=value
 * lines (the tests' reader for HP_SEC_CALIB and HP_SEC_COUNTING), or the
 * region table with `regions`.
 *
 * usage: hp_kv FILE.hyp|DIR calib|counting|meta|regions|probe|threads
 * With a directory, the first *.hyp file in it.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"

static int first_hyp(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	int rc = -1;
	while ((e = readdir(d)))
		if (strlen(e->d_name) > 4 && !strcmp(e->d_name + strlen(e->d_name) - 4, ".hyp")) {
			snprintf(out, len, "%s/%s", dir, e->d_name);
			rc = 0;
			break;
		}
	closedir(d);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: hp_kv FILE.hyp|DIR calib|counting|meta|regions|probe|threads\n");
		return 2;
	}
	char path[4096], err[512];
	if (first_hyp(argv[1], path, sizeof(path)) != 0)
		snprintf(path, sizeof(path), "%s", argv[1]);
	struct hp_prof *p;
	if (hp_prof_read(path, &p, err, sizeof(err)) != 0) {
		fprintf(stderr, "hp_kv: %s: %s\n", path, err);
		return 1;
	}
	if (!strcmp(argv[2], "probe")) { /* every thread's probe tree, raw */
		for (size_t t = 0; t < p->nthreads; t++)
			for (uint32_t i = 0; i < p->threads[t].nprobe; i++) {
				const struct cct_node *n = &p->threads[t].probe[i];
				printf("t%zu %u parent %d key %#llx flags %#x target %d calls %llu incl %llu incl_comp %llu%s%s\n",
				       t, i, (int)n->parent, (unsigned long long)n->key, n->flags,
				       (int)n->target, (unsigned long long)n->calls,
				       (unsigned long long)n->incl, (unsigned long long)n->incl_comp,
				       n->flags & CCT_F_EXCLUDED ? " excluded" : "",
				       n->flags & CCT_F_FOLDED ? " folded" : "");
			}
		hp_prof_free(p);
		return 0;
	}
	if (!strcmp(argv[2], "threads")) { /* one line per THREAD section */
		for (size_t t = 0; t < p->nthreads; t++) {
			const struct hp_kvlist *kv = &p->threads[t].kv;
			const char *name = hp_kv_str(kv, "name", "");
			printf("thread %zu name %s tid %.0f merged %.0f probe_events %.0f\n", t, name,
			       hp_kv_f64(kv, "tid", -1), hp_kv_f64(kv, "merged_threads", 1),
			       hp_kv_f64(kv, "probe_events", 0));
		}
		hp_prof_free(p);
		return 0;
	}
	if (!strcmp(argv[2], "regions")) {
		for (size_t i = 0; i < p->nregions; i++)
			printf("%llu %s %s:%u\n", (unsigned long long)p->regions[i].id, p->regions[i].name,
			       p->regions[i].file, p->regions[i].line);
		hp_prof_free(p);
		return 0;
	}
	uint32_t type = !strcmp(argv[2], "calib") ? HP_SEC_CALIB
			: !strcmp(argv[2], "counting") ? HP_SEC_COUNTING
						       : HP_SEC_META;
	const struct hp_section *s = hp_prof_section(p, type);
	struct hp_kvlist kv = {0};
	if (!s || hp_kv_parse(s->data, s->len, &kv) != 0) {
		fprintf(stderr, "hp_kv: %s: no readable %s section\n", path, argv[2]);
		hp_prof_free(p);
		return 1;
	}
	for (size_t i = 0; i < kv.n; i++) {
		const struct hp_kv *v = &kv.v[i];
		if (v->type == HP_KV_STR)
			printf("%s=%s\n", v->key, v->s);
		else if (v->type == HP_KV_U64)
			printf("%s=%llu\n", v->key, (unsigned long long)v->u);
		else if (v->type == HP_KV_I64)
			printf("%s=%lld\n", v->key, (long long)v->i);
		else
			printf("%s=%.9g\n", v->key, v->d);
	}
	hp_kv_free(&kv);
	hp_prof_free(p);
	return 0;
}
