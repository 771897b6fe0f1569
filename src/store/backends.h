/*
 * backends.h - the registry of store backends: one STORE_BACKEND(NAME) line
 * per backend, naming its table NAME_store_backend (backend.h).
 *
 * store_open() uses the first backend whose accepts() takes the --db value,
 * so a backend for URLs ("postgresql://...") goes above sqlite, which
 * accepts any path and must stay last.  A backend left out of the build
 * stays in the registry as STORE_BACKEND_ABSENT(NAME, LABEL, WHY): its
 * NAME_accepts() still claims its --db values, which are then refused
 * with "this scopedb was built without the LABEL backend (WHY)" instead of
 * reaching SQLite as file names.  Included by store.c only, with both
 * macros defined.  postgres (src/store/postgres/) is built when libpq is
 * (SCOPEDB_POSTGRES, CMakeLists.txt); its uri.c, always.
 *
 * Ownership: the tables named here are the backends' static constants.
 */
#ifdef SCOPEDB_HAVE_POSTGRES
STORE_BACKEND(postgres)
#else
STORE_BACKEND_ABSENT(postgres, "PostgreSQL", "SCOPEDB_POSTGRES=OFF, or libpq-dev missing")
#endif
STORE_BACKEND(sqlite)
