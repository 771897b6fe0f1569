/*
 * srcpath.h - a region's source file as a path of the repository, where CI
 * findings point (check --format github, --format codequality): GitHub
 * and GitLab place an annotation only on a path relative to the checkout.
 *
 * A profile's source_file is untrusted text, absolute or relative to the
 * directory the profiled program ran in (the run's working_directory
 * metadata).  It becomes relative to the repository by stripping that
 * directory or the git top level of the current directory; a path that
 * leaves the repository ("/usr/lib/python3/x.py", "../x.py") has no
 * location.  Pure string work, except srcpath_toplevel().
 *
 * Ownership: the returned strings are malloc'ed, the caller frees them.
 */
#ifndef SCOPEDB_ANALYSIS_SRCPATH_H
#define SCOPEDB_ANALYSIS_SRCPATH_H

/*
 * *out = file relative to the repository, or NULL when it has none
 * (empty, outside both roots, or climbing out with ".."): an absolute file
 * under top, else under workdir (a profile made in another checkout),
 * loses that prefix (both may be NULL); a relative file is taken from
 * workdir made relative to top when inside it, else from the top.  "." and empty components are
 * dropped, ".." resolved. ERR_NOMEM.
 */
int srcpath_relative(char **out, const char *file, const char *workdir, const char *top);

/* *out = the git top level of the current directory (git rev-parse
 * --show-toplevel through git_run()), NULL outside a work tree or
 * without git.  ERR_NOMEM. */
int srcpath_toplevel(char **out);

#endif
