/*
 * jsonplan.h - the plan of a JSON profile's read (docs/format.md section
 * 11.2): a first pass over the document that finds the last row of each
 * rank, so that the reader can say rank_last (scopedb/h5prof.h) and each
 * rank's call tree is built as soon as its rows are read, whatever order
 * the document gives them in.
 *
 * The same pass counts each row's and each rank's calls (the values of
 * "start_times_ns"), so that the reader knows before it reads a row
 * whether it goes in pieces (a row of piece_min calls or more, or of a
 * quarter of that in a rank of as many: the HDF5 reader's rule), and
 * spills only those lists to a temporary file.
 *
 * Ownership: struct jsonplan owns its four arrays; jsonplan_release()
 * frees them (and accepts a zeroed plan).
 */
#ifndef SCOPEDB_JSONPLAN_H
#define SCOPEDB_JSONPLAN_H

#include <stddef.h>
#include <stdint.h>

struct jsonplan {
	uint32_t *rank;	       /* each row's "rank" (UINT32_MAX: none the reader takes) */
	unsigned char *last;   /* 1 for the last row of its rank; NULL: no plan */
	uint64_t *rank_calls;  /* the calls of each row's rank: the values of its
				  rows' "start_times_ns" (h5prof_row.rank_calls) */
	unsigned char *pieces; /* 1 for a row to go in pieces (piece_min of
				  jsonplan_make(): h5prof_set_piece_min()'s rule) */
	size_t n;	       /* rows */
};

struct jtok;

/*
 * Read the document of src again, from its start, and make *out (its
 * pieces for piece_min, 0: none).  A
 * document this pass cannot read, or of more than 2^22 rows, gets no plan
 * (out->last stays NULL) and no error: the read itself says what is
 * wrong with it.
 */
void jsonplan_make(struct jsonplan *out, const struct jtok *src, uint64_t piece_min);
void jsonplan_release(struct jsonplan *p);

#endif
