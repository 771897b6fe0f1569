/*
 * ingest_child.h - the body of ingest's reader child (ingest_child.c),
 * which child_start() (util/child.h) runs in a process of its own.
 *
 * Ownership: nothing crosses but the frames written to fd.
 */
#ifndef SCOPEDB_INGEST_CHILD_H
#define SCOPEDB_INGEST_CHILD_H

#include <stdint.h>

/*
 * Read the profile at path (a const char *, as the void * of child_start())
 * and write its frames to fd: WIRE_INFO, the rows, the hash, the call
 * trees' frames, then WIRE_END, or WIRE_ERROR with the message.  0, or 1
 * when the frames could not be written.
 */
int ingest_child_main(void *path, int fd);

/*
 * The body of a served reader (child_start_serve()): read the files whose
 * paths come as its jobs, one after another, each as ingest_child_main()
 * reads one, libhdf5 closed after each (h5prof_reset()).  arg: the reader's
 * struct child_limits (each file's CPU and memory limits).  0 at the end
 * of its jobs; 1 after a file that failed (the reader is not reused), or
 * when frames could not be written or the jobs' input broke.
 */
int ingest_child_serve(void *arg, int fd);

/*
 * The CPU seconds a reader may spend on a file of file_bytes bytes (each
 * reader, with a --file-timeout): 5 s and 10 s a MiB, 100 times what any
 * file the tests and benchmarks read takes, even under the sanitizers
 * and gzip-compressed.  A damaged file can make libhdf5 loop forever (a
 * global heap read again and again); the reader is then stopped in
 * seconds, not at --file-timeout.
 */
unsigned ingest_cpu_budget(uint64_t file_bytes);

/* Testing hook: the readers started after it hold at most max_held calls
 * for a rank's call tree (0: CALLTREE_MAX_HELD), so that rows past the
 * budget, given up and sorted where they lie, can be small. */
void ingest_testing_tree_budget(uint64_t max_held);

struct calltree_row;
struct h5prof_row;

/* The call-tree builder's row (calltree.h) for a profile row: every field
 * set, the arrays borrowed from row. */
void ingest_child_tree_row(struct calltree_row *out, const struct h5prof_row *row);

#endif
