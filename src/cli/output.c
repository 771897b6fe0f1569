/*
 * output.c - rendering a command's document in the --format asked for
 * (see output.h).  The format is a renderer's name, checked by the
 * --format option against the renderer registry, so a new renderer needs
 * no change here.
 */
#define _DEFAULT_SOURCE /* realpath() */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/output.h"
#include "render/render.h"
#include "scopedb/store.h"
#include "scopedb/err.h"

int cli_render(struct buf *out, const struct doc *d, const char *fmt, int color)
{
	struct render_opts o = {color, 0, cli_units(), cli_utf8()};

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

	if (cli_output(&out, build, ctx, fmt, color) || cli_write_stdout(out.data, out.len))
		code = cli_error();
	else
		code = cli_finish(ok);
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

static char *cli_canonical(const char *path);
static int cli_same_file(const struct stat *sb, int fd);

/* 1 when the --output files a and b are one regular file, the second
 * document replacing the first: the same existing file (as stat tells),
 * or the same new one (the same path once resolved).  What is written as
 * it is takes several: "-", a device (/dev/null), a pipe or a terminal
 * (/dev/stdout and /dev/stderr of a CI job's one pipe). */
static int cli_same_output(const char *a, const char *b)
{
	struct stat sa, sb;
	int ea, eb, same = 0;
	char *ca, *cb;

	if (!strcmp(a, "-") || !strcmp(b, "-"))
		return 0;
	ea = !stat(a, &sa);
	eb = !stat(b, &sb);
	if (ea && eb)
		return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino &&
		       !cli_same_file(&sa, STDOUT_FILENO);
	if (ea || eb)
		return 0;
	ca = cli_canonical(a);
	cb = cli_canonical(b);
	same = !strcmp(a, b) || (ca && cb && !strcmp(ca, cb));
	free(ca);
	free(cb);
	return same;
}

/*
 * An --output argument as a message may show it: a database's connection
 * string put there in place of --db's is cut before its password: after
 * "://" (any case of scheme), after the first keyword of a FILE that is
 * libpq's key=value string, else before a "password" key.  The messages
 * reach CI logs.  In b (or a constant).
 */
static const char *cli_output_shown(struct buf *b, const char *arg)
{
	const char *uri = strstr(arg, "://"), *file = strchr(arg, '='), *p = arg;
	size_t n;

	while (*p && strncasecmp(p, "password", 8))
		p++;
	if (uri)
		n = (size_t)(uri - arg) + 3;
	else if (file && file[1] && !store_is_file(file + 1))
		n = (size_t)(file + 1 - arg) + strcspn(file + 1, "=") + 1;
	else if (*p)
		n = (size_t)(p - arg);
	else
		return arg;
	b->len = 0;
	return buf_add(b, arg, n) || buf_puts(b, "...") ? "..." : b->data;
}

int cli_outputs_check(const char *const *outs, size_t n, const char *allowed)
{
	struct buf choices = BUF_INIT, shown = BUF_INIT, shown2 = BUF_INIT;
	const char *f;
	size_t i, k;
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		const char *eq = strchr(outs[i], '=');
		char *name;

		if (!eq || eq == outs[i] || !eq[1]) {
			rc = err_set(ERR_USAGE, "invalid --output '%s': expected FORMAT=FILE",
				     cli_output_shown(&shown, outs[i]));
			break;
		}
		name = cli_output_format(outs[i], eq);
		if (!name) {
			rc = ERR_NOMEM;
			break;
		}
		rc = cli_parse_format(&f, name, allowed);
		free(name);
		if (rc && rc != ERR_NOMEM) {
			rc = cli_format_choices(&choices, allowed);
			if (!rc)
				rc =
				    err_set(ERR_USAGE,
					    "invalid --output '%s': unknown format; choose from %s",
					    cli_output_shown(&shown, outs[i]),
					    choices.data ? choices.data : "");
		}
		/* two documents into one file: the second replaced the first */
		for (k = 0; !rc && k < i; k++)
			if (cli_same_output(strchr(outs[k], '=') + 1, eq + 1))
				rc =
				    err_set(ERR_USAGE,
					    "invalid --output '%s': --output '%s' writes that file "
					    "already; give each its own",
					    cli_output_shown(&shown, outs[i]),
					    cli_output_shown(&shown2, outs[k]));
	}
	buf_release(&choices);
	buf_release(&shown);
	buf_release(&shown2);
	return rc;
}

/* The files the command reads (cli_protect_input()): never written over. */
static struct cli_input {
	dev_t dev;
	ino_t ino;
} * cli_inputs;
static size_t cli_ninputs, cli_inputs_cap;

void cli_protect_input(const char *path)
{
	struct stat sb;
	struct cli_input *in;

	if (!path || stat(path, &sb) || !S_ISREG(sb.st_mode))
		return;
	in = util_push(&cli_inputs, &cli_inputs_cap, &cli_ninputs, sizeof(*in));
	if (in) { /* (out of memory: the write's own checks stand) */
		in->dev = sb.st_dev;
		in->ino = sb.st_ino;
	}
}

/*
 * One --output file.  A regular FILE (or a symlink to one) is written to
 * a temporary file beside it (beside the symlink's target) and renamed
 * into place; a FILE that is the standard output ("-", /dev/stdout, or
 * the file stdout is redirected to) is appended to stdout; another
 * existing FILE that is not a regular file (a FIFO, a device) is opened
 * as it is and written directly.
 */
struct cli_outfile {
	const char *arg;   /* FORMAT=FILE as given */
	const char *store; /* the command's store (--db), never written over */
	char *fmt;
	const char *path;
	char *target; /* the path renamed over: path or its symlink's target */
	char *tmp;    /* NULL once renamed (or when not a rename) */
	int fd;	      /* tmp's, or the direct FILE's */
	int to_stdout;
	struct buf data;
};

static int cli_outfile_error(const struct cli_outfile *o, int e)
{
	struct buf shown = BUF_INIT;
	int rc = err_set(ERR_IO, "cannot write --output '%s': %s", cli_output_shown(&shown, o->arg),
			 util_strerror_lc(e));

	buf_release(&shown);
	return rc;
}

/* What an SQLite file at path is, told by its first bytes (the database
 * header, the write-ahead log's and the rollback journal's magic numbers:
 * sqlite.org/fileformat2.html), or NULL for any other or unreadable file. */
static const char *cli_sqlite_kind(const char *path)
{
	static const unsigned char wal[3] = {0x37, 0x7f, 0x06};
	static const unsigned char journal[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};
	unsigned char h[16];
	struct stat sb;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return NULL;
	n = !fstat(fd, &sb) && S_ISREG(sb.st_mode) ? read(fd, h, sizeof(h)) : -1;
	close(fd);
	if (n == 16 && !memcmp(h, "SQLite format 3", 16))
		return "it is an SQLite database";
	if (n >= 4 && !memcmp(h, wal, 3) && (h[3] == 0x82 || h[3] == 0x83))
		return "it is an SQLite write-ahead log";
	if (n >= 8 && !memcmp(h, journal, 8))
		return "it is an SQLite rollback journal";
	return NULL;
}

/* The absolute path of path with every symlink resolved, also when its last
 * component does not exist yet (malloc'ed; NULL when its directory cannot be
 * resolved). */
static char *cli_canonical(const char *path)
{
	char *dir, *real, *out, *slash;
	const char *base;
	size_t n;

	real = realpath(path, NULL);
	if (real || errno != ENOENT)
		return real;
	dir = util_strdup(path);
	if (!dir)
		return NULL;
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		base = path + (slash - dir) + 1;
	} else {
		base = path;
	}
	real = realpath(slash ? (*dir ? dir : "/") : ".", NULL);
	free(dir);
	if (!real)
		return NULL;
	n = strlen(real) + strlen(base) + 2;
	out = malloc(n);
	if (out)
		snprintf(out, n, "%s/%s", strcmp(real, "/") ? real : "", base);
	free(real);
	return out;
}

/* The files of an SQLite database besides itself. */
static const char *const cli_sqlite_suffixes[] = {"-wal", "-shm", "-journal"};

/*
 * Issue 29: an output never replaces a store.  ERR_USAGE naming o's
 * argument when FILE (after symlinks) is the command's store or one of its
 * -wal, -shm and -journal files (same inode, or same path for one that is
 * not there yet), any SQLite database, write-ahead log or rollback
 * journal, or the -wal, -shm or -journal file of an SQLite database.
 */
static int cli_outfile_guard(const struct cli_outfile *o)
{
	char *target = cli_canonical(o->path), *store = NULL, *side = NULL;
	const char *what = NULL;
	struct stat tb, sb;
	size_t i, tn;
	int rc = 0, exists = !stat(o->path, &tb);

	if (!target)
		return 0; /* the write itself says why it cannot be */
	tn = strlen(target);
	if (o->store && store_is_file(o->store))
		store = cli_canonical(o->store);
	for (i = 0;
	     store && !what && i <= sizeof(cli_sqlite_suffixes) / sizeof(*cli_sqlite_suffixes);
	     i++) {
		free(side);
		side = malloc(strlen(store) + 16);
		if (!side)
			break;
		sprintf(side, "%s%s", store, i ? cli_sqlite_suffixes[i - 1] : "");
		if (!strcmp(side, target) || (exists && !stat(side, &sb) &&
					      sb.st_dev == tb.st_dev && sb.st_ino == tb.st_ino))
			what = i ? "it is a file of the store" : "it is the store";
	}
	for (i = 0; !what && exists && i < cli_ninputs; i++)
		if (cli_inputs[i].dev == tb.st_dev && cli_inputs[i].ino == tb.st_ino)
			what = "it is a file this command reads";
	if (!what && exists && S_ISREG(tb.st_mode))
		what = cli_sqlite_kind(target);
	for (i = 0; !what && i < sizeof(cli_sqlite_suffixes) / sizeof(*cli_sqlite_suffixes); i++) {
		size_t k = strlen(cli_sqlite_suffixes[i]);

		if (tn > k && !strcmp(target + tn - k, cli_sqlite_suffixes[i])) {
			target[tn - k] = '\0';
			if (cli_sqlite_kind(target))
				what = "it is a file of an SQLite database";
			target[tn - k] = cli_sqlite_suffixes[i][0];
		}
	}
	if (what) {
		struct buf shown = BUF_INIT;

		rc = err_set(ERR_USAGE, "cannot write --output '%s': %s; refused",
			     cli_output_shown(&shown, o->arg), what);
		buf_release(&shown);
	}
	free(side);
	free(store);
	free(target);
	return rc;
}

/* 1 if sb is the file open on descriptor fd. */
static int cli_same_file(const struct stat *sb, int fd)
{
	struct stat fb;

	return !fstat(fd, &fb) && fb.st_dev == sb->st_dev && fb.st_ino == sb->st_ino;
}

/* Create o's temporary file beside o->target: O_EXCL under a fresh name,
 * so that the mode comes from the umask (a new file) or is mode (the old
 * file's). */
static int cli_outfile_tmp(struct cli_outfile *o, int keep_mode, mode_t mode)
{
	static unsigned serial;
	int tries, e = 0;

	o->tmp = malloc(strlen(o->target) + sizeof(".tmp.") + 24);
	if (!o->tmp)
		return err_nomem();
	for (tries = 0; tries < 100; tries++) {
		sprintf(o->tmp, "%s.tmp.%ld.%u", o->target, (long)getpid(), serial++);
		o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (o->fd >= 0 || errno != EEXIST)
			break;
	}
	if (o->fd < 0) {
		e = errno;
		free(o->tmp);
		o->tmp = NULL;
		return cli_outfile_error(o, e);
	}
	if (keep_mode && fchmod(o->fd, mode & 07777) < 0)
		return cli_outfile_error(o, errno);
	return 0;
}

/* Check o's FILE and prepare it (see struct cli_outfile) before anything
 * is written: a directory, a missing or unwritable parent directory are
 * errors here. */
static int cli_outfile_prepare(struct cli_outfile *o);

static int cli_outfile_open(struct cli_outfile *o, const char *arg, const char *store)
{
	const char *eq = strchr(arg, '=');

	o->arg = arg;
	o->store = store;
	o->path = eq + 1;
	o->fd = -1;
	o->fmt = cli_output_format(arg, eq);
	if (!o->fmt)
		return ERR_NOMEM;
	return cli_outfile_prepare(o);
}

/* The FILE part of cli_outfile_open(): o->arg and o->path set. */
static int cli_outfile_prepare(struct cli_outfile *o)
{
	struct stat sb, lb;
	int rc;

	if (!strcmp(o->path, "-")) {
		o->to_stdout = 1;
		return 0;
	}
	/* a store's connection string (--db's value, misplaced) is no file,
	 * and what follows its scheme or first keyword may be a password */
	if (*o->path && !store_is_file(o->path)) {
		struct buf shown = BUF_INIT;

		rc = err_set(ERR_USAGE,
			     "cannot write --output '%s': a database's connection string, not a "
			     "file (a store is --db's)",
			     cli_output_shown(&shown, o->arg));
		buf_release(&shown);
		return rc;
	}
	rc = cli_outfile_guard(o);
	if (rc)
		return rc;
	/* One lstat() tells a new file from an existing one, and a symlink is
	 * followed after: with a stat() first and an lstat() after, a job
	 * beside this one that renamed its output into place, or removed it,
	 * between the two made a new file look like a dangling symlink, or
	 * an existing one like a missing one (two CI jobs in one workspace). */
	if (lstat(o->path, &lb) < 0) {
		if (errno != ENOENT)
			return cli_outfile_error(o, errno);
		o->target = util_strdup(o->path);
		return o->target ? cli_outfile_tmp(o, 0, 0) : ERR_NOMEM;
	}
	if (!S_ISLNK(lb.st_mode))
		sb = lb;
	else if (stat(o->path, &sb) < 0) /* a dangling symlink: ENOENT */
		return cli_outfile_error(o, errno);
	if (S_ISDIR(sb.st_mode))
		return cli_outfile_error(o, EISDIR);
	if (cli_same_file(&sb, STDOUT_FILENO)) {
		o->to_stdout = 1;
		return 0;
	}
	if (!S_ISREG(sb.st_mode) || cli_same_file(&sb, STDERR_FILENO)) {
		o->fd = open(o->path, O_WRONLY | O_CLOEXEC);
		return o->fd < 0 ? cli_outfile_error(o, errno) : 0;
	}
	o->target = S_ISLNK(lb.st_mode) ? realpath(o->path, NULL) : util_strdup(o->path);
	if (!o->target)
		return S_ISLNK(lb.st_mode) ? cli_outfile_error(o, errno) : ERR_NOMEM;
	return cli_outfile_tmp(o, 1, sb.st_mode);
}

/* Write all of o->data to o->fd and close it; a write that writes
 * nothing is a full device (ENOSPC). */
static int cli_outfile_write(struct cli_outfile *o)
{
	size_t off = 0;
	int e = 0;

	while (off < o->data.len && !e) {
		ssize_t k = write(o->fd, o->data.data + off, o->data.len - off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			e = errno;
		else if (k == 0)
			e = ENOSPC;
		else
			off += (size_t)k;
	}
	if (close(o->fd) < 0 && !e)
		e = errno;
	o->fd = -1;
	return e ? cli_outfile_error(o, e) : 0;
}

/* Rename the written temporary files into place.  Every FILE was checked
 * and written before, so a failure is rare (the FILE changed meanwhile):
 * the message then names the files already renamed. */
static int cli_outfiles_rename(struct cli_outfile *files, size_t n)
{
	struct buf done = BUF_INIT;
	size_t i;
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		if (!files[i].tmp)
			continue;
		if (rename(files[i].tmp, files[i].target) < 0) {
			int e = errno;

			struct buf shown = BUF_INIT;

			rc = done.len
				 ? err_set(ERR_IO,
					   "cannot write --output '%s': %s (already written: %s)",
					   cli_output_shown(&shown, files[i].arg),
					   util_strerror_lc(e), done.data)
				 : cli_outfile_error(&files[i], e);
			buf_release(&shown);
		} else {
			free(files[i].tmp);
			files[i].tmp = NULL;
			if (buf_printf(&done, "%s'%s'", done.len ? ", " : "", files[i].path))
				rc = err_nomem();
		}
	}
	buf_release(&done);
	return rc;
}

int cli_print_doc_outputs(cli_doc_fn build, const void *ctx, const char *fmt, int color, int ok,
			  const char *const *outs, size_t n, const char *store)
{
	struct cli_outfile *files = util_calloc(n, sizeof(*files));
	struct buf out = BUF_INIT;
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
	/* 1. check every FILE, 2. render every document, 3. write the
	 * temporary files, 4. the FIFOs and devices, 5. rename, 6. stdout */
	for (i = 0, rc = 0; i < n && !rc; i++)
		rc = cli_outfile_open(&files[i], outs[i], store);
	if (!rc)
		rc = build(&d, ctx);
	if (!rc)
		rc = cli_render(&out, &d, fmt, color);
	for (i = 0; i < n && !rc; i++)
		rc = cli_render(files[i].to_stdout ? &out : &files[i].data, &d, files[i].fmt, 0);
	for (i = 0; i < n && !rc; i++)
		if (files[i].tmp)
			rc = cli_outfile_write(&files[i]);
	for (i = 0; i < n && !rc; i++)
		if (!files[i].tmp && files[i].fd >= 0)
			rc = cli_outfile_write(&files[i]);
	if (!rc)
		rc = cli_outfiles_rename(files, n);
out:
	if (rc || cli_write_stdout(out.data, out.len))
		code = cli_error();
	else
		code = cli_finish(ok);
	for (i = 0; files && i < n; i++) {
		if (files[i].fd >= 0)
			close(files[i].fd);
		if (files[i].tmp)
			unlink(files[i].tmp);
		free(files[i].tmp);
		free(files[i].target);
		free(files[i].fmt);
		buf_release(&files[i].data);
	}
	free(files);
	doc_release(&d);
	buf_release(&out);
	return code;
}

int cli_write_file(const char *path, const struct buf *data, const char *store)
{
	struct cli_outfile o;
	int rc;

	if (!path)
		return cli_write_stdout(data->data, data->len);
	memset(&o, 0, sizeof(o));
	o.arg = path;
	o.path = path;
	o.store = store;
	o.fd = -1;
	rc = cli_outfile_prepare(&o);
	if (!rc && buf_add(&o.data, data->data ? data->data : "", data->len))
		rc = err_nomem();
	if (!rc && o.to_stdout)
		rc = cli_write_stdout(o.data.data, o.data.len);
	else if (!rc)
		rc = cli_outfile_write(&o);
	if (!rc && o.tmp)
		rc = cli_outfiles_rename(&o, 1);
	if (o.fd >= 0)
		close(o.fd);
	if (o.tmp)
		unlink(o.tmp);
	free(o.tmp);
	free(o.target);
	buf_release(&o.data);
	return rc;
}
