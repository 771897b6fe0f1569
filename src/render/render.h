/*
 * render.h - the renderers: one per output format, each printing any
 * document (doc.h) into a buffer.  A renderer is a struct renderer named
 * render_<name>_renderer in its own render_<name>.c, registered by one
 * entry in RENDER_FORMATS (render.c); adding a format (say html) is a new
 * render_html.c plus "X(html)" there.
 *
 *   table     the terminal: "Key: value" fields, aligned tables (colour
 *             when opts->color), lines; markdown-only blocks skipped
 *   markdown  GitHub-flavoured: "- **Key:** value", headings, pipe tables
 *   csv       the CSV tables of the document as one (header + rows)
 *   json      the document's JSON tree, then a newline
 *   junit     JUnit XML: a testcase per row of the data table, a failure
 *             per row marked bad (a check's violations)
 *   github    GitHub workflow commands: an ::error or ::warning per
 *             finding of a check, on its file and line
 *   codequality  GitLab's Code Quality JSON: an issue per finding with a
 *             location
 *
 * Ownership: the renderers are static tables; a renderer appends to the
 * caller's buf and only reads the document.
 */
#ifndef SCOPEDB_RENDER_H
#define SCOPEDB_RENDER_H

#include "render/doc.h"
#include "scopedb/util.h"

struct render_opts {
	int color;    /* ANSI colour (terminal) */
	unsigned fmt; /* the DOC_F_* blocks to show; set by render_doc() */
	/* people's formats: the unit of durations (AUTO: one per column) and
	 * whether the terminal is UTF-8 ("µs", else "us") */
	enum format_unit units;
	int utf8;
};

/* What a renderer needs of a document (struct renderer's needs). */
enum {
	/* Only a comparison's document (diff, check: rows with a verdict,
	 * report_doc()), e.g. JUnit's one testcase per region. */
	RENDER_NEEDS_COMPARISON = 1,
	/* A check's findings (doc.findings, with their source locations:
	 * compare_opts.locations), e.g. GitHub's annotations. */
	RENDER_NEEDS_FINDINGS = 2,
};

struct renderer {
	const char *name; /* the --format value */
	unsigned fmt;	  /* the DOC_F_* blocks it shows (html would show DOC_F_MD's) */
	unsigned needs;	  /* 0: renders any document; else RENDER_NEEDS_* */
	int (*render)(struct buf *out, const struct doc *d, const struct render_opts *o);
};

/*
 * How a line-oriented renderer (terminal, markdown) writes the blocks of a
 * document; render_blocks() walks the blocks it shows and ends each (but a
 * table) with a newline.
 */
struct render_style {
	const char *field_open; /* before a field's key */
	const char *field_sep;	/* between key and value */
	const char *item;	/* before a bullet item's text */
	char heading;		/* repeated level times, then a blank (0: none) */
	int (*spans)(struct buf *out, const struct doc_text *t, const struct render_opts *o);
	int (*table)(struct buf *out, const struct doc_table *t, const struct render_opts *o);
};

int render_blocks(struct buf *out, const struct doc *d, const struct render_opts *o,
		  const struct render_style *how);

/* The i-th registered renderer (registry order), or NULL past the last. */
const struct renderer *render_at(size_t i);

/* The renderer of a --format name (any case; "md" is markdown), or NULL. */
const struct renderer *render_find(const char *name);

/*
 * Append d rendered as format name to out.  0, ERR_NOMEM (also for a
 * document whose building failed), or ERR_GENERIC for an unknown name.
 */
int render_doc(struct buf *out, const char *name, const struct doc *d, const struct render_opts *o);

#endif
