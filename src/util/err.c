/*
 * err.c - the last error message, recorded by core functions and printed by
 * the command layer.  One buffer per thread: core functions may run on
 * helper threads (store_finish_run() computes percentiles on two), and a
 * helper's failure must not overwrite or race with the calling thread's.
 */
#include <stdarg.h>
#include <stdio.h>

#include "scopedb/err.h"

static _Thread_local char err_buf[1024];
static _Thread_local int err_last;

int err_set(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err_buf, sizeof(err_buf), fmt, ap);
	va_end(ap);
	err_last = code;
	return code;
}

int err_nomem(void)
{
	return err_set(ERR_NOMEM, "out of memory");
}

const char *err_msg(void)
{
	return err_buf;
}

int err_code(void)
{
	return err_last;
}

void err_clear(void)
{
	err_buf[0] = '\0';
	err_last = ERR_OK;
}
