/*
 * output.h - from a command's document to its output: the --format value
 * chosen on the command line picks the renderer (render.h).
 *
 * Ownership: output is appended to the caller's buf; the documents are
 * built, rendered and freed inside each call; the outs strings are only
 * read.
 */
#ifndef SCOPEDB_CLI_OUTPUT_H
#define SCOPEDB_CLI_OUTPUT_H

#include "cli/cli.h"
#include "render/doc.h"
#include "scopedb/util.h"

/* Append d rendered in format fmt to out (color: ANSI colour on the
 * terminal).  0 or a negative ERR_* code with the message set. */
int cli_render(struct buf *out, const struct doc *d, const char *fmt, int color);

/* A command's document builder: fills d from what ctx points to; 0 or a
 * negative ERR_* code. */
typedef int (*cli_doc_fn)(struct doc *d, const void *ctx);

/* Build a document with build(ctx) and append it rendered in fmt to out. */
int cli_output(struct buf *out, cli_doc_fn build, const void *ctx, const char *fmt, int color);

/* The end of most commands: build the document, render it in fmt, write
 * it to stdout and return the exit code: ok (cli_finish()), or
 * CLI_EXIT_ERROR with the error reported (cli_error()). */
int cli_print_doc(cli_doc_fn build, const void *ctx, const char *fmt, int color, int ok);

/*
 * --output FORMAT=FILE values (diff, check): ERR_USAGE naming the value
 * unless each is a format among the space-separated allowed names, '=',
 * and a non-empty file name.  Call before any work, so that a bad value
 * writes nothing.
 */
int cli_outputs_check(const char *const *outs, size_t n, const char *allowed);

/*
 * cli_print_doc(), and the same document rendered into each FILE of the
 * n checked FORMAT=FILE values outs (never coloured).  Every FILE is
 * checked first (not a directory, its directory writable: a temporary
 * file is created beside it); then every document is rendered, the
 * temporary files written, and only then renamed over FILE one by one.
 * A FILE that is the standard output ("-", /dev/stdout) is appended to
 * stdout after the fmt document; an existing FIFO or device is written
 * as it is; a symlink to a regular file has its target replaced; a
 * replaced file keeps its mode.  On any error ("cannot write --output
 * 'json=x/y.json': no such file or directory") stdout is not written
 * and the exit code is CLI_EXIT_ERROR; before the renames, no FILE was
 * written either (a failed rename names the files already renamed).
 * A FILE that is the store (the command's --db value store, NULL for
 * none) or one of its -wal/-shm/-journal files, any SQLite database,
 * write-ahead log or journal, or a file the command reads
 * (cli_protect_input()) is refused before anything is done ("cannot
 * write --output 'json=s.sqlite': it is the store; refused").
 */
int cli_print_doc_outputs(cli_doc_fn build, const void *ctx, const char *fmt, int color, int ok,
			  const char *const *outs, size_t n, const char *store);

/*
 * Write data to path as --output writes a file (temporary file beside it,
 * then a rename; "-" or the file stdout goes to: stdout; a FIFO or a
 * device written as it is; never the store or another SQLite file, as
 * above).  Errors name the path ("cannot write --output 'x/r.html': no
 * such file or directory"); nothing is half-written.  path NULL: stdout,
 * whose errors say so ("cannot write to standard output: no space left
 * on device").
 */
int cli_write_file(const char *path, const struct buf *data, const char *store);

/*
 * Note a file the command reads (a profile given as a run): --output and
 * cli_write_file() refuse to write over it ("cannot write --output
 * 'json=in.json': it is a file this command reads; refused").  Anything
 * but an existing regular file is not noted.
 */
void cli_protect_input(const char *path);

#endif
