/*
 * opt.c - the option parser (opt.h): one pass over argv that reads it as
 * GNU getopt_long(":h") did for every command before, the usage text
 * generated from the option table, and the describe hook the help, man
 * page and completion generators use.
 *
 * Compatibility notes (tests/golden/options.txt holds the cases): an
 * abbreviation matching two options is refused naming them; a value given
 * with '=' to an option that takes none is refused as such.  An unknown
 * letter inside a cluster is named with its word ("unknown option '-x' in
 * '-xq'"); getopt_long named the word before the cluster ("runs -zz" said
 * "unknown option 'runs'"), which this parser copied until a review.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "scopedb/err.h"
#include "scopedb/util.h"
#include "util/suggest.h"

/* Column of the help text in the option lines, and the width left for
 * "-q, --quiet" or "--db PATH" after the 4-space indent. */
#define OPT_HELP_COL 23
#define OPT_NAME_WIDTH (OPT_HELP_COL - 4)
/* The width of the help column: its lines end by column 80. */
#define OPT_HELP_WIDTH (80 - OPT_HELP_COL)

/* -h and --help, accepted by every command without being declared. */
static const struct opt opt_help_opt =
    OPT_ENTRY(OPT_T_FLAG, 'h', "help", NULL, NULL, NULL, NULL, NULL, 0, OPT_HIDDEN);

static opt_describe_fn opt_describe_hook;
static void *opt_describe_ctx;

int opt_list_push(struct opt_list *l, const char *s)
{
	if (util_grow(&l->v, &l->alloc, l->n + 1, sizeof(*l->v), 4))
		return ERR_NOMEM;
	l->v[l->n++] = s;
	return 0;
}

void opt_list_release(struct opt_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = l->alloc = 0;
}

void opt_describe(opt_describe_fn fn, void *ctx)
{
	opt_describe_hook = fn;
	opt_describe_ctx = ctx;
}

/* 1 when o takes a value. */
static int opt_takes_value(const struct opt *o)
{
	return o->type != OPT_T_FLAG;
}

/* The option long name + len names: the exact match, else the only one it
 * abbreviates (NULL when none or several). */
static const struct opt *opt_find_long(const struct opt *opts, const char *name, size_t len)
{
	const struct opt *o, *found = NULL;
	int n = 0;

	for (o = opts;; o++) {
		const struct opt *c = o->type == OPT_T_END ? &opt_help_opt : o;

		if (c->long_name && strlen(c->long_name) == len &&
		    !strncmp(c->long_name, name, len))
			return c;
		if (c == &opt_help_opt)
			break;
	}
	for (o = opts;; o++) {
		const struct opt *c = o->type == OPT_T_END ? &opt_help_opt : o;

		if (c->long_name && !strncmp(c->long_name, name, len)) {
			found = c;
			n++;
		}
		if (c == &opt_help_opt)
			break;
	}
	return n == 1 ? found : NULL;
}

static const struct opt *opt_find_short(const struct opt *opts, int c)
{
	const struct opt *o;

	for (o = opts; o->type != OPT_T_END; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return c == opt_help_opt.short_name ? &opt_help_opt : NULL;
}

/*
 * The one parser of integer option values: a decimal integer, an optional
 * '-' then digits and nothing else (no blanks, no '+', no hex), in
 * [min, max].  Every integer option uses it, so they all refuse the same
 * words with the same message: "invalid --O 'V': expected a positive
 * integer", "a non-negative integer" (max LONG_MAX) or "an integer from
 * MIN to MAX", then " (HINT)" when hint is not NULL.
 */
/* The message of opt_parse_int() for a value arg outside [min, max] or
 * not an integer, as ERR_USAGE. */
static int opt_int_refuse(const struct opt *o, const char *arg, long min, long max,
			  const char *hint)
{
	char what[80];

	if (max == LONG_MAX && (min == 0 || min == 1))
		snprintf(what, sizeof(what), "a %s integer", min ? "positive" : "non-negative");
	else
		snprintf(what, sizeof(what), "an integer from %ld to %ld", min, max);
	return err_set(ERR_USAGE, "invalid --%s '%s': expected %s%s%s%s", o->long_name, arg, what,
		       hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
}

int opt_parse_int(long *out, const struct opt *o, const char *arg, long min, long max,
		  const char *hint)
{
	const char *p = arg + (*arg == '-');
	unsigned long mag = 0, lim = *arg == '-' ? (unsigned long)LONG_MAX + 1 : LONG_MAX;
	long v = 0;
	int ret = 0;

	for (; *p >= '0' && *p <= '9'; p++) {
		if (mag > (lim - (unsigned long)(*p - '0')) / 10)
			break;
		mag = mag * 10 + (unsigned long)(*p - '0');
	}
	if (*p || p == arg + (*arg == '-')) {
		ret = opt_int_refuse(o, arg, min, max, hint);
		goto out;
	}
	v = *arg == '-' ? (mag ? -(long)(mag - 1) - 1 : 0) : (long)mag;
	if (v < min || v > max) {
		ret = opt_int_refuse(o, arg, min, max, hint);
		goto out;
	}
	*out = v;
out:
	return ret;
}

/*
 * The word of o->choices that arg spells in any case ("PCT" is "pct"), or
 * arg itself: every option with a fixed set of values takes them in any
 * case, whether or not its callback compares with strcasecmp().
 */
static const char *opt_choice_word(const struct opt *o, const char *arg, char *word, size_t size)
{
	const char *p = o->choices, *e;
	size_t n = strlen(arg);

	for (; p && *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, " ");
		if ((size_t)(e - p) == n && n < size && !strncasecmp(p, arg, n)) {
			memcpy(word, p, n);
			word[n] = '\0';
			return word;
		}
	}
	return arg;
}

/* Store the value (NULL for a flag) of o. */
static int opt_apply(const struct opt *o, const char *arg)
{
	char word[64];

	switch (o->type) {
	case OPT_T_FLAG:
		*(int *)o->value = 1;
		return 0;
	case OPT_T_STRING:
		*(const char **)o->value = arg;
		return 0;
	case OPT_T_LIST:
		return opt_list_push(o->value, arg);
	case OPT_T_COUNT:
		return opt_parse_int(o->value, o, arg, 0, LONG_MAX, NULL);
	case OPT_T_CALLBACK:
		return o->callback(o, arg ? opt_choice_word(o, arg, word, sizeof(word)) : arg);
	case OPT_T_END:
		break;
	}
	return err_set(ERR_GENERIC, "option --%s has no type", o->long_name);
}

/* Apply o (with arg) as met on the command line: help, a value error, or
 * nothing to report (0). */
static int opt_take(const struct opt_cmd *cmd, const struct opt *opts, const struct opt *o,
		    const char *arg, int *code)
{
	if (o == &opt_help_opt) {
		*code = opt_help(cmd, opts);
		return -1;
	}
	if (opt_apply(o, arg)) {
		*code = cli_error();
		return -1;
	}
	return 0;
}

/* The last OPT_MULTI option that took more than one word, and those words
 * ("solve io A B"), for the hint when it swallowed the positional
 * arguments (copied: argv is rewritten as positionals move down). */
struct opt_greedy {
	const struct opt *o;
	struct buf took;
	struct buf files; /* the warnings of opt_warn_file(), said on success */
};

/* 1 when word ends the values of the OPT_MULTI option o: it starts with
 * '-' and is not "-" alone, or o takes numbers (OPT_MULTI_NUM) and it does
 * not start with a digit. */
static int opt_ends_values(const struct opt *o, const char *word)
{
	if (o->flags & OPT_MULTI_NUM)
		return word[0] < '0' || word[0] > '9';
	return word[0] == '-' && word[1];
}

/* 1 when word cannot be the first separate value of o: for an OPT_MULTI
 * option, "--" or a word starting with '-' (not "-" alone) is the next
 * option, not a value ("--include=--" still gives one). */
static int opt_not_value(const struct opt *o, const char *word)
{
	return (o->flags & OPT_MULTI) && word[0] == '-' && word[1];
}

/*
 * After "--opt V" (V at argv[*i]) of an OPT_MULTI option: apply the next
 * words up to one starting with '-', advancing *i.  A bad one is reported
 * with a reminder of the rule, since it is most often a positional
 * argument put after the values.
 */
/* The error for option word without its value; next, the word after it
 * (NULL: none), was taken as an option: a negative number ('--ranks -1')
 * is named, and how to give such a value. */
static int opt_no_value(const struct opt_cmd *cmd, const struct opt *opts, const char *word,
			const char *next)
{
	if (next && next[0] == '-' && isdigit((unsigned char)next[1]) && word[1] == '-')
		return opt_usage_error(cmd, opts,
				       "option '%s' needs a value: '%s', a word starting with "
				       "'-', is taken as an option (a value starting with '-' is "
				       "written %s=%s)",
				       word, next, word, next);
	return opt_usage_error(cmd, opts, "option '%s' needs a value", word);
}

/* A further value of a multi-valued option that names an existing file
 * (check A B --exclude io C.h5 D.h5: the repetitions C and D became
 * patterns, and the verdict changed without a word): the warning, and how
 * to write it, into g->files, said once the command line parses (else its
 * error names what the option took).  A pattern that happens to be a
 * file's name only warns. */
static int opt_warn_file(struct opt_greedy *g, const struct opt *o, const char *word)
{
	struct stat sb;
	struct buf q = BUF_INIT;
	int rc;

	/* (an option whose values are files, --candidate-files FILE...) */
	if ((o->argh && !strncmp(o->argh, "FILE", 4)) || stat(word, &sb) || !S_ISREG(sb.st_mode))
		return 0;
	rc = buf_printf(&g->files,
			"scopedb: warning: --%s took '%s', a file, as one of its values (they "
			"run until the next option): put the files before it or end its "
			"values with --\n",
			o->long_name, cli_msgq(&q, word));
	buf_release(&q);
	return rc ? err_nomem() : 0;
}

static int opt_more(const struct opt *o, int argc, char **argv, int *i, struct opt_greedy *g,
		    int *code)
{
	int first = *i;

	if (!(o->flags & OPT_MULTI))
		return 0;
	while (*i + 1 < argc && !opt_ends_values(o, argv[*i + 1])) {
		++*i;
		if (opt_warn_file(g, o, argv[*i])) {
			*code = cli_error();
			return -1;
		}
		if (opt_apply(o, argv[*i])) {
			char *msg = util_strdup(err_msg());

			if (msg)
				err_set(err_code(),
					"%s (the values of --%s run until the next option: "
					"end them with --)",
					msg, o->long_name);
			free(msg);
			*code = cli_error();
			return -1;
		}
	}
	if (*i > first) {
		int k, rc = 0;

		g->o = o;
		g->took.len = 0;
		for (k = first; k <= *i && !rc; k++)
			rc = buf_printf(&g->took, "%s%s", k > first ? " " : "", argv[k]);
		if (rc) {
			*code = cli_error();
			return -1;
		}
	}
	return 0;
}

/* The options name[0..len) abbreviates into out ("--threshold, --tree")
 * when it abbreviates two or more, else nothing. */
static int opt_ambiguous(struct buf *out, const struct opt *opts, const char *name, size_t len)
{
	size_t k, n = 0;
	int rc = 0;

	if (!len) /* "--=x" abbreviates nothing */
		return 0;
	for (k = 0; opts[k].type != OPT_T_END; k++)
		if (opts[k].long_name && !strncmp(opts[k].long_name, name, len))
			n++;
	if (!strncmp("help", name, len))
		n++;
	if (n < 2)
		return 0;
	for (k = 0; opts[k].type != OPT_T_END && !rc; k++)
		if (opts[k].long_name && !strncmp(opts[k].long_name, name, len))
			rc = buf_printf(out, "%s--%s", out->len ? ", " : "", opts[k].long_name);
	if (!rc && !strncmp("help", name, len))
		rc = buf_printf(out, "%s--help", out->len ? ", " : "");
	return rc ? err_nomem() : 0;
}

/*
 * "; did you mean '--baseline-window' or '--candidate-window'?" for a word
 * that is a whole dash-separated part of up to three option names
 * ("--window"), where no name is near enough for suggest_best().
 */
static int opt_hint_part(struct buf *out, const char *word, const char *const *v, size_t n)
{
	const char *hit[3];
	size_t i, nhit = 0, len = strlen(word);
	int rc = 0;

	if (len < 3)
		return 0;
	for (i = 0; i < n; i++) {
		const char *p = v[i];

		while ((p = strstr(p, word)) != NULL) {
			if ((p == v[i] || p[-1] == '-') && (p[len] == '\0' || p[len] == '-'))
				break;
			p++;
		}
		if (p && nhit < 3)
			hit[nhit] = v[i];
		if (p)
			nhit++;
	}
	if (nhit == 0 || nhit > 3)
		return 0;
	rc = buf_puts(out, "; did you mean ");
	for (i = 0; !rc && i < nhit; i++)
		rc = buf_printf(out, "%s'--%s'",
				i == 0		? ""
				: i + 1 == nhit ? " or "
						: ", ",
				hit[i]);
	if (!rc)
		rc = buf_puts(out, "?");
	return rc ? err_nomem() : 0;
}

/* "; did you mean '--NAME'?" appended to out for the long option (or
 * --help) nearest to the name[0..len) that matched none; nothing when none
 * is close (or the names it is a dash-separated part of).  0 or ERR_NOMEM. */
static int opt_hint(struct buf *out, const struct opt *opts, const char *name, size_t len)
{
	const char **v;
	const char *best;
	char *word = malloc(len + 1);
	size_t n = 0, k;
	int rc = 0;

	if (word) {
		memcpy(word, name, len);
		word[len] = '\0';
	}

	for (k = 0; opts[k].type != OPT_T_END; k++)
		;
	v = calloc(k + 1, sizeof(*v));
	if (!word || !v) {
		rc = err_nomem();
		goto out;
	}
	for (k = 0; opts[k].type != OPT_T_END; k++)
		if (opts[k].long_name && !(opts[k].flags & OPT_HIDDEN))
			v[n++] = opts[k].long_name;
	v[n++] = "help";
	best = suggest_best(word, v, n);
	if (best && buf_printf(out, "; did you mean '--%s'?", best))
		rc = err_nomem();
	if (!best && !rc)
		rc = opt_hint_part(out, word, v, n);
out:
	free(word);
	free(v);
	return rc;
}

/* "--name[=value]" at argv[*i]; advances *i past a separate value (values,
 * for an OPT_MULTI option). */
static int opt_long(const struct opt_cmd *cmd, const struct opt *opts, int argc, char **argv,
		    int *i, struct opt_greedy *g, int *code)
{
	const char *word = argv[*i], *name = word + 2, *eq = strchr(name, '=');
	const struct opt *o = opt_find_long(opts, name, eq ? (size_t)(eq - name) : strlen(name));
	const char *arg = NULL;

	if (o && eq && !opt_takes_value(o)) {
		*code = opt_usage_error(cmd, opts, "option '--%s' takes no value", o->long_name);
		return -1;
	}
	if (!o) {
		struct buf hint = BUF_INIT, amb = BUF_INIT;
		size_t len = eq ? (size_t)(eq - name) : strlen(name);

		if (opt_ambiguous(&amb, opts, name, len) ||
		    (!amb.len && opt_hint(&hint, opts, name, len)))
			*code = cli_error();
		else if (amb.len)
			*code = opt_usage_error(cmd, opts, "option '--%.*s' is ambiguous: %s",
						(int)len, name, amb.data);
		else
			*code = opt_usage_error(cmd, opts, "unknown option '%s'%s", word,
						hint.data ? hint.data : "");
		buf_release(&hint);
		buf_release(&amb);
		return -1;
	}
	if (opt_takes_value(o)) {
		if (eq) {
			arg = eq + 1;
		} else if (*i + 1 < argc && !opt_not_value(o, argv[*i + 1])) {
			arg = argv[++*i];
		} else {
			*code = opt_no_value(cmd, opts, word, *i + 1 < argc ? argv[*i + 1] : NULL);
			return -1;
		}
	}
	if (opt_take(cmd, opts, o, arg, code))
		return -1;
	return eq || !arg ? 0 : opt_more(o, argc, argv, i, g, code);
}

/* The cluster "-abc" at argv[*i]. */
static int opt_short(const struct opt_cmd *cmd, const struct opt *opts, int argc, char **argv,
		     int *i, struct opt_greedy *g, int *code)
{
	const char *word = argv[*i], *p;

	for (p = word + 1; *p; p++) {
		const struct opt *o = opt_find_short(opts, (unsigned char)*p);
		const char *arg = NULL;
		int separate = 0;

		/* the letter, and in a cluster the word it is in (the word
		 * alone for a byte that is no ASCII letter or digit: half a
		 * UTF-8 character, or '-') */
		if (!o && word[2] && isalnum((unsigned char)*p) && !((unsigned char)*p & 0x80)) {
			*code =
			    opt_usage_error(cmd, opts, "unknown option '-%c' in '%s'", *p, word);
			return -1;
		} else if (!o) {
			*code = opt_usage_error(cmd, opts, "unknown option '%s'", word);
			return -1;
		}
		if (opt_takes_value(o)) {
			if (p[1]) {
				arg = p + 1;
			} else if (*i + 1 < argc && !opt_not_value(o, argv[*i + 1])) {
				arg = argv[++*i];
				separate = 1;
			} else {
				*code = opt_no_value(cmd, opts, word,
						     *i + 1 < argc ? argv[*i + 1] : NULL);
				return -1;
			}
		}
		if (opt_take(cmd, opts, o, arg, code))
			return -1;
		if (separate && opt_more(o, argc, argv, i, g, code))
			return -1;
		if (arg)
			break;
	}
	return 0;
}

/* The error for too few positional arguments: the command's words, or a
 * generic one when it declared min_args without them. */
static const char *opt_missing_text(const struct opt_cmd *cmd)
{
	return cmd->missing ? cmd->missing : "missing arguments";
}

/*
 * Positional arguments are missing after an OPT_MULTI option took several
 * words, as Python's argparse would take them: say which words it took
 * and how to write the command line ("diff --include solve io A B").
 */
static int opt_missing_greedy(const struct opt_cmd *cmd, const struct opt *opts,
			      const struct opt_greedy *g)
{
	return opt_usage_error(cmd, opts,
			       "%s; --%s took '%s' (its values run until the next option): "
			       "put the arguments before it or end its values with --",
			       opt_missing_text(cmd), g->o->long_name, g->took.data);
}

int opt_parse(const struct opt_cmd *cmd, const struct opt *opts, int argc, char **argv, int *code)
{
	struct opt_greedy greedy = {NULL, BUF_INIT, BUF_INIT};
	int posix = getenv("POSIXLY_CORRECT") != NULL, n = 0, i, ret = -1, extra = 0;

	if (opt_describe_hook) {
		*code = opt_describe_hook(opt_describe_ctx, cmd, opts);
		return -1;
	}
	/* Positionals are moved down to argv[n], n < i: argv[i] is unread. */
	for (i = 1; i < argc; i++) {
		const char *word = argv[i];

		if (word[0] != '-' || !word[1]) {
			if (posix)
				break;
			argv[n++] = argv[i];
			continue;
		}
		if (!strcmp(word, "--")) {
			i++;
			break;
		}
		if (word[1] == '-' ? opt_long(cmd, opts, argc, argv, &i, &greedy, code)
				   : opt_short(cmd, opts, argc, argv, &i, &greedy, code))
			goto out;
	}
	while (i < argc)
		argv[n++] = argv[i++];
	argv[n] = NULL;
	for (i = 0; cmd->args_option && opts[i].type != OPT_T_END; i++)
		if (opts[i].type == OPT_T_LIST && opts[i].long_name &&
		    !strcmp(opts[i].long_name, cmd->args_option))
			extra = (int)((const struct opt_list *)opts[i].value)->n;
	if (cmd->max_args != OPT_ARGS_ANY && n > cmd->max_args)
		*code = cmd->too_many ? opt_usage_error(cmd, opts, "%s", cmd->too_many)
				      : opt_usage_error(cmd, opts, "unexpected argument '%s'",
							argv[cmd->max_args]);
	else if (n + extra < cmd->min_args && greedy.o)
		*code = opt_missing_greedy(cmd, opts, &greedy);
	else if (n + extra < cmd->min_args)
		*code = opt_usage_error(cmd, opts, "%s", opt_missing_text(cmd));
	else
		ret = n;
	if (ret >= 0 && greedy.files.len)
		fputs(greedy.files.data, stderr);
out:
	buf_release(&greedy.took);
	buf_release(&greedy.files);
	return ret;
}

int opt_help_text(struct buf *out, const struct opt *o, const char *sep)
{
	const char *p, *e;
	int rc = 0, k = 0;

	if (o->help) {
		for (p = o->help; !rc; p = e + 1) {
			e = strchr(p, '\n');
			rc = buf_add(out, p, e ? (size_t)(e - p) : strlen(p));
			if (!e)
				break;
			if (!rc)
				rc = buf_puts(out, sep);
		}
		return rc ? err_nomem() : 0;
	}
	/* "a b c" -> "a (default), b or c" */
	for (p = o->choices ? o->choices : ""; *p && !rc; p = *e ? e + 1 : e, k++) {
		e = strchr(p, ' ');
		if (!e)
			e = p + strlen(p);
		if (k)
			rc = buf_puts(out, *e ? ", " : " or ");
		if (!rc)
			rc = buf_add(out, p, (size_t)(e - p));
		if (!rc && k == 0)
			rc = buf_puts(out, " (default)");
	}
	return rc ? err_nomem() : 0;
}

/* The help text of o, each line ('\n' in the declaration) broken at the
 * last space that keeps it within 80 columns (a generated list of choices
 * may be longer), lines joined by sep. */
static int opt_wrap(struct buf *out, const struct opt *o, const char *sep)
{
	struct buf text = BUF_INIT;
	const char *p, *e, *cut;
	int rc = opt_help_text(&text, o, "\n");

	for (p = text.data ? text.data : ""; !rc && *p; p = *e ? e + 1 : e) {
		e = p + strcspn(p, "\n");
		while (!rc && e - p > OPT_HELP_WIDTH) {
			for (cut = p + OPT_HELP_WIDTH; cut > p && *cut != ' '; cut--)
				;
			if (cut == p) /* a word wider than the column stays whole */
				cut = memchr(p, ' ', (size_t)(e - p));
			if (!cut)
				break;
			rc = buf_add(out, p, (size_t)(cut - p)) || buf_puts(out, sep);
			p = cut + 1;
		}
		if (!rc)
			rc = buf_add(out, p, (size_t)(e - p));
		if (!rc && *e)
			rc = buf_puts(out, sep);
	}
	buf_release(&text);
	return rc ? err_nomem() : 0;
}

/* "    -q, --quiet        no progress display" (help lines joined by a
 * newline and the indent of the help column).  A name too wide for the
 * column gets a line of its own and its help starts on the next line, at
 * the column, as git's parse-options does: every help line stays aligned
 * and within 80 columns. */
static int opt_line(struct buf *out, const struct opt *o)
{
	char sep[OPT_HELP_COL + 2];
	size_t start = out->len, len;
	int rc = 0;

	sep[0] = '\n';
	memset(sep + 1, ' ', OPT_HELP_COL);
	sep[OPT_HELP_COL + 1] = '\0';
	rc |= buf_puts(out, "    ");
	if (o->short_name)
		rc |= buf_printf(out, "-%c, ", o->short_name);
	rc |= buf_printf(out, "--%s", o->long_name);
	if (o->argh)
		rc |= buf_printf(out, " %s", o->argh);
	if (rc)
		return err_nomem();
	len = out->len - start - 4;
	if (len + 2 <= OPT_NAME_WIDTH)
		rc = buf_printf(out, "%*s", (int)(OPT_NAME_WIDTH - len), "");
	else
		rc = buf_puts(out, sep);
	return rc ? err_nomem() : opt_wrap(out, o, sep);
}

int opt_synopsis(struct buf *out, const struct opt_cmd *cmd, const struct opt *opts,
		 const char *sep)
{
	const char *form = cmd->args ? cmd->args : "";
	const struct opt *o;
	int has_opts = 0, rc = 0;
	size_t len;

	for (o = opts; o->type != OPT_T_END; o++)
		has_opts |= !(o->flags & OPT_HIDDEN);
	for (;;) {
		len = strcspn(form, "\n");
		rc |= buf_printf(out, "scopedb %s%s%.*s%s", cmd->name, len ? " " : "", (int)len,
				 form, has_opts ? " [<options>]" : "");
		if (!form[len])
			break;
		form += len + 1;
		rc |= buf_puts(out, sep);
	}
	return rc ? err_nomem() : 0;
}

int opt_usage(struct buf *out, const struct opt_cmd *cmd, const struct opt *opts)
{
	const struct opt *o;
	int rc, first = 1;

	rc = opt_synopsis(out, cmd, opts, "\n       ");
	if (!rc && cmd->before)
		rc = buf_printf(out, "\n\n%s", cmd->before);
	for (o = opts; o->type != OPT_T_END && !rc; o++) {
		if (o->flags & OPT_HIDDEN)
			continue;
		rc = buf_puts(out, first ? "\n\n" : "\n");
		first = 0;
		if (!rc)
			rc = opt_line(out, o);
	}
	if (!rc && cmd->after)
		rc = buf_printf(out, "\n\n%s", cmd->after);
	return rc ? err_nomem() : 0;
}

int opt_help(const struct opt_cmd *cmd, const struct opt *opts)
{
	struct buf text = BUF_INIT;

	if (opt_usage(&text, cmd, opts)) {
		buf_release(&text);
		return cli_error();
	}
	printf("scopedb %s - %s\n\nusage: %s\n", cmd->name, cmd->summary, text.data);
	buf_release(&text);
	return cli_finish(CLI_EXIT_OK);
}

int opt_usage_error(const struct opt_cmd *cmd, const struct opt *opts, const char *fmt, ...)
{
	struct buf text = BUF_INIT;
	va_list ap;

	/* escaped: the message quotes the user's words (an argument, a
	 * shell's name), which may hold a terminal's escapes or a newline */
	va_start(ap, fmt);
	cli_print_errorv(fmt, ap);
	va_end(ap);
	if (!opt_usage(&text, cmd, opts))
		fprintf(stderr, "usage: %s\n", text.data);
	buf_release(&text);
	return CLI_EXIT_ERROR;
}
