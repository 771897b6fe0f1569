/*
 * output.c - rendering a command's document in the --format asked for
 * (see output.h).  The format is a renderer's name, checked by the
 * --format option against the renderer registry, so a new renderer needs
 * no change here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/output.h"
#include "render/render.h"
#include "scopedb/err.h"

int cli_render(struct buf *out, const struct doc *d, const char *fmt, int color)
{
	struct render_opts o = {color, 0};

	return render_doc(out, fmt, d, &o);
}

int cli_output(struct buf *out, cli_doc_fn build, const void *ctx, const char *fmt, int color)
{
	struct doc d;
	int rc;

	doc_init(&d);
	rc = build(&d, ctx);
	if (!rc)
		rc = cli_render(out, &d, fmt, color);
	doc_release(&d);
	return rc;
}

int cli_print_doc(cli_doc_fn build, const void *ctx, const char *fmt, int color, int ok)
{
	struct buf out = BUF_INIT;
	int code;

	if (cli_output(&out, build, ctx, fmt, color)) {
		code = cli_error();
	} else {
		fwrite(out.data ? out.data : "", 1, out.len, stdout);
		code = cli_finish(ok);
	}
	buf_release(&out);
	return code;
}

/* The FORMAT of "FORMAT=FILE" (eq points at the '='), malloc'ed. */
static char *cli_output_format(const char *arg, const char *eq)
{
	char *f = malloc((size_t)(eq - arg) + 1);

	if (!f) {
		err_nomem();
		return NULL;
	}
	memcpy(f, arg, (size_t)(eq - arg));
	f[eq - arg] = '\0';
	return f;
}

int cli_outputs_check(const char *const *outs, size_t n, const char *allowed)
{
	const char *f;
	size_t i;

	for (i = 0; i < n; i++) {
		const char *eq = strchr(outs[i], '=');
		char *name;
		int rc;

		if (!eq || eq == outs[i] || !eq[1])
			return err_set(ERR_USAGE, "invalid --output '%s': expected FORMAT=FILE",
				       outs[i]);
		name = cli_output_format(outs[i], eq);
		if (!name)
			return ERR_NOMEM;
		rc = cli_parse_format(&f, name, allowed);
		free(name);
		if (rc) {
			/* the choices of the --format message */
			char *choices = util_strdup(strstr(err_msg(), "choose from"));

			rc = choices
				 ? err_set(ERR_USAGE, "invalid --output '%s': unknown format; %s",
					   outs[i], choices)
				 : ERR_NOMEM;
			free(choices);
			return rc;
		}
	}
	return 0;
}

/* One --output file being written: its format, path and temporary file. */
struct cli_outfile {
	const char *arg; /* FORMAT=FILE as given */
	char *fmt;
	const char *path;
	char *tmp; /* NULL once renamed */
	int fd;
};

/* Create o's temporary file beside o->path, with the mode a new file gets. */
static int cli_outfile_open(struct cli_outfile *o, const char *arg)
{
	const char *eq = strchr(arg, '=');
	mode_t mask = umask(0);

	umask(mask);
	o->arg = arg;
	o->path = eq + 1;
	o->fd = -1;
	o->fmt = cli_output_format(arg, eq);
	o->tmp = malloc(strlen(o->path) + sizeof(".tmp.XXXXXX"));
	if (!o->fmt || !o->tmp)
		return err_nomem();
	sprintf(o->tmp, "%s.tmp.XXXXXX", o->path);
	o->fd = mkstemp(o->tmp);
	if (o->fd < 0 || fchmod(o->fd, 0666 & ~mask) < 0) {
		int e = errno;

		if (o->fd < 0) {
			free(o->tmp);
			o->tmp = NULL;
		}
		return err_set(ERR_IO, "cannot write --output '%s': %s", arg, strerror(e));
	}
	return 0;
}

/* Write all of data to o's temporary file and close it. */
static int cli_outfile_write(struct cli_outfile *o, const struct buf *data)
{
	size_t off = 0;
	int rc = 0;

	while (off < data->len && !rc) {
		ssize_t k = write(o->fd, data->data + off, data->len - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			rc = -1;
		else
			off += (size_t)k;
	}
	if (close(o->fd) < 0)
		rc = -1;
	o->fd = -1;
	if (rc)
		return err_set(ERR_IO, "cannot write --output '%s': %s", o->arg, strerror(errno));
	return 0;
}

int cli_print_doc_outputs(cli_doc_fn build, const void *ctx, const char *fmt, int color, int ok,
			  const char *const *outs, size_t n)
{
	struct cli_outfile *files = util_calloc(n, sizeof(*files));
	struct buf out = BUF_INIT, fb = BUF_INIT;
	struct doc d;
	size_t i;
	int rc, code;

	doc_init(&d);
	if (!files) {
		rc = ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++)
		files[i].fd = -1;
	for (i = 0, rc = 0; i < n && !rc; i++)
		rc = cli_outfile_open(&files[i], outs[i]);
	if (!rc)
		rc = build(&d, ctx);
	if (!rc)
		rc = cli_render(&out, &d, fmt, color);
	for (i = 0; i < n && !rc; i++) {
		fb.len = 0;
		rc = cli_render(&fb, &d, files[i].fmt, 0);
		if (!rc)
			rc = cli_outfile_write(&files[i], &fb);
	}
	for (i = 0; i < n && !rc; i++) {
		if (rename(files[i].tmp, files[i].path) < 0)
			rc = err_set(ERR_IO, "cannot write --output '%s': %s", files[i].arg,
				     strerror(errno));
		else
			free(files[i].tmp), files[i].tmp = NULL;
	}
out:
	if (rc) {
		code = cli_error();
	} else {
		fwrite(out.data ? out.data : "", 1, out.len, stdout);
		code = cli_finish(ok);
	}
	for (i = 0; files && i < n; i++) {
		if (files[i].fd >= 0)
			close(files[i].fd);
		if (files[i].tmp)
			unlink(files[i].tmp);
		free(files[i].tmp);
		free(files[i].fmt);
	}
	free(files);
	doc_release(&d);
	buf_release(&out);
	buf_release(&fb);
	return code;
}
