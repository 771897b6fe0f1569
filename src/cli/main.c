/*
 * main.c - the scopedb entry point: the command table and the dispatch to
 * src/cmd_<name>.c.  Global --help and --version are handled here; help
 * text is generated from the table.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"

/* Sorted by name. */
const struct cmd cmd_table[] = {
    {"check", cmd_check,
     "scopedb check BASELINE CANDIDATE [--max-regression PCT] [--fail-on-new] [--metric M]\n"
     "                [--include P]... [--exclude P]... [--ranks SPEC]... [--format FMT]\n"
     "                [--db PATH]\n"
     "\n"
     "BASELINE and CANDIDATE are stored runs (selectors) or profile files:\n"
     "    42  latest  latest~N  tag:NAME[~N]  commit:PREFIX  branch:NAME[~N]\n"
     "    label:NAME[~N]  pin:NAME  path/to/profile.h5\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)\n"
     "    --metric M         gpu_total gpu_avg total avg min max p50 p95 p99 imbalance\n"
     "                       calls (default total)\n"
     "    --include P        only regions matching the Python regex P at the start of the\n"
     "                       name (repeatable, OR-ed)\n"
     "    --exclude P        drop regions matching P (repeatable; after --include)\n"
     "    --ranks SPEC       only these ranks, e.g. 0-3,8 (repeatable, unioned)\n"
     "    --format FMT       table (default), markdown, csv or json\n"
     "    --max-regression PCT  fail when a region's metric grows by more than PCT %\n"
     "                       (default 0)\n"
     "    --fail-on-new      also fail on regions without a baseline value\n"
     "\n"
     "Exit status: 0 PASS, 1 FAIL (budget exceeded), 2 error.",
     "fail (exit 1) when a run regressed against a baseline"},
    {"diff", cmd_diff,
     "scopedb diff A B [--metric M] [--sort delta|pct|name] [--threshold PCT]\n"
     "                [--include P]... [--exclude P]... [--ranks SPEC]... [--format FMT]\n"
     "                [--db PATH]\n"
     "\n"
     "A and B are stored runs (selectors) or profile files:\n"
     "    42  latest  latest~N  tag:NAME[~N]  commit:PREFIX  branch:NAME[~N]\n"
     "    label:NAME[~N]  pin:NAME  path/to/profile.h5\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)\n"
     "    --metric M         gpu_total gpu_avg total avg min max p50 p95 p99 imbalance\n"
     "                       calls (default total)\n"
     "    --include P        only regions matching the Python regex P at the start of the\n"
     "                       name (repeatable, OR-ed)\n"
     "    --exclude P        drop regions matching P (repeatable; after --include)\n"
     "    --ranks SPEC       only these ranks, e.g. 0-3,8 (repeatable, unioned)\n"
     "    --format FMT       table (default), markdown, csv or json\n"
     "    --sort KEY         delta (default), pct or name\n"
     "    --threshold PCT    hide rows whose |delta %| is below PCT",
     "compare one metric of every region of two runs"},
    {"help", cmd_help, "scopedb help [COMMAND]", "show the commands, or one command's usage"},
    {"history", cmd_history,
     "scopedb history REGION [--metric M] [--tag T]... [--branch B] [--since DATE]\n"
     "                [--until DATE] [--limit N] [--ranks SPEC]... [--format FMT] [--db PATH]\n"
     "       scopedb history --match PATTERN [options]\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)\n"
     "    --metric M         gpu_total gpu_avg total avg min max p50 p95 p99 imbalance\n"
     "                       calls (default total)\n"
     "    --match P          every region matching the Python regex P at the start of its\n"
     "                       name, one block per region (instead of REGION)\n"
     "    --tag T            only runs with tag T (repeatable: all of them)\n"
     "    --branch B         only runs of branch B\n"
     "    --since DATE       only runs recorded at or after DATE (2026-11-30,\n"
     "                       2026-11-30T02:00:00Z, or an age: 30m, 24h, 7d, 2w)\n"
     "    --until DATE       only runs recorded at or before DATE\n"
     "    --limit N          only the newest N runs that have the region\n"
     "    --ranks SPEC       only these ranks, e.g. 0-3,8 (repeatable, unioned)\n"
     "    --format FMT       table (default), markdown, csv or json\n"
     "\n"
     "One row per run, oldest first: run, recorded time, commit, label, the metric and\n"
     "its change against the previous run; the table marks the largest change.",
     "follow one region's metric across runs"},
    {"ingest", cmd_ingest,
     "scopedb ingest FILE... [--db PATH] [--tag T]... [--label L] [--commit SHA]\n"
     "                [--branch NAME] [--meta KEY=VALUE]... [--format table|json] [--quiet]\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)\n"
     "    --tag T            tag the run (repeatable; also added to an already stored run)\n"
     "    --label L          label of the run (default: the file's metadata label)\n"
     "    --commit SHA       commit (default: $GITHUB_SHA, $CI_COMMIT_SHA or $GIT_COMMIT)\n"
     "    --branch NAME      branch (default: $GITHUB_REF_NAME, $CI_COMMIT_REF_NAME or\n"
     "                       $GIT_BRANCH)\n"
     "    --meta KEY=VALUE   extra metadata (repeatable; overrides the file's)\n"
     "    --format FMT       table (default) or json\n"
     "    -q, --quiet        no progress display",
     "import scope-profiler HDF5 profiles into the store"},
    {"meta", cmd_meta,
     "scopedb meta RUN [--db PATH] [--format table|json]\n"
     "       scopedb meta A B [--all] [--db PATH] [--format table|json]\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)\n"
     "    --all              with two runs, also compare timestamps, labels and job ids\n"
     "    --format FMT       table (default) or json\n"
     "\n"
     "With one run, its metadata; with two, only the keys whose values differ.",
     "show a run's metadata, or what differs between two runs"},
    {"pin", cmd_pin,
     "scopedb pin NAME RUN [--db PATH]\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)\n"
     "\n"
     "RUN is a selector (42, latest, tag:NAME, ...); an existing pin is moved.\n"
     "Use it as pin:NAME; a pinned run cannot be removed.",
     "name a stored run, e.g. the baseline for check"},
    {"pins", cmd_pins,
     "scopedb pins [--db PATH] [--format table|json]\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)\n"
     "    --format FMT       table (default) or json",
     "list the pins"},
    {"rm", cmd_rm,
     "scopedb rm RUN... [--force] [--db PATH]\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)\n"
     "    -f, --force        also remove pinned runs (and their pins)\n"
     "\n"
     "All runs are removed in one transaction, or none.  'scopedb vacuum' gives the\n"
     "space back.",
     "remove stored runs"},
    {"runs", cmd_runs,
     "scopedb runs [--tag T]... [--branch B] [--commit PREFIX] [--label L] [--since DATE]\n"
     "                [--until DATE] [--meta KEY=VALUE]... [--limit N] [--format FMT]\n"
     "                [--db PATH]\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)\n"
     "    --tag T            only runs with tag T (repeatable: all of them)\n"
     "    --branch B         only runs of branch B\n"
     "    --commit PREFIX    only runs whose commit starts with PREFIX\n"
     "    --label L          only runs labelled L\n"
     "    --since DATE       only runs recorded at or after DATE (2026-11-30,\n"
     "                       2026-11-30T02:00:00Z, or an age: 30m, 24h, 7d, 2w)\n"
     "    --until DATE       only runs recorded at or before DATE (a bare date includes\n"
     "                       that whole day)\n"
     "    --meta KEY=VALUE   only runs whose metadata KEY is VALUE (repeatable)\n"
     "    --limit N          only the newest N matching runs\n"
     "    --format FMT       table (default), json or csv",
     "list the stored runs, newest first"},
    {"show", cmd_show,
     "scopedb show RUN [--include P]... [--exclude P]... [--ranks SPEC]...\n"
     "                [--sort COLUMN|name] [--columns LIST] [--format FMT] [--db PATH]\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)\n"
     "    --include P        only regions matching the Python regex P at the start of the\n"
     "                       name (repeatable, OR-ed)\n"
     "    --exclude P        drop regions matching P (repeatable; after --include)\n"
     "    --ranks SPEC       only these ranks, e.g. 0-3,8 (repeatable, unioned)\n"
     "    --sort COLUMN      name, or a column to sort by, largest first (default total)\n"
     "    --columns LIST     comma-separated columns among ranks calls total avg min max\n"
     "                       std p50 p95 p99 imbalance gpu_total gpu_avg\n"
     "    --format FMT       table (default), markdown, csv or json\n"
     "\n"
     "Times in seconds, imbalance in percent, std is the population standard deviation;\n"
     "gpu_total and gpu_avg are shown by default when the run has GPU data.",
     "show the per-region summary of one run"},
    {"tag", cmd_tag,
     "scopedb tag RUN TAG... [--db PATH]\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)",
     "add tags to a stored run"},
    {"unpin", cmd_unpin,
     "scopedb unpin NAME [--db PATH]\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)",
     "remove a pin"},
    {"untag", cmd_untag,
     "scopedb untag RUN TAG... [--db PATH]\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)",
     "remove tags from a stored run"},
    {"vacuum", cmd_vacuum,
     "scopedb vacuum [--db PATH]\n"
     "\n"
     "    --db PATH          store to use (default $SCOPEDB_DB, else ./scopedb.sqlite)\n"
     "\n"
     "Gives back the space of removed runs and refreshes the query planner statistics.",
     "compact the store"},
};
const size_t cmd_count = sizeof(cmd_table) / sizeof(cmd_table[0]);

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		cmd_help(1, argv);
		return CLI_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv + 1);
	if (!strcmp(argv[1], "--version")) {
		printf("scopedb %s\n", SCOPEDB_VERSION);
		return cli_finish(CLI_EXIT_OK);
	}
	if (argv[1][0] == '-') {
		fprintf(stderr, "scopedb: unknown option '%s'\n", argv[1]);
		fprintf(stderr, "usage: scopedb [--help] [--version] COMMAND [ARGS]\n");
		return CLI_EXIT_ERROR;
	}
	c = cmd_find(argv[1]);
	if (!c) {
		fprintf(stderr, "scopedb: '%s' is not a scopedb command; see 'scopedb --help'\n",
			argv[1]);
		return CLI_EXIT_ERROR;
	}
	return c->fn(argc - 1, argv + 1);
}
