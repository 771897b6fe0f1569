/*
 * render_html.c - the HTML page of "scopedb report" (see render_html.h):
 * the writer the page is made with (html_charts.h), the page skeleton with
 * its light and dark styles and Content-Security-Policy, and the verdict
 * section (the blocks of the check's document, as markdown shows them, in
 * HTML).  The SVG charts (trends, box plots, rank heatmaps) are
 * html_charts.c's; the call tree of report --by path is html_tree.c's.
 *
 * Colours are the Okabe-Ito palette (safe for the common colour-vision
 * deficiencies), and every colour has a text beside it: "A"/"B" marks,
 * signed percentages, row titles.  Writes are sticky: the helpers do
 * nothing once an allocation failed, and the page returns ERR_NOMEM.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/doc.h"
#include "render/escape.h"
#include "render/format.h"
#include "render/html_charts.h"
#include "render/render_html.h"
#include "render/report.h"
#include "scopedb/err.h"
#include "scopedb/stats.h"
#include "util/sha256.h"

void html_puts(struct html *h, const char *s)
{
	if (!h->rc && buf_puts(h->out, s))
		h->rc = ERR_NOMEM;
}

void html_printf(struct html *h, const char *fmt, ...)
{
	struct buf tmp = BUF_INIT;
	va_list ap;
	char small[256];
	int n;

	if (h->rc)
		return;
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		html_puts(h, small);
		return;
	}
	va_start(ap, fmt);
	if (buf_grow(&tmp, (size_t)n + 1))
		h->rc = ERR_NOMEM;
	else
		vsnprintf(tmp.data, (size_t)n + 1, fmt, ap);
	va_end(ap);
	html_puts(h, tmp.data ? tmp.data : "");
	buf_release(&tmp);
}

void html_text(struct html *h, const char *s)
{
	if (!h->rc && escape_html(h->out, s ? s : ""))
		h->rc = ERR_NOMEM;
}

void html_value(char *s, size_t len, enum stats_metric m, double v)
{
	if (isnan(v))
		snprintf(s, len, "-");
	else if (stats_metric_is_count(m))
		format_value(s, len, 0, v, 1); /* 10.5 calls shown as such */
	else if (m == STATS_IMBALANCE)
		snprintf(s, len, "%.3g%%", v);
	else
		format_duration(s, len, v, format_unit_pick(fabs(v)), 0, 1);
}

void html_secs(char *s, size_t len, double v)
{
	format_duration(s, len, v, format_unit_pick(fabs(v)), 0, 1);
}

size_t html_hover_points(size_t nregions)
{
	size_t k = nregions ? 3000 / nregions : 50;

	return k < 12 ? 12 : k > 50 ? 50 : k;
}

/* ---- the verdict: the check's document -------------------------------- */

static void html_spans(struct html *h, const struct doc_text *t)
{
	size_t i;

	for (i = 0; i < t->n; i++) {
		const char *cls = t->v[i].flags & DOC_BAD    ? "bad"
				  : t->v[i].flags & DOC_GOOD ? "good"
							     : NULL;

		if (t->v[i].flags & DOC_STRONG)
			html_puts(h, "<b>");
		if (cls)
			html_printf(h, "<span class=\"%s\">", cls);
		html_text(h, t->v[i].s);
		if (cls)
			html_puts(h, "</span>");
		if (t->v[i].flags & DOC_STRONG)
			html_puts(h, "</b>");
	}
}

/* <tag>t</tag> and a newline. */
static void html_element(struct html *h, const char *tag, const struct doc_text *t)
{
	html_printf(h, "<%s>", tag);
	html_spans(h, t);
	html_printf(h, "</%s>\n", tag);
}

static void html_table(struct html *h, const struct doc_table *t)
{
	struct doc_numfmt *nf = calloc(t->ncols ? t->ncols : 1, sizeof(*nf));
	struct buf cell = BUF_INIT;
	size_t r, c;

	if (!nf) {
		h->rc = ERR_NOMEM;
		return;
	}
	for (c = 0; c < t->ncols; c++) {
		nf[c].unit = doc_col_unit(t, c, FORMAT_UNIT_AUTO);
		nf[c].utf8 = 1;
	}
	html_puts(h, "<table class=\"sortable\"><thead><tr>");
	for (c = 0; c < t->ncols; c++) {
		if (!(t->cols[c].fmts & DOC_F_MD))
			continue;
		html_printf(h, "<th%s>", t->cols[c].align == DOC_RIGHT ? " class=\"num\"" : "");
		html_text(h, t->cols[c].title ? t->cols[c].title : "");
		html_puts(h, "</th>");
	}
	html_puts(h, "</tr></thead><tbody>\n");
	for (r = 0; r < t->nrows && !h->rc; r++) {
		html_puts(h, "<tr>");
		for (c = 0; c < t->ncols; c++) {
			const struct doc_cell *x = doc_cell(t, r, c);
			unsigned fl = x->flags | t->cols[c].flags;

			if (!(t->cols[c].fmts & DOC_F_MD))
				continue;
			cell.len = 0;
			if (doc_cell_human(&cell, &t->cols[c], x, &nf[c]))
				h->rc = ERR_NOMEM;
			html_printf(h, "<td class=\"%s%s\">",
				    t->cols[c].align == DOC_RIGHT ? "num" : "txt",
				    fl & DOC_BAD    ? " bad"
				    : fl & DOC_GOOD ? " good"
						    : "");
			if (fl & DOC_STRONG)
				html_puts(h, "<b>");
			html_text(h, cell.len ? cell.data : "");
			if (fl & DOC_STRONG)
				html_puts(h, "</b>");
			if (x->note) {
				html_puts(h, " (");
				html_text(h, x->note);
				html_puts(h, ")");
			}
			html_puts(h, "</td>");
		}
		html_puts(h, "</tr>\n");
	}
	html_puts(h, "</tbody></table>\n");
	buf_release(&cell);
	free(nf);
}

/* The markdown blocks of d in HTML (fields, lines, items, headings,
 * tables); the verdict's own formatting, not a second one. */
static void html_doc(struct html *h, const struct doc *d)
{
	size_t i;
	int in_list = 0;

	for (i = 0; i < d->nblocks && !h->rc; i++) {
		const struct doc_block *b = &d->blocks[i];

		if (!(b->fmts & DOC_F_MD))
			continue;
		if (in_list && b->kind != DOC_B_ITEM) {
			html_puts(h, "</ul>\n");
			in_list = 0;
		}
		switch (b->kind) {
		case DOC_B_FIELD:
			html_puts(h, "<p class=\"field\"><b>");
			html_text(h, b->key);
			html_puts(h, ":</b> ");
			html_spans(h, &b->text);
			html_puts(h, "</p>\n");
			break;
		case DOC_B_LINE:
			html_element(h, "p", &b->text);
			break;
		case DOC_B_ITEM:
			if (!in_list)
				html_puts(h, "<ul>\n");
			in_list = 1;
			html_element(h, "li", &b->text);
			break;
		case DOC_B_HEADING:
			html_element(h, "h3", &b->text);
			break;
		case DOC_B_BLANK:
			break;
		case DOC_B_TABLE:
			html_table(h, b->table);
			break;
		}
	}
	if (in_list)
		html_puts(h, "</ul>\n");
}

static void html_verdict(struct html *h, const struct reportdata *rd, const struct compare_opts *co)
{
	struct compare_opts o = *co;
	struct doc d;

	html_puts(h, "<section id=\"verdict\"><h2>Verdict</h2>\n");
	if (!rd->compared) {
		html_puts(h, "<p>No runs compared: give BASELINE and CANDIDATE for a verdict.</p>"
			     "</section>\n");
		return;
	}
	o.check = 1;
	doc_init(&d);
	report_doc(&d, &rd->cmp, &o);
	if (doc_check(&d))
		h->rc = ERR_NOMEM;
	else
		html_doc(h, &d);
	doc_release(&d);
	html_puts(h, "</section>\n");
}

/* ---- the page --------------------------------------------------------------- */

static const char html_css[] =
    "\n"
    ":root{--bg:#fff;--fg:#1a1a1a;--mute:#666;--grid:#ddd;--line:#1a1a1a;--a:#0072B2;"
    "--b:#D55E00;--bad:#D55E00;--good:#009E73;--h3:#e6e6e6;--card:#f7f7f7}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#161616;--fg:#e8e8e8;--mute:#aaa;"
    "--grid:#444;--line:#e8e8e8;--a:#56B4E9;--b:#E69F00;--bad:#E69F00;--good:#009E73;"
    "--h3:#3a3a3a;--card:#202020}}\n"
    "body{background:var(--bg);color:var(--fg);font:14px/1.4 system-ui,sans-serif;"
    "margin:1em auto;max-width:1200px;padding:0 1em}\n"
    "h1{font-size:1.5em}h2{border-bottom:1px solid var(--grid);margin-top:1.5em}\n"
    "table{border-collapse:collapse}td,th{padding:2px 8px;border-bottom:1px solid "
    "var(--grid)}th{cursor:pointer;text-align:left}.num{text-align:right;"
    "font-variant-numeric:tabular-nums}\n"
    ".bad{color:var(--bad);font-weight:600}.good{color:var(--good);font-weight:600}\n"
    "td.txt,p{overflow-wrap:anywhere}td.num{white-space:nowrap}\n"
    ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(250px,1fr));gap:8px}\n"
    "figure{margin:0;background:var(--card);padding:4px}figcaption{font-size:12px;"
    "overflow-wrap:anywhere}\n"
    "svg.chart{display:block;width:100%;height:auto}svg.dist{width:260px}"
    "svg.heat{width:auto;max-width:100%}svg.heat text{font-size:11px}\n"
    "svg text{fill:var(--fg);font:9px system-ui,sans-serif}.ax{fill:var(--mute)}\n"
    ".frame{fill:none;stroke:var(--grid)}.line{fill:none;stroke:var(--line);"
    "stroke-width:1.2}.pts circle{fill:var(--line);fill-opacity:.25}\n"
    ".cp line{stroke:#CC79A7;stroke-width:1.5}.cp text{fill:#CC79A7;font-weight:700}"
    ".cp.prov line{stroke-dasharray:3 3}"
    ".mark line{stroke-dasharray:2 2}.ma line,.ma circle{stroke:var(--a);fill:var(--a)}"
    ".mb line,.mb circle{stroke:var(--b);fill:var(--b)}.ma text{fill:var(--a)}"
    ".mb text{fill:var(--b)}\n"
    ".box line{stroke-width:1.5}.box rect{fill-opacity:.6}.ma rect{fill:var(--a)}"
    ".mb rect{fill:var(--b)}.box .p99{stroke-width:2}\n"
    ".ka{color:var(--a);font-weight:700}.kb{color:var(--b);font-weight:700}"
    ".kp{color:#CC79A7;font-weight:700}.kc{color:#0072B2}.kd{color:#E69F00}\n"
    ".h0{fill:#0072B2}.h1{fill:#56B4E9}.h2{fill:#A6D3EF}.h3{fill:var(--h3)}"
    ".h4{fill:#F5CF85}.h5{fill:#E69F00}.h6{fill:#D55E00}\n"
    ".legend span{margin-right:1em;white-space:nowrap}svg.sw{width:10px;height:10px;"
    "display:inline}\n"
    ".meta{color:var(--mute)}input{font:inherit}\n"
    "svg.bars{width:200px;height:12px}.ta{fill:var(--a)}.tb{fill:var(--b)}"
    "tr.bad td.txt{color:var(--bad)}.lv1{padding-left:1.5em}.lv2{padding-left:3em}"
    ".lv3{padding-left:4.5em}.lv4{padding-left:6em}.lv5{padding-left:7.5em}"
    ".lv6{padding-left:9em}.lv7{padding-left:10.5em}.lv8{padding-left:12em}"
    ".lv9{padding-left:13.5em}.lv10{padding-left:15em}.lv11{padding-left:16.5em}"
    ".lv12{padding-left:18em}\n";

/* Sorting (click a column title; by a cell's data-v when it has one, as
 * the distributions' cells, each in its own unit, do; numbers before text)
 * and filtering (regions by name): the page is complete without it; the
 * filter box only appears when it runs. */
static const char html_js[] =
    "\n"
    "(function(){\n"
    "var q=document.getElementById('q');document.getElementById('filter').hidden=false;\n"
    "q.addEventListener('input',function(){var s=q.value.toLowerCase();\n"
    "document.querySelectorAll('.region').forEach(function(e){var n=e.querySelector('.rn');\n"
    "e.hidden=!!s&&!!n&&n.textContent.toLowerCase().indexOf(s)<0;});\n"
    "document.querySelectorAll('#verdict tbody tr').forEach(function(e){\n"
    "e.hidden=!!s&&e.cells[0].textContent.toLowerCase().indexOf(s)<0;});});\n"
    "function key(e){var d=e.getAttribute('data-v'),t=e.textContent;\n"
    "var v=d!==null?parseFloat(d):parseFloat(t.replace(/[+,%]/g,''));return isNaN(v)?t:v;}\n"
    "function cmp(a,c){var m=typeof a==='number',n=typeof c==='number';\n"
    "return m!==n?(m?-1:1):a<c?-1:a>c?1:0;}\n"
    "document.querySelectorAll('table.sortable').forEach(function(t){\n"
    "t.querySelectorAll('th').forEach(function(th,i){var up=1;\n"
    "th.addEventListener('click',function(){var b=t.tBodies[0];up=-up;\n"
    "Array.prototype.slice.call(b.rows).sort(function(x,y){\n"
    "return "
    "cmp(key(x.cells[i]),key(y.cells[i]))*up;}).forEach(function(r){b.appendChild(r);});});});});\n"
    "})();\n";

/* "'sha256-BASE64'" of text, a source of the page's Content-Security-Policy. */
static void html_csp_hash(struct html *h, const char *text)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char d[33];
	char out[45];
	struct sha256 s;
	size_t i, k = 0;

	sha256_init(&s);
	sha256_update(&s, text, strlen(text));
	sha256_digest(d, &s);
	d[32] = 0;
	for (i = 0; i < 33; i += 3) {
		unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | d[i + 2];

		out[k++] = b64[v >> 18 & 63];
		out[k++] = b64[v >> 12 & 63];
		out[k++] = i + 1 < 32 ? b64[v >> 6 & 63] : '=';
		out[k++] = i + 2 < 32 ? b64[v & 63] : '=';
	}
	out[k] = '\0';
	html_printf(h, "'sha256-%s'", out);
}

/* The page's Content-Security-Policy: nothing may load or run but its own
 * style and script (by their hashes); no request, no form, no base URL. */
static void html_csp(struct html *h)
{
	html_puts(h, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		     "style-src ");
	html_csp_hash(h, html_css);
	html_puts(h, "; script-src ");
	html_csp_hash(h, html_js);
	html_puts(h, "; base-uri 'none'; form-action 'none'\">\n");
}

int render_html_report(struct buf *out, const struct reportdata *rd, const struct compare_opts *co)
{
	struct html h = {out, 0, rd->metric};
	size_t i, hist = 0;

	for (i = 0; i < rd->nregions; i++)
		if (rd->regions[i].npts > hist)
			hist = rd->regions[i].npts;
	html_puts(&h, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n");
	html_csp(&h);
	html_puts(&h, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<meta name=\"color-scheme\" content=\"light dark\">\n");
	html_printf(&h, "<title>scopedb report: %s</title>\n", stats_metric_name(rd->metric));
	html_puts(&h, "<style>");
	html_puts(&h, html_css);
	html_puts(&h, "</style>\n");
	html_puts(&h, "</head><body>\n<header><h1>scopedb report</h1>\n<p class=\"meta\">");
	html_printf(&h, "Metric %s (%s), %zu region%s, trends of ", stats_metric_name(rd->metric),
		    report_unit(rd->metric), rd->nregions, rd->nregions == 1 ? "" : "s");
	html_text(&h, rd->scope);
	if (rd->compared) {
		html_puts(&h, "; baseline (A) ");
		html_text(&h, rd->cmp.a.arg);
		html_puts(&h, ", candidate (B) ");
		html_text(&h, rd->cmp.b.arg);
		/* repetitions: the verdict is the set's, the charts the first's */
		if (co->ncand_files)
			html_printf(&h,
				    " and %zu more file%s of it (the verdict is of all %zu; "
				    "the distributions and ranks are of the first alone)",
				    co->ncand_files, co->ncand_files == 1 ? "" : "s",
				    co->ncand_files + 1);
	}
	html_puts(&h, "; generated ");
	html_text(&h, rd->generated);
	html_puts(&h, ".</p>\n<nav><a href=\"#verdict\">Verdict</a> | ");
	if (co->by_path && rd->compared)
		html_puts(&h, "<a href=\"#tree\">Call tree</a> | ");
	html_puts(&h,
		  "<a href=\"#trends\">Trends</a>"
		  " | <a href=\"#distributions\">Distributions</a> | <a href=\"#ranks\">Ranks</a>"
		  "</nav>\n<p id=\"filter\" hidden><label>Filter regions: <input id=\"q\" "
		  "type=\"search\"></label></p>\n</header>\n");
	html_verdict(&h, rd, co);
	html_tree(&h, rd, co);
	html_trends(&h, rd, hist);
	html_dists(&h, rd);
	html_ranks(&h, rd);
	html_puts(&h, "<footer class=\"meta\"><p>Made by scopedb from its store: no network, "
		      "no external file.</p></footer>\n");
	html_puts(&h, "<script>");
	html_puts(&h, html_js);
	html_puts(&h, "</script>\n");
	html_puts(&h, "</body></html>\n");
	return h.rc ? err_nomem() : 0;
}
