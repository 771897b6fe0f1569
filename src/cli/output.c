/*
 * output.c - rendering a command's document in the --format asked for
 * (see output.h).  The renderer is looked up by the format's name, so a
 * new renderer needs no change here once the option parser accepts its
 * name.
 */
#include "cli/output.h"
#include "render/render.h"

/* The --format name of fmt (the names cli_parse_format() accepts). */
static const char *cli_format_name(enum cli_format fmt)
{
	switch (fmt) {
	case CLI_FORMAT_JSON:
		return "json";
	case CLI_FORMAT_CSV:
		return "csv";
	case CLI_FORMAT_MARKDOWN:
		return "markdown";
	default:
		return "table";
	}
}

int cli_render(struct buf *out, const struct doc *d, enum cli_format fmt, int color)
{
	struct render_opts o = {color, 0};

	return render_doc(out, cli_format_name(fmt), d, &o);
}

int cli_output(struct buf *out, cli_doc_fn build, const void *ctx, enum cli_format fmt, int color)
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
