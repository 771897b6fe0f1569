/*
 * srcpath.c - a region's source file made relative to the repository (see
 * srcpath.h).
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/srcpath.h"
#include "scopedb/err.h"
#include "scopedb/util.h"
#include "util/git.h"

/* The rest of path after root and a '/' (root without its trailing
 * slashes), or NULL when path is not under root. */
static const char *srcpath_under(const char *path, const char *root)
{
	size_t n;

	if (!root || root[0] != '/')
		return NULL;
	n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n == 1) /* "/": every absolute path */
		return path + 1;
	if (strncmp(path, root, n) || path[n] != '/')
		return NULL;
	return path + n + 1;
}

/*
 * Append the components of rel to out ("a/b"), resolving "." and ".."
 * against what out holds; 1 when a ".." climbs above the start.
 */
static int srcpath_push(struct buf *out, const char *rel, int *rc)
{
	const char *p = rel, *f;
	size_t n;

	while ((f = util_field(&p, '/', &n))) {
		if (!n || (n == 1 && f[0] == '.'))
			continue;
		if (n == 2 && f[0] == '.' && f[1] == '.') {
			char *slash;

			if (!out->len)
				return 1;
			slash = strrchr(out->data, '/');
			out->len = slash ? (size_t)(slash - out->data) : 0;
			out->data[out->len] = '\0';
			continue;
		}
		*rc |= buf_printf(out, "%s%.*s", out->len ? "/" : "", (int)n, f);
	}
	return 0;
}

int srcpath_relative(char **out, const char *file, const char *workdir, const char *top)
{
	struct buf b = BUF_INIT;
	const char *rel;
	int rc = 0, outside = 0;

	*out = NULL;
	if (!file || !*file)
		return 0;
	rc |= buf_puts(&b, "");
	if (file[0] == '/') {
		/* the checkout first: a workdir inside it is a subdirectory */
		rel = srcpath_under(file, top);
		if (!rel)
			rel = srcpath_under(file, workdir);
		if (!rel)
			outside = 1;
		else
			outside = srcpath_push(&b, rel, &rc);
	} else {
		/* relative to workdir: first workdir's place in the repository */
		rel = workdir ? srcpath_under(workdir, top) : NULL;
		if (rel)
			outside = srcpath_push(&b, rel, &rc);
		if (!outside)
			outside = srcpath_push(&b, file, &rc);
	}
	if (rc) {
		buf_release(&b);
		return err_nomem();
	}
	if (outside || !b.len) {
		buf_release(&b);
		return 0;
	}
	*out = buf_finish(&b, 0);
	return *out ? 0 : err_nomem();
}

int srcpath_toplevel(char **out)
{
	static const char *const opts[] = {"--show-toplevel", NULL};
	struct buf b = BUF_INIT;
	enum git_status st;
	int rc;

	*out = NULL;
	rc = git_run(&b, &st, "rev-parse", opts, NULL, NULL);
	if (!rc && st == GIT_OK && git_first_line(b.data)[0] == '/') {
		*out = util_strdup(b.data);
		if (!*out)
			rc = err_nomem();
	}
	buf_release(&b);
	return rc;
}
