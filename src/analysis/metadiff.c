/*
 * metadiff.c - the metadata keys that differ between two runs (see
 * metadiff.h).  A merge of the two key-sorted lists; no store access.  How
 * they print is the output layer's (report_meta_*() in render/report.h).
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/metadiff.h"
#include "scopedb/store.h"

int metadiff_is_volatile(const char *key)
{
	static const char *const keys[] = {
	    "timestamp",      "start_time_ns",	      "finalize_time_ns",
	    "label",	      "SLURM_JOB_ID",	      "SLURM_JOBID",
	    "SLURM_TASK_PID", "SLURM_JOB_START_TIME", "SLURM_JOB_END_TIME",
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return 1;
	return 0;
}

void metadiff_free(struct metadiff_change *c, size_t n)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < n; i++) {
		free(c[i].key);
		free(c[i].a);
		free(c[i].b);
	}
	free(c);
}

int metadiff_compute(struct metadiff_change **out, size_t *n, const struct store_meta *a,
		     const struct store_meta *b, int all)
{
	struct metadiff_change *v = NULL, *ch;
	size_t i = 0, j = 0, len = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (a->n + b->n == 0)
		return 0;
	v = calloc(a->n + b->n, sizeof(*v));
	if (!v)
		return err_nomem();
	while (i < a->n || j < b->n) {
		int c = i >= a->n ? 1 : j >= b->n ? -1 : strcmp(a->keys[i], b->keys[j]);
		const char *key = c <= 0 ? a->keys[i] : b->keys[j];
		const char *va = c <= 0 ? a->values[i] : NULL;
		const char *vb = c >= 0 ? b->values[j] : NULL;

		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
		if ((va && vb && !strcmp(va, vb)) || (!all && metadiff_is_volatile(key)))
			continue;
		ch = &v[len++];
		ch->key = util_strdup(key);
		ch->a = util_strdup(va);
		ch->b = util_strdup(vb);
		if (!ch->key || (va && !ch->a) || (vb && !ch->b)) {
			rc = ERR_NOMEM;
			goto out;
		}
	}
	if (len) {
		*out = v;
		*n = len;
		v = NULL;
	}
out:
	metadiff_free(v, len);
	return rc;
}
