#!/usr/bin/env bash
# The scopedb step of a GitHub Actions job: github-workflow.yml runs it
# after the benchmark has written its profile.  tests/e2e_ci_recipes.sh
# runs it with GitHub's variables set, so it is known to work.
#
# A push to the main branch ingests the profile (commit and branch come from
# GITHUB_SHA and GITHUB_REF_NAME), pins the first run as the baseline
# (pin --if-missing) and checks the run against it.  A pull request, or a
# push to another branch, checks its profile file against the baseline
# without storing it: diff and check read a file into a temporary store, so
# nothing of a pull request enters main's history.  The markdown report is
# appended to the job summary ($GITHUB_STEP_SUMMARY) and kept in $REPORT
# (e.g. for a pull request comment).  Exit status: check's (0 pass, 1 a
# region over the budget, 2 an error).
#
# Environment: PROFILE (the profile to check; required), SCOPEDB (the
# scopedb command; default scopedb), SCOPEDB_DB (the store; default
# .scopedb/history.sqlite, the cached folder), BUDGET (percent; default 5),
# METRIC (default p95), MAIN_BRANCH (default main), REPORT (default
# scopedb-report.md).
set -euo pipefail
: "${PROFILE:?set PROFILE to the profile this job wrote}"
scopedb=${SCOPEDB:-scopedb}
export SCOPEDB_DB=${SCOPEDB_DB:-.scopedb/history.sqlite}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
report=${REPORT:-scopedb-report.md}
mkdir -p "$(dirname "$SCOPEDB_DB")"
"$scopedb" --version >/dev/null || {
	echo "scopedb: cannot run '$scopedb' (set SCOPEDB to the scopedb binary)" >&2
	exit 2
}

if [ "${GITHUB_EVENT_NAME:-}" = push ] && [ "${GITHUB_REF_NAME:-}" = "${MAIN_BRANCH:-main}" ]; then
	# main: record the run; its first run becomes the baseline
	run=$("$scopedb" ingest --tag ci --format json "$PROFILE" | jq -r '.[0].run')
	"$scopedb" pin baseline "$run" --if-missing
	candidate=$run
else
	# a pull request: compare the file, store nothing.  No store yet, or
	# no pin in it: the first run on ${MAIN_BRANCH:-main} has not happened
	# (a note, exit 0).  Anything else (a corrupt store, no jq) fails the
	# job (exit 2).
	if [ ! -e "$SCOPEDB_DB" ]; then
		echo "scopedb: no baseline yet: no store at $SCOPEDB_DB (the first run on ${MAIN_BRANCH:-main} pins it)" |
			tee -a "$summary"
		exit 0
	fi
	pins=$("$scopedb" pins --format json) || {
		echo "scopedb: cannot list the pins of $SCOPEDB_DB" >&2
		exit 2
	}
	have=$(jq -e 'any(.[]; .name == "baseline")' <<<"$pins") || [ "$have" = false ] || {
		echo "scopedb: cannot read the pins of $SCOPEDB_DB" >&2
		exit 2
	}
	if [ "$have" != true ]; then
		echo "scopedb: no baseline yet (the first run on ${MAIN_BRANCH:-main} pins it)" |
			tee -a "$summary"
		exit 0
	fi
	candidate=$PROFILE
fi
rc=0
"$scopedb" check pin:baseline "$candidate" --metric "${METRIC:-p95}" \
	--max-regression "${BUDGET:-5}" --format markdown >"$report" || rc=$?
cat "$report" >>"$summary"
# The HTML report for people (an artifact): the verdict, the main branch's
# trends, the distributions and the ranks.  The check above decides the job.
if [ "$rc" -lt 2 ]; then
	"$scopedb" report pin:baseline "$candidate" --metric "${METRIC:-p95}" \
		--max-regression "${BUDGET:-5}" --branch "${MAIN_BRANCH:-main}" -o scopedb-report.html ||
		echo "scopedb: no HTML report (the check above stands)" >&2
fi
exit "$rc"
