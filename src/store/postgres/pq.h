/*
 * pq.h - libpq, loaded when a PostgreSQL store is first opened (private to
 * src/store/postgres/).
 *
 * scopedb does not link libpq: with its TLS, Kerberos and LDAP libraries
 * (some 20 shared objects) it made every command, SQLite ones included,
 * start ~20 ms slower.  pq_load() dlopen()s libpq.so.5 instead and fills
 * pq_api; the PQ* names below then call through it, so the backend's code
 * reads as plain libpq.  Types and constants come from libpq-fe.h.
 *
 * Ownership: the library stays loaded until the process exits.
 */
#ifndef SCOPEDB_STORE_POSTGRES_PQ_H
#define SCOPEDB_STORE_POSTGRES_PQ_H

#include <libpq-fe.h>

/* The libpq functions the backend calls: X(return type, name, parameters). */
#define PQ_FUNCTIONS(X)                                                                            \
	X(PGconn *, PQconnectdb, (const char *conninfo))                                           \
	X(ConnStatusType, PQstatus, (const PGconn *conn))                                          \
	X(char *, PQerrorMessage, (const PGconn *conn))                                            \
	X(char *, PQuser, (const PGconn *conn))                                                    \
	X(void, PQfinish, (PGconn * conn))                                                         \
	X(PQnoticeProcessor, PQsetNoticeProcessor,                                                 \
	  (PGconn * conn, PQnoticeProcessor proc, void *arg))                                      \
	X(PGresult *, PQexec, (PGconn * conn, const char *query))                                  \
	X(PGresult *, PQexecParams,                                                                \
	  (PGconn * conn, const char *command, int nParams, const Oid *paramTypes,                 \
	   const char *const *paramValues, const int *paramLengths, const int *paramFormats,       \
	   int resultFormat))                                                                      \
	X(ExecStatusType, PQresultStatus, (const PGresult *res))                                   \
	X(char *, PQresultErrorField, (const PGresult *res, int fieldcode))                        \
	X(char *, PQresultErrorMessage, (const PGresult *res))                                     \
	X(void, PQclear, (PGresult * res))                                                         \
	X(int, PQntuples, (const PGresult *res))                                                   \
	X(char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num))                   \
	X(int, PQgetisnull, (const PGresult *res, int tup_num, int field_num))                     \
	X(int, PQgetlength, (const PGresult *res, int tup_num, int field_num))                     \
	X(int, PQnfields, (const PGresult *res))                                                   \
	X(Oid, PQftype, (const PGresult *res, int field_num))                                      \
	X(char *, PQfname, (const PGresult *res, int field_num))                                   \
	X(char *, PQcmdTuples, (PGresult * res))                                                   \
	X(char *, PQcmdStatus, (PGresult * res))                                                   \
	X(PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn))                      \
	X(int, PQputCopyData, (PGconn * conn, const char *buffer, int nbytes))                     \
	X(int, PQputCopyEnd, (PGconn * conn, const char *errormsg))                                \
	X(PGresult *, PQgetResult, (PGconn * conn))                                                \
	X(int, PQsendQueryParams,                                                                  \
	  (PGconn * conn, const char *command, int nParams, const Oid *paramTypes,                 \
	   const char *const *paramValues, const int *paramLengths, const int *paramFormats,       \
	   int resultFormat))                                                                      \
	X(int, PQsetSingleRowMode, (PGconn * conn))

#define PQ_MEMBER(ret, name, params) ret(*name) params;
struct pq_api {
	PQ_FUNCTIONS(PQ_MEMBER)
};
#undef PQ_MEMBER

/* Filled by pq_load(). */
extern struct pq_api pq_api;

/* Load libpq.so.5 once (later calls return at once); ERR_IO "cannot open
 * store 'LOCATION': ..." naming the library when it cannot be loaded. */
int pq_load(const char *location);

/* Every PQ* call of the backend goes through pq_api (not in pq.c, which
 * fills it by name). */
#ifndef PQ_NO_REDIRECT
#define PQconnectdb pq_api.PQconnectdb
#define PQstatus pq_api.PQstatus
#define PQerrorMessage pq_api.PQerrorMessage
#define PQuser pq_api.PQuser
#define PQfinish pq_api.PQfinish
#define PQsetNoticeProcessor pq_api.PQsetNoticeProcessor
#define PQexec pq_api.PQexec
#define PQexecParams pq_api.PQexecParams
#define PQresultStatus pq_api.PQresultStatus
#define PQresultErrorField pq_api.PQresultErrorField
#define PQresultErrorMessage pq_api.PQresultErrorMessage
#define PQclear pq_api.PQclear
#define PQntuples pq_api.PQntuples
#define PQgetvalue pq_api.PQgetvalue
#define PQgetisnull pq_api.PQgetisnull
#define PQgetlength pq_api.PQgetlength
#define PQnfields pq_api.PQnfields
#define PQftype pq_api.PQftype
#define PQfname pq_api.PQfname
#define PQcmdTuples pq_api.PQcmdTuples
#define PQcmdStatus pq_api.PQcmdStatus
#define PQtransactionStatus pq_api.PQtransactionStatus
#define PQputCopyData pq_api.PQputCopyData
#define PQputCopyEnd pq_api.PQputCopyEnd
#define PQgetResult pq_api.PQgetResult
#define PQsendQueryParams pq_api.PQsendQueryParams
#define PQsetSingleRowMode pq_api.PQsetSingleRowMode
#endif

#endif
