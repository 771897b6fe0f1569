/*
 * backends.h - the registry of store backends: one STORE_BACKEND(NAME) line
 * per backend, naming its table NAME_store_backend (backend.h).
 *
 * store_open() uses the first backend whose accepts() takes the --db value,
 * so a backend for URLs ("postgresql://...") goes above sqlite, which
 * accepts any path and must stay last.  Included by store.c only, with
 * STORE_BACKEND defined.  postgres (src/store/postgres/) is built when
 * libpq is (SCOPEDB_POSTGRES, CMakeLists.txt).
 */
#ifdef SCOPEDB_HAVE_POSTGRES
STORE_BACKEND(postgres)
#endif
STORE_BACKEND(sqlite)
