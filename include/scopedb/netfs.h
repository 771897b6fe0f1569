/*
 * netfs.h - is an SQLite store on a network file system?
 *
 * SQLite's locking (and WAL's shared memory) is not reliable on NFS, SMB,
 * Lustre, GPFS and other network or cluster file systems (SQLite's own
 * documentation says so): concurrent writers from several machines can
 * corrupt the store.  Writing commands ask netfs_store() and warn,
 * pointing at the PostgreSQL backend for team stores.
 *
 * Ownership: the names returned are static strings.
 */
#ifndef SCOPEDB_NETFS_H
#define SCOPEDB_NETFS_H

/* The name of the network or cluster file system with statfs() f_type
 * type ("nfs", "cifs", "lustre", ...), or NULL for any other type. */
const char *netfs_type_name(unsigned long type);

/*
 * The network file system holding the store location (a --db value), or
 * NULL when it is not an SQLite file on one (a PostgreSQL store, a local
 * file, or a file system that cannot be asked).  A store that does not
 * exist yet is judged by its directory.
 */
const char *netfs_store(const char *location);

#endif
