/*
 * same.c - like with like: --same KEY resolved against a reference run
 * into run-filter conditions, and the runs they leave out (see
 * scopedb/same.h).
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/same.h"
#include "scopedb/util.h"
#include "util/suggest.h"

int same_env_keys(char ***keys, size_t *n, const char *env)
{
	const char *p = env, *end;
	char **v = NULL;
	size_t cap = 0;

	*keys = NULL;
	*n = 0;
	while (p && *p) {
		p += strspn(p, ", \t\n");
		end = p + strcspn(p, ", \t\n");
		if (end > p) {
			char **slot = util_push(&v, &cap, n, sizeof(*v));

			if (slot)
				*slot = malloc((size_t)(end - p) + 1);
			if (!slot || !*slot) {
				same_keys_free(v, *n);
				*n = 0;
				return err_nomem();
			}
			memcpy(*slot, p, (size_t)(end - p));
			(*slot)[end - p] = '\0';
		}
		p = end;
	}
	*keys = v;
	return 0;
}

void same_keys_free(char **keys, size_t n)
{
	size_t i;

	for (i = 0; keys && i < n; i++)
		free(keys[i]);
	free(keys);
}

/* The value of key in m, or NULL. */
static const char *same_meta_get(const struct store_meta *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->keys[i], key))
			return m->values[i];
	return NULL;
}

/* 1 when key is already one of s's conditions or skipped keys. */
static int same_seen(const struct same *s, const char *key)
{
	size_t i;

	for (i = 0; i < s->ncond; i++)
		if (!strcmp(s->cond[i].key, key))
			return 1;
	for (i = 0; i < s->nskipped; i++)
		if (!strcmp(s->skipped[i], key))
			return 1;
	return 0;
}

/* ERR_USAGE for a --same key run ref lacks, with its nearest key. */
static int same_missing(const char *key, int64_t ref, const struct store_meta *m)
{
	struct buf hint = BUF_INIT;
	int rc = suggest_hint(&hint, key, (const char *const *)m->keys, m->n);

	if (!rc)
		rc = err_set(ERR_USAGE, "--same '%s': run %lld has no metadata key '%s'%s", key,
			     (long long)ref, key, hint.data ? hint.data : "");
	buf_release(&hint);
	return rc;
}

int same_resolve(struct same *out, struct store *st, int64_t ref, const struct same_spec *spec)
{
	struct store_meta m;
	size_t i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	memset(&m, 0, sizeof(m));
	out->ref = ref;
	if (!ref || !spec || !(spec->nkeys + spec->nimplied))
		return 0;
	out->cond = calloc(spec->nkeys + spec->nimplied, sizeof(*out->cond));
	out->skipped = calloc(spec->nkeys ? spec->nkeys : 1, sizeof(*out->skipped));
	if (!out->cond || !out->skipped) {
		rc = err_nomem();
		goto out;
	}
	rc = store_get_meta(st, &m, ref);
	for (i = 0; !rc && i < spec->nkeys + spec->nimplied; i++) {
		int implied = i >= spec->nkeys;
		const char *key = implied ? spec->implied[i - spec->nkeys] : spec->keys[i];
		const char *v = same_meta_get(&m, key);

		if (same_seen(out, key) || (implied && !v))
			continue;
		if (!v && !spec->from_env) {
			rc = same_missing(key, ref, &m);
		} else if (!v) {
			out->skipped[out->nskipped] = util_strdup(key);
			if (!out->skipped[out->nskipped++])
				rc = err_nomem();
		} else {
			struct filter_meta *c = &out->cond[out->ncond++];

			out->nimplied += (size_t)implied;
			/* a check's rule: a key on one side only is no difference */
			c->or_absent = implied;

			c->key = util_strdup(key);
			c->value = util_strdup(v);
			if (!c->key || !c->value)
				rc = err_nomem();
		}
	}
out:
	store_meta_release(&m);
	if (rc)
		same_release(out);
	return rc;
}

int same_filter(struct filter *out, struct filter_meta **storage, const struct filter *f,
		const struct same *s)
{
	size_t n = (f ? f->nmeta : 0) + s->ncond;

	*storage = NULL;
	if (f)
		*out = *f;
	else
		memset(out, 0, sizeof(*out));
	if (!s->ncond)
		return 0;
	*storage = malloc(n * sizeof(**storage));
	if (!*storage)
		return err_nomem();
	if (f && f->nmeta)
		memcpy(*storage, f->meta, f->nmeta * sizeof(**storage));
	memcpy(*storage + (f ? f->nmeta : 0), s->cond, s->ncond * sizeof(**storage));
	out->meta = *storage;
	out->nmeta = n;
	return 0;
}

/* 1 when id is among ids[0..n). */
static int same_has(const int64_t *ids, size_t n, int64_t id)
{
	while (n--)
		if (ids[n] == id)
			return 1;
	return 0;
}

int same_left_out(size_t *n, struct i64vec *ids, const struct store_run *all, size_t nall,
		  const int64_t *kept, size_t nkept, int64_t anchor, int to_end)
{
	size_t i = 0, seen = 0;

	*n = 0;
	if (anchor)
		for (; i < nall && all[i].id != anchor; i++)
			;
	for (; i < nall && (!nkept || to_end || seen < nkept); i++) {
		if (same_has(kept, nkept, all[i].id)) {
			seen++;
			continue;
		}
		(*n)++;
		if (ids && i64vec_push(ids, all[i].id))
			return err_nomem();
	}
	return 0;
}

int same_apply(struct same *out, struct filter *fs, struct filter_meta **conds, struct store *st,
	       const struct filter *f, const struct same_spec *spec)
{
	struct store_run *all = NULL, *kept = NULL;
	struct filter fa;
	int64_t *ids = NULL;
	size_t nall = 0, nkept = 0, i;
	int rc;

	memset(out, 0, sizeof(*out));
	*conds = NULL;
	if (f)
		*fs = *f;
	else
		memset(fs, 0, sizeof(*fs));
	if (!spec || !(spec->nkeys + spec->nimplied))
		return 0;
	fa = *fs;
	fa.limit = 0;
	rc = store_find_runs(st, &all, &nall, &fa);
	if (!rc && nall)
		rc = same_resolve(out, st, all[0].id, spec);
	if (!rc)
		rc = same_filter(fs, conds, f, out);
	if (!rc && out->ncond)
		rc = store_find_runs(st, &kept, &nkept, fs);
	if (!rc && nkept && !(ids = malloc(nkept * sizeof(*ids))))
		rc = err_nomem();
	for (i = 0; !rc && i < nkept; i++)
		ids[i] = kept[i].id;
	/* the runs left out among those the kept ones span; all of them
	 * when the kept runs are not cut by a --limit (older runs were left
	 * out as well) */
	if (!rc && out->ncond)
		rc = same_left_out(&out->left_out, NULL, all, nall, ids, nkept, 0,
				   fs->limit <= 0 || (int64_t)nkept < fs->limit);
	free(ids);
	store_runs_free(all, nall);
	store_runs_free(kept, nkept);
	if (rc) {
		free(*conds);
		*conds = NULL;
		same_release(out);
	}
	return rc;
}

int same_left_out_listed(struct same *out, struct store *st, const struct filter *f,
			 const struct filter *fs, const int64_t *listed, size_t nlisted, int to_end)
{
	struct store_run *all = NULL, *kept = NULL;
	struct filter fa = *f, fk = *fs;
	size_t nall = 0, nkept = 0, i, end = 0;
	int64_t *ids = NULL;
	int rc;

	fa.limit = fk.limit = 0;
	rc = store_find_runs(st, &all, &nall, &fa);
	if (!rc)
		rc = store_find_runs(st, &kept, &nkept, &fk);
	if (!rc && !(ids = util_calloc(nkept, sizeof(*ids))))
		rc = ERR_NOMEM;
	for (i = 0; !rc && i < nkept; i++)
		ids[i] = kept[i].id;
	/* the span: from the newest selected run to the oldest listed one */
	for (i = 0; !rc && i < nall; i++)
		if (to_end || same_has(listed, nlisted, all[i].id))
			end = i + 1;
	if (!rc)
		rc = same_left_out(&out->left_out, NULL, all, end, ids, nkept, 0, 1);
	free(ids);
	store_runs_free(all, nall);
	store_runs_free(kept, nkept);
	return rc;
}

const char *same_value(const struct same *s, const char *key)
{
	size_t i;

	for (i = 0; s && i < s->ncond; i++)
		if (!strcmp(s->cond[i].key, key))
			return s->cond[i].value;
	return NULL;
}

struct same same_part(const struct same *s, int implied)
{
	struct same v = *s;

	v.ncond = implied ? s->nimplied : s->ncond - s->nimplied;
	v.cond += implied ? s->ncond - s->nimplied : 0;
	v.nimplied = implied ? v.ncond : 0;
	v.left_out = 0;
	v.implied_left = 0;
	return v;
}

size_t same_shown(const struct same *s)
{
	return s->implied_left ? s->ncond : s->ncond - s->nimplied;
}

int same_describe(struct buf *out, const struct same *s)
{
	size_t i, n = same_shown(s);
	int rc = 0;

	for (i = 0; i < n; i++)
		rc |= buf_printf(out, "%s%s = %s", i ? ", " : "", s->cond[i].key, s->cond[i].value);
	return rc ? ERR_NOMEM : 0;
}

void same_release(struct same *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; s->cond && i < s->ncond; i++) {
		free((char *)s->cond[i].key);
		free((char *)s->cond[i].value);
	}
	free(s->cond);
	for (i = 0; s->skipped && i < s->nskipped; i++)
		free(s->skipped[i]);
	free(s->skipped);
	memset(s, 0, sizeof(*s));
}
