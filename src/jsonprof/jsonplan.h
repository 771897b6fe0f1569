/*
 * jsonplan.h - the plan of a JSON profile's read (docs/format.md section
 * 11.2): a first pass over the document that finds the last row of each
 * rank, so that the reader can say rank_last (scopedb/h5prof.h) and each
 * rank's call tree is built as soon as its rows are read, whatever order
 * the document gives them in.
 *
 * The same pass counts each rank's calls (the values of its rows'
 * "start_times_ns"), so that a row of a rank of more calls than the call
 * tree holds can go in pieces, as in an HDF5 file.
 *
 * Ownership: struct jsonplan owns its three arrays; jsonplan_release()
 * frees them (and accepts a zeroed plan).
 */
#ifndef SCOPEDB_JSONPLAN_H
#define SCOPEDB_JSONPLAN_H

#include <stddef.h>
#include <stdint.h>

struct jsonplan {
	uint32_t *rank;	      /* each row's "rank" (UINT32_MAX: none the reader takes) */
	unsigned char *last;  /* 1 for the last row of its rank; NULL: no plan */
	uint64_t *rank_calls; /* the calls of each row's rank: the values of its
				 rows' "start_times_ns" (h5prof_row.rank_calls) */
	size_t n;	      /* rows */
};

struct jtok;

/*
 * Read the document of src again, from its start, and make *out.  A
 * document this pass cannot read, or of more than 2^22 rows, gets no plan
 * (out->last stays NULL) and no error: the read itself says what is
 * wrong with it.
 */
void jsonplan_make(struct jsonplan *out, const struct jtok *src);
void jsonplan_release(struct jsonplan *p);

#endif
