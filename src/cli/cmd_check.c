/*
 * cmd_check.c - "scopedb check BASELINE CANDIDATE": the CI gate.  Same
 * rows as diff (sorted by delta %), plus the regression budget
 * (--max-regression, --fail-on-new, --fail-on-missing) and the verdict;
 * exit 0 on PASS, 1 on FAIL, 2 on any error, so a regression is told apart
 * from a broken job.  A check never passes on nothing: comparing no region,
 * or runs that differ in mpi_size, platform or a --require-same key, is
 * an error (exit 2).
 * The option parsing and printing are shared with diff (cmd_compare() in
 * cmd_diff.c).
 */
#include "cmd.h"

int cmd_check(int argc, char **argv)
{
	return cmd_compare(argc, argv, 1);
}
