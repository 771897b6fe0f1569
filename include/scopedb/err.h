/*
 * err.h - error codes and the last error message.
 *
 * Core functions return 0 on success or one of the negative ERR_* codes
 * below, after recording a human-readable message with err_set().  Callers
 * propagate the code without overwriting the message; only the command
 * layer prints it (as "scopedb: <message>") and turns it into an exit code.
 * The message is kept in a per-thread buffer owned by this module.
 *
 * Ownership: err_msg() returns that buffer, valid until the next err_set()
 * or err_clear() of the thread; nothing here allocates for the caller.
 */
#ifndef SCOPEDB_ERR_H
#define SCOPEDB_ERR_H

enum {
	ERR_OK = 0,
	ERR_GENERIC = -1,  /* anything not covered below */
	ERR_NOMEM = -2,	   /* allocation failed */
	ERR_IO = -3,	   /* file missing, unreadable, unwritable */
	ERR_FORMAT = -4,   /* input file is not a valid scope-profiler file */
	ERR_STORE = -5,	   /* SQLite failure or incompatible store */
	ERR_USAGE = -6,	   /* bad argument or option value */
	ERR_NOTFOUND = -7, /* selector or name matches nothing */
	ERR_BUSY = -8,	   /* store locked by another process for too long */
};

/* Record a printf-style message; returns code so callers can write
 * "return err_set(ERR_FORMAT, ...)". */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int err_set(int code, const char *fmt, ...);

/* Record "out of memory" and return ERR_NOMEM. */
int err_nomem(void);

/* The last recorded message ("" if none).  Owned by this module. */
const char *err_msg(void);

/* The code passed to the last err_set() (ERR_OK after err_clear()). */
int err_code(void);

void err_clear(void);

#endif
