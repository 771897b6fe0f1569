/*
 * output.c - rendering a command's document in the --format asked for
 * (see output.h).  The format is a renderer's name, checked by the
 * --format option against the renderer registry, so a new renderer needs
 * no change here.
 */
#include <stdio.h>

#include "cli/output.h"
#include "render/render.h"

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
