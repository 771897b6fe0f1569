/*
 * doc.h - the document model of every command's output.  A command builds
 * a struct doc; one renderer per format (render.h) prints any document.
 *
 * A document is an ordered list of blocks for the human formats and the
 * CSV table, plus a tree of values for JSON:
 *   - blocks: fields ("Key: value"), lines (notes, lists), markdown bullet
 *     items, headings (with a level), blank lines and typed tables.  Each
 *     block carries the set of formats (DOC_F_*) it appears in, so where
 *     the formats disagree (markdown puts the verdict on top, the terminal
 *     shows a bar column) the document says so, not the renderer.
 *   - text is a list of spans; a span is escaped by the renderer for its
 *     format unless it is DOC_RAW (trusted text such as metric names, which
 *     markdown and the terminal print as is), and may be emphasised
 *     (DOC_STRONG: bold in markdown and on the terminal; DOC_BAD /
 *     DOC_GOOD: red / green on a colour terminal).  A DOC_RAW column is
 *     unescaped in markdown only; terminal tables always escape.
 *   - a table has typed columns (enum doc_type) with an alignment, a title
 *     for the human formats, a CSV header and a JSON key (NULL: not in that
 *     format), and cells that may be None (null).  The type decides how a
 *     cell prints: "%.6g" for people, the shortest exact text for machines.
 *   - the JSON tree (doc_json_*) is objects, arrays and scalars; a table can
 *     be a value (an array of one object per row).
 *
 * Building never fails midway: an allocation failure is remembered
 * (sticky) and later calls do nothing; doc_check() returns ERR_NOMEM then.
 * Renderers refuse a failed document.
 *
 * Ownership: the doc owns everything added to it (strings are copied),
 * except column titles, CSV headers and JSON keys given in struct doc_col,
 * which must outlive the doc (static strings).  doc_release() frees all.
 */
#ifndef SCOPEDB_RENDER_DOC_H
#define SCOPEDB_RENDER_DOC_H

#include <stddef.h>
#include <stdint.h>

#include "render/format.h"
#include "render/jsonw.h"

/* The formats a block or column appears in. */
enum {
	DOC_F_TEXT = 1, /* terminal */
	DOC_F_MD = 2,
	DOC_F_CSV = 4,
	DOC_F_JSON = 8,
};
#define DOC_F_HUMAN (DOC_F_TEXT | DOC_F_MD)

/* Span, cell and column flags. */
enum {
	DOC_RAW = 1,	  /* trusted text: markdown and the terminal print it as is */
	DOC_STRONG = 2,	  /* bold */
	DOC_BAD = 4,	  /* red on a colour terminal */
	DOC_GOOD = 8,	  /* green on a colour terminal */
	DOC_COMPACT = 16, /* column: a DOC_LIST is a JSON array without blanks */
	/* column: its DOC_VALUE/DOC_DELTA numbers are durations in seconds,
	 * shown to people with a unit chosen per column ("18.7 ms") and, on
	 * the terminal, aligned on the decimal point; a DOC_VALUE column
	 * without it (imbalance: a percent) prints "%.6g" */
	DOC_SECONDS = 32,
	/* column: its title is untrusted text (a run's label), escaped in
	 * markdown (titles are trusted, printed as is, otherwise) */
	DOC_TITLE_TEXT = 64,
};

enum doc_type {
	DOC_TEXT,	 /* a string; None prints "-" for people */
	DOC_ID,		 /* an exact integer (run ids) */
	DOC_COUNT,	 /* an integral metric value (calls, ranks) */
	DOC_VALUE,	 /* a metric value: seconds, or percent for imbalance */
	DOC_DELTA,	 /* a signed change of a DOC_VALUE */
	DOC_COUNT_DELTA, /* a signed change of a DOC_COUNT */
	DOC_PCT,	 /* a percent change: "+12.5%" */
	DOC_BOOL,	 /* 0/1 in CSV, false/true in JSON */
	DOC_LIST,	 /* strings: joined by "," (people), ";" (CSV); an array */
};

enum doc_align { DOC_LEFT, DOC_RIGHT };

struct doc_col {
	const char *title; /* header for people (NULL: text and markdown skip it) */
	const char *csv;   /* CSV header (NULL: not in CSV) */
	const char *json;  /* JSON key (NULL: not in JSON) */
	enum doc_type type;
	enum doc_align align;
	unsigned fmts;	/* DOC_F_TEXT/DOC_F_MD it is shown in (with a title) */
	unsigned flags; /* DOC_RAW */
	size_t cut;	/* people see at most this many bytes (0: all) */
};

struct doc_cell {
	int null;
	int64_t i;   /* DOC_ID, DOC_BOOL */
	double v;    /* numbers */
	char *s;     /* DOC_TEXT */
	char **list; /* DOC_LIST */
	size_t nlist;
	unsigned flags; /* DOC_STRONG, DOC_BAD, DOC_GOOD */
	char *note;	/* markdown appends " (note)" after the value */
	int has_edge;	/* DOC_PCT: shown to people on v's side of edge */
	double edge;	/* (format_pct_edge(): a check's budget) */
};

enum {
	DOC_TABLE_NOHEADER = 1, /* no header row (people) */
	DOC_TABLE_TRIM = 2,	/* terminal: no trailing blanks (optional last columns) */
	DOC_TABLE_RULE = 4,	/* terminal: underline the header */
};

struct doc;

struct doc_table {
	struct doc *doc;
	struct doc_col *cols;
	size_t ncols;
	struct doc_cell *cells; /* nrows * ncols */
	size_t nrows, cap;
	unsigned flags;		  /* DOC_TABLE_* */
	const char *indent;	  /* terminal: before every line (static) */
	char *empty;		  /* terminal, markdown: printed instead of an empty table */
	enum jsonw_layout layout; /* of the JSON array (objects are inline) */
};

struct doc_span {
	char *s;
	unsigned flags;
};

struct doc_text {
	struct doc_span *v;
	size_t n, cap;
};

enum doc_block_kind {
	DOC_B_FIELD,   /* "Key: value" / "- **Key:** value" */
	DOC_B_LINE,    /* a line of text (notes, lists) */
	DOC_B_ITEM,    /* a bullet "- text" */
	DOC_B_HEADING, /* markdown "### text" (level 3); a line elsewhere */
	DOC_B_BLANK,
	DOC_B_TABLE,
};

struct doc_block {
	enum doc_block_kind kind;
	unsigned fmts;
	char *key; /* DOC_B_FIELD */
	int level; /* DOC_B_HEADING */
	struct doc_text text;
	struct doc_table *table; /* DOC_B_TABLE (owned by the doc) */
};

enum doc_vkind {
	DOC_V_NULL,
	DOC_V_BOOL,
	DOC_V_INT,
	DOC_V_NUM,
	DOC_V_STR,
	DOC_V_OBJ,
	DOC_V_ARR,
	DOC_V_TABLE,
	DOC_V_STRS /* an array of i strings, back to back in s (doc_json_strs()) */
};

struct doc_value {
	enum doc_vkind kind;
	char *key; /* member name inside an object */
	int64_t i;
	double v;
	int is_count; /* DOC_V_NUM printed as an integer */
	char *s;
	enum jsonw_layout layout; /* DOC_V_OBJ, DOC_V_ARR */
	struct doc_value **items;
	size_t n, cap;
	const struct doc_table *table;
};

struct doc {
	int failed;
	struct doc_block *blocks;
	size_t nblocks, cap;
	struct doc_table **tables; /* owned */
	size_t ntables;
	struct doc_value *json; /* root, or NULL */
	/* what the document is, for the formats that name it (JUnit's suite
	 * and classname): name "scopedb.check" and subject "total" give the
	 * classname "scopedb.check.total"; static strings, NULL: unnamed */
	const char *name;
	const char *subject;
	/* a check's findings, for the formats that annotate code (github,
	 * codequality): a table shown in no format by itself (fmts 0), one
	 * row per region the check flags, with the columns DOC_FINDING_*;
	 * NULL: none (any other document) */
	const struct doc_table *findings;
};

/* The columns of doc.findings. */
enum {
	DOC_FINDING_LEVEL,   /* "error" (fails the check) or "warning" (undecided) */
	DOC_FINDING_REGION,  /* the region's name */
	DOC_FINDING_FILE,    /* relative to the repository; None: no location */
	DOC_FINDING_LINE,    /* DOC_ID; None: none */
	DOC_FINDING_TITLE,   /* "scopedb: solve +16.8%" */
	DOC_FINDING_MESSAGE, /* one line: values, change, budget or statistics */
	DOC_FINDING_KEY,     /* what stays the same from run to run: the check
			      * name, metric and region (fingerprints) */
	DOC_FINDING_NCOLS
};

/* The columns of a findings table (DOC_FINDING_*), shown in no format. */
extern const struct doc_col doc_finding_cols[DOC_FINDING_NCOLS];

void doc_init(struct doc *d);
void doc_release(struct doc *d);

/* 0, or ERR_NOMEM (message set) when some addition failed. */
int doc_check(const struct doc *d);

/* Blocks: each returns the block (NULL after a failure), whose text further
 * spans may be appended to with doc_span()/doc_spanf(). */
struct doc_block *doc_field(struct doc *d, unsigned fmts, const char *key);
struct doc_block *doc_line(struct doc *d, unsigned fmts);
struct doc_block *doc_item(struct doc *d, unsigned fmts);
struct doc_block *doc_heading(struct doc *d, unsigned fmts, int level);
void doc_blank(struct doc *d, unsigned fmts);

/* Append s (copied) as a span with flags to b's text (b may be NULL). */
void doc_span(struct doc *d, struct doc_block *b, const char *s, unsigned flags);
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
void doc_spanf(struct doc *d, struct doc_block *b, unsigned flags, const char *fmt, ...);

/* Append items joined by sep as spans (items with flags, sep raw). */
void doc_spans_join(struct doc *d, struct doc_block *b, const char *const *items, size_t n,
		    const char *sep, unsigned flags);

/*
 * A table with the given columns (copied; their strings are borrowed),
 * shown as a block in fmts (DOC_F_TEXT, DOC_F_MD, DOC_F_CSV; 0 for a table
 * only the JSON tree refers to).  CSV prints every CSV table of a document
 * as one: the first one's header, then the rows of all.
 */
struct doc_table *doc_table(struct doc *d, unsigned fmts, const struct doc_col *cols, size_t ncols);

/* Start a row (all cells None); the setters fill the last row. */
void doc_row(struct doc_table *t);
void doc_set_text(struct doc_table *t, size_t col, const char *s); /* NULL: None */
void doc_set_id(struct doc_table *t, size_t col, int64_t v);
void doc_set_num(struct doc_table *t, size_t col, int none, double v);
void doc_set_bool(struct doc_table *t, size_t col, int v);
void doc_set_list(struct doc_table *t, size_t col, const char *const *s, size_t n);
void doc_set_flags(struct doc_table *t, size_t col, unsigned flags);
/* A DOC_PCT cell's edge: people see as many digits as show on which side
 * of it the value lies (a check's budget: "+5.00002%", not "+5%"). */
void doc_set_edge(struct doc_table *t, size_t col, double edge);
void doc_set_note(struct doc_table *t, size_t col, const char *note);
void doc_table_empty(struct doc_table *t, const char *text);

/*
 * JSON tree.  doc_json_root() creates the root (an object or array);
 * doc_json_obj()/doc_json_arr() add a container under parent (with key
 * inside an object; key is ignored inside an array); the others add a
 * scalar.  parent NULL (after a failure) does nothing.
 */
struct doc_value *doc_json_root(struct doc *d, enum doc_vkind kind, enum jsonw_layout layout);
struct doc_value *doc_json_obj(struct doc *d, struct doc_value *parent, const char *key,
			       enum jsonw_layout layout);
struct doc_value *doc_json_arr(struct doc *d, struct doc_value *parent, const char *key,
			       enum jsonw_layout layout);
void doc_json_str(struct doc *d, struct doc_value *parent, const char *key, const char *s);
void doc_json_int(struct doc *d, struct doc_value *parent, const char *key, int64_t v);
void doc_json_num(struct doc *d, struct doc_value *parent, const char *key, double v, int is_count);
void doc_json_bool(struct doc *d, struct doc_value *parent, const char *key, int v);
void doc_json_null(struct doc *d, struct doc_value *parent, const char *key);
void doc_json_strs(struct doc *d, struct doc_value *parent, const char *key, const char *const *s,
		   size_t n, enum jsonw_layout layout);
void doc_json_table(struct doc *d, struct doc_value *parent, const char *key,
		    const struct doc_table *t);

/* Make table t the whole JSON document (an array of row objects). */
void doc_json_root_table(struct doc *d, const struct doc_table *t);

/* How people see a column's numbers: the unit of its durations (a
 * DOC_SECONDS column) and whether "µs" may be printed (else "us"). */
struct doc_numfmt {
	enum format_unit unit;
	int utf8;
};

/* The unit column col of t is shown in: want unless FORMAT_UNIT_AUTO, else
 * the one that suits its largest magnitude (format_unit_pick()); AUTO for
 * a column that holds no durations (no DOC_SECONDS). */
enum format_unit doc_col_unit(const struct doc_table *t, size_t col, enum format_unit want);

/*
 * The text of a cell: for people (terminal, markdown: durations in nf's
 * unit, other values "%.6g", grouped counts, "-" for None, lists joined
 * by ",", cut to the column's width; nf NULL: durations "%.6g" too) or for
 * CSV ("" for None, the shortest exact number, lists joined by ";").
 * Unescaped.
 */
int doc_cell_human(struct buf *out, const struct doc_col *c, const struct doc_cell *cell,
		   const struct doc_numfmt *nf);
int doc_cell_csv(struct buf *out, const struct doc_col *c, const struct doc_cell *cell);

/* The cell at (row, col). */
const struct doc_cell *doc_cell(const struct doc_table *t, size_t row, size_t col);

#endif
