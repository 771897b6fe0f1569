/*
 * testutil_stats.h - initializers of a metric value (struct stats_val of
 * scopedb/model.h) for the tables of hand-made rows in test_stats and
 * test_report: TU_NONE is None, TU_V(x) the value x.  They are constant
 * expressions, so static tables may use them.
 */
#ifndef SCOPEDB_TESTUTIL_STATS_H
#define SCOPEDB_TESTUTIL_STATS_H

#include "scopedb/model.h"

#define TU_NONE                                                                                    \
	{                                                                                          \
		1, 0.0                                                                             \
	}
#define TU_V(x)                                                                                    \
	{                                                                                          \
		0, (x)                                                                             \
	}

#endif
