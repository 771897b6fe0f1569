#!/usr/bin/env bash
# The scopedb step of a GitHub Actions job: github-workflow.yml runs it
# after the benchmark has written its profiles.  tests/e2e_ci_recipes.sh
# runs it with GitHub's variables set, so it is known to work.
#
# A push to the main branch ingests the profiles (commit and branch come
# from GITHUB_SHA and GITHUB_REF_NAME) and checks the run against main's
# previous commits (base:HEAD~1); a pull request checks its profile files,
# repetitions of one candidate (REPEAT runs of the benchmark), against the
# merge base with its target branch (base:origin/$GITHUB_BASE_REF) without
# storing them; a push to another branch against base:origin/MAIN_BRANCH.
# Without git's answer (a shallow checkout: use fetch-depth: 0) the
# baseline is pin:baseline, main's first run.  Everything else is
# scopedb-ci.sh's (which check, statistical or point, and why; docs/ci.md).
# The markdown report is appended to the job summary ($GITHUB_STEP_SUMMARY)
# with a link to the run's artifacts (the HTML report) and kept in
# $REPORT; each regressed region is an annotation on its line of code
# (the workflow commands of check --format github, printed to the log).
# Exit status: check's (0 pass, 1 a regression, 2 an error).
#
# Environment: PROFILE (the profile files, separated by blanks; required),
# and as scopedb-ci.sh: SCOPEDB, SCOPEDB_DB, BUDGET, METRIC, MAIN_BRANCH,
# WINDOW, INCONCLUSIVE, REPORT.
set -euo pipefail
main=${MAIN_BRANCH:-main}
annotations=${ANNOTATIONS:-scopedb-annotations.txt}
if [ "${GITHUB_EVENT_NAME:-}" = push ] && [ "${GITHUB_REF_NAME:-}" = "$main" ]; then
	export ROLE=main BASE_REF=HEAD~1
else
	export ROLE=pr BASE_REF=origin/${GITHUB_BASE_REF:-$main}
fi
export SUMMARY=${GITHUB_STEP_SUMMARY:-/dev/null} OUTPUTS="github=$annotations"
if [ -n "${GITHUB_RUN_ID:-}" ]; then
	export ARTIFACT_URL="${GITHUB_SERVER_URL:-https://github.com}/${GITHUB_REPOSITORY:-}/actions/runs/$GITHUB_RUN_ID#artifacts"
fi
rm -f "$annotations"
rc=0
bash "$(dirname "$0")/scopedb-ci.sh" || rc=$?
# the annotations: workflow commands GitHub reads from the step's log
[ ! -s "$annotations" ] || cat "$annotations"
exit "$rc"
