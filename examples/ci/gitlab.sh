#!/usr/bin/env bash
# The scopedb step of a GitLab CI job: gitlab-ci.yml runs it after the
# benchmark has written its profiles.  tests/e2e_ci_recipes.sh runs it with
# GitLab's variables set, so it is known to work.
#
# A pipeline of the default branch ingests the profiles (commit and branch
# come from CI_COMMIT_SHA and CI_COMMIT_REF_NAME) and checks the run
# against the branch's previous commits (base:HEAD~1); a merge request
# pipeline checks its profile files, repetitions of one candidate (REPEAT
# runs of the benchmark), against the merge base with its target branch
# (base:origin/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME) without storing them;
# a pipeline of another branch against base:origin/$CI_DEFAULT_BRANCH.
# Without git's answer (a shallow clone: GIT_DEPTH 0) the baseline is
# pin:baseline, the default branch's first run.  Everything else is
# scopedb-ci.sh's (docs/ci.md).  The markdown report goes to $REPORT (an
# artifact the merge request links to) and to the job log; the same
# verdict as JUnit XML goes to $JUNIT (GitLab shows each region as a test)
# and as a Code Quality report to $CODEQUALITY (each regressed region on
# its line in the merge request's diff), both declared in gitlab-ci.yml.
# Exit status: check's (0 pass, 1 a regression, 2 an error).
#
# Environment: PROFILE (the profile files, separated by blanks; required),
# JUNIT (default scopedb-junit.xml), CODEQUALITY (default
# gl-code-quality-report.json), and as scopedb-ci.sh: SCOPEDB, SCOPEDB_DB,
# BUDGET, METRIC, WINDOW, INCONCLUSIVE, REPORT.
set -euo pipefail
main=${CI_DEFAULT_BRANCH:-main}
report=${REPORT:-scopedb-report.md}
export MAIN_BRANCH=$main REPORT=$report
if [ -z "${CI_MERGE_REQUEST_IID:-}" ] && [ "${CI_COMMIT_BRANCH:-}" = "$main" ]; then
	export ROLE=main BASE_REF=HEAD~1
else
	export ROLE=pr BASE_REF=origin/${CI_MERGE_REQUEST_TARGET_BRANCH_NAME:-$main}
fi
export OUTPUTS="junit=${JUNIT:-scopedb-junit.xml} codequality=${CODEQUALITY:-gl-code-quality-report.json}"
if [ -n "${CI_JOB_URL:-}" ]; then
	export ARTIFACT_URL="$CI_JOB_URL/artifacts/file/${HTML:-scopedb-report.html}"
fi
rc=0
bash "$(dirname "$0")/scopedb-ci.sh" || rc=$?
[ ! -s "$report" ] || cat "$report"
exit "$rc"
