/*
 * pq.c - loading libpq at run time (see pq.h): dlopen() of its stable
 * soname and one dlsym() per function the backend calls, all or nothing.
 */
#include <dlfcn.h>
#include <stddef.h>

#define PQ_NO_REDIRECT
#include "scopedb/err.h"
#include "store/postgres/pq.h"

/* The soname of libpq since PostgreSQL 8.0 (Debian: libpq5). */
#define PQ_LIBRARY "libpq.so.5"

struct pq_api pq_api;

int pq_load(const char *location)
{
	static void *lib;
	const char *missing = NULL;
	void *h;

	if (lib)
		return 0;
	h = dlopen(PQ_LIBRARY, RTLD_LAZY | RTLD_LOCAL);
	if (!h)
		return err_set(ERR_IO,
			       "cannot open store '%s': the PostgreSQL client library is missing "
			       "(%s; Debian: apt-get install libpq5)",
			       location, dlerror());
#define PQ_LOAD(ret, name, params)                                                                 \
	if (!missing && !(*(void **)&pq_api.name = dlsym(h, #name)))                               \
		missing = #name;
	PQ_FUNCTIONS(PQ_LOAD)
#undef PQ_LOAD
	if (missing) {
		dlclose(h);
		return err_set(ERR_IO, "cannot open store '%s': %s has no %s", location, PQ_LIBRARY,
			       missing);
	}
	lib = h;
	return 0;
}
