#!/usr/bin/env bash
# The scopedb step of a GitLab CI job: gitlab-ci.yml runs it after the
# benchmark has written its profile.  tests/e2e_ci_recipes.sh runs it with
# GitLab's variables set, so it is known to work.
#
# A pipeline of the default branch ingests the profile (commit and branch
# come from CI_COMMIT_SHA and CI_COMMIT_REF_NAME), pins the first run as the
# baseline (pin --if-missing) and checks the run against it.  A merge
# request pipeline, or one of another branch, checks its profile file
# against the baseline without storing it: diff and check read a file into
# a temporary store, so nothing of a merge request enters the default
# branch's history.  The markdown report goes to $REPORT (an artifact the
# merge request links to) and to the job log; the same verdict as JUnit XML
# goes to $JUNIT, which gitlab-ci.yml declares as a junit report so GitLab
# shows each region as a test (a failure per region over the budget).
# Exit status: check's (0 pass, 1 a region over the budget, 2 an error).
#
# Environment: PROFILE (the profile to check; required), SCOPEDB (the
# scopedb command; default scopedb), SCOPEDB_DB (the store; default
# .scopedb/history.sqlite, the cached folder), BUDGET (percent; default 5),
# METRIC (default p95), REPORT (default scopedb-report.md), JUNIT (default
# scopedb-junit.xml).
set -euo pipefail
: "${PROFILE:?set PROFILE to the profile this job wrote}"
scopedb=${SCOPEDB:-scopedb}
export SCOPEDB_DB=${SCOPEDB_DB:-.scopedb/history.sqlite}
report=${REPORT:-scopedb-report.md}
junit=${JUNIT:-scopedb-junit.xml}
mkdir -p "$(dirname "$SCOPEDB_DB")"
"$scopedb" --version >/dev/null || {
	echo "scopedb: cannot run '$scopedb' (set SCOPEDB to the scopedb binary)" >&2
	exit 2
}

if [ -z "${CI_MERGE_REQUEST_IID:-}" ] &&
	[ "${CI_COMMIT_BRANCH:-}" = "${CI_DEFAULT_BRANCH:-main}" ]; then
	# the default branch: record the run; its first run becomes the baseline
	run=$("$scopedb" ingest --tag ci --format json "$PROFILE" | jq -r '.[0].run')
	"$scopedb" pin baseline "$run" --if-missing
	candidate=$run
else
	# a merge request: compare the file, store nothing.  No store yet,
	# or no baseline pin in it: the first run on ${CI_DEFAULT_BRANCH:-main}
	# has not happened (a note, exit 0).  An unreadable store fails the job
	# (exit 2).
	if [ ! -e "$SCOPEDB_DB" ]; then
		echo "scopedb: no baseline yet: no store at $SCOPEDB_DB (the first run on ${CI_DEFAULT_BRANCH:-main} pins it)" |
			tee "$report"
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
		echo "scopedb: no baseline yet (the first run on ${CI_DEFAULT_BRANCH:-main} pins it)" |
			tee "$report"
		exit 0
	fi
	candidate=$PROFILE
fi
rc=0
"$scopedb" check pin:baseline "$candidate" --metric "${METRIC:-p95}" \
	--max-regression "${BUDGET:-5}" --format markdown --output junit="$junit" \
	>"$report" || rc=$?
cat "$report"
# The HTML report for people (an artifact): the verdict, the main branch's
# trends, the distributions and the ranks.  The check above decides the job.
if [ "$rc" -lt 2 ]; then
	"$scopedb" report pin:baseline "$candidate" --metric "${METRIC:-p95}" \
		--max-regression "${BUDGET:-5}" --branch "${CI_DEFAULT_BRANCH:-main}" -o scopedb-report.html ||
		echo "scopedb: no HTML report (the check above stands)" >&2
fi
exit "$rc"
