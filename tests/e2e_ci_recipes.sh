#!/usr/bin/env bash
# The recipes of docs/ci.md run as a CI would run
# them: examples/ci/github.sh with GitHub Actions' variables (push to main,
# pull requests, $GITHUB_STEP_SUMMARY in a file) and examples/ci/gitlab.sh
# with GitLab's (default branch, merge requests), on profiles made by
# mkprofile: the first main run pins the baseline, a planted regression
# fails (exit 1) with the region named in the report, a pull request is
# checked without being stored, and concurrent main jobs on one store all
# land.  The YAML snippets must call these scripts.
. "$(dirname "$0")/e2e-lib.sh"
M=$MKPROFILE
CI_DIR=$EXAMPLES/ci
export SCOPEDB # the recipes' scopedb command
# the same benchmark run again and again: within 2 % of the first, except
# the planted 30 % regression of solve
day=0
mk() { day=$((day + 1)); "$M" --seed 1 --timestamp "2024-01-0${day}T00:00:00Z" "$@" >/dev/null; }
mk base.h5
mk --scale 1.01 ok.h5
mk --scale 0.99 ok2.h5
mk --scale 1.02 ok3.h5
mk --slow solve=1.3 slow.h5
mk --scale 1.01 --slow solve=1.3 slow2.h5
sha() { printf '%040d' "$1"; }

if tcase yaml; then
for y in github-workflow.yml gitlab-ci.yml; do
	contains "$y calls its script" "$(cat "$CI_DIR/$y")" "examples/ci/${y%%-*}.sh"
done
contains "gitlab-ci.yml declares the junit report" "$(cat "$CI_DIR/gitlab-ci.yml")" \
	"junit: scopedb-junit.xml"
for y in github-workflow.yml gitlab-ci.yml; do
	contains "$y keeps the html report" "$(cat "$CI_DIR/$y")" "scopedb-report.html"
done

fi

# --- GitHub Actions ------------------------------------------------------------
if tcase github; then
mkdir gh && cd gh || exit 1
gh_env() { # EVENT REF_NAME HEAD_REF SHA: the job's environment, then the script
	env GITHUB_ACTIONS=true GITHUB_EVENT_NAME="$1" GITHUB_REF_NAME="$2" GITHUB_HEAD_REF="$3" \
		GITHUB_SHA="$(sha "$4")" GITHUB_STEP_SUMMARY="$PWD/summary.md" PROFILE="$5" \
		BUDGET=5 METRIC=p95 bash "$CI_DIR/github.sh"
}
db=.scopedb/history.sqlite
: >summary.md
run gh_env pull_request 7/merge feature 70 ../ok.h5
equals "gh: pr before any baseline" "$rc" 0
equals "gh: no baseline summary" "$(cat summary.md)" \
	"scopedb: no baseline yet: no store at $db (the first run on main pins it)"
[ -e "$db" ] && bad "gh: a pull request created the store" || ok

# a broken scopedb fails the job, with or without a store
: >summary.md
SCOPEDB=/nonexistent/scopedb run gh_env pull_request 7/merge feature 70 ../ok.h5
equals "gh: broken binary fails the job" "$rc" 2
contains "gh: broken binary named" "$err" "scopedb: cannot run '/nonexistent/scopedb'"
equals "gh: broken binary no note" "$(cat summary.md)" ""

: >summary.md
run gh_env push main "" 1 ../base.h5
equals "gh: first main run" "$rc" 0
equals "gh: baseline pinned" "$(sql "$db" "select run_id from pins where name = 'baseline'")" 1
equals "gh: identity from GITHUB_*" "$(sql "$db" "select commit_sha || ' ' || branch from runs")" \
	"$(sha 1) main"
contains "gh: summary pass" "$(cat summary.md)" "### Regression check: PASS"
equals "gh: no warning" "$err" ""

: >summary.md
run gh_env push main "" 2 ../ok.h5
equals "gh: second main run" "$rc" 0
equals "gh: baseline stays" "$(sql "$db" "select run_id from pins where name = 'baseline'")" 1
equals "gh: two runs" "$(sql "$db" "select count(*) from runs")" 2
contains "gh: candidate is run 2" "$(cat summary.md)" "**Candidate:** run 2"

# the store exists but cannot be read: the pull request fails (exit 2)
cp "$db" good.sqlite
printf 'not a database at all, just some bytes long enough to be a header' >"$db"
: >summary.md
run gh_env pull_request 7/merge feature 70 ../ok.h5
equals "gh: corrupt store fails the job" "$rc" 2
contains "gh: corrupt store named" "$err" "scopedb: cannot list the pins of $db"
equals "gh: corrupt store no note" "$(cat summary.md)" ""
SCOPEDB=/nonexistent/scopedb run gh_env pull_request 7/merge feature 70 ../ok.h5
equals "gh: broken binary with a store" "$rc" 2
mv good.sqlite "$db"
# a store without the pin: a note, exit 0
SCOPEDB_DB=$db "$SCOPEDB" unpin baseline >/dev/null
: >summary.md
run gh_env pull_request 7/merge feature 70 ../ok.h5
equals "gh: no pin yet passes" "$rc" 0
equals "gh: no pin note" "$(cat summary.md)" \
	"scopedb: no baseline yet (the first run on main pins it)"
SCOPEDB_DB=$db "$SCOPEDB" pin baseline 1 >/dev/null

: >summary.md
run gh_env pull_request 7/merge feature 71 ../slow.h5
equals "gh: pr regression fails" "$rc" 1
contains "gh: summary fail" "$(cat summary.md)" "### Regression check: FAIL"
contains "gh: summary names the region" "$(cat summary.md)" "budget violations: solve"
contains "gh: summary file candidate" "$(cat summary.md)" "**Candidate:** ../slow.h5 (file"
equals "gh: pr not stored" "$(sql "$db" "select count(*) from runs")" 2
cmp -s summary.md scopedb-report.md && ok || bad "gh: report file is the summary"
contains "gh: html report of the pr" "$(cat scopedb-report.html)" "Regression check: FAIL"

: >summary.md
run gh_env pull_request 8/merge other 72 ../ok2.h5
equals "gh: pr pass" "$rc" 0
contains "gh: pr summary pass" "$(cat summary.md)" "PASS"
equals "gh: still not stored" "$(sql "$db" "select count(*) from runs")" 2

: >summary.md
run gh_env push feature "" 73 ../ok3.h5
equals "gh: push to another branch only checks" "$rc" 0
equals "gh: other branch not stored" "$(sql "$db" "select count(*) from runs")" 2

: >summary.md
run gh_env push main "" 3 ../slow.h5
equals "gh: main regression fails" "$rc" 1
equals "gh: main regression is recorded" "$(sql "$db" "select count(*) from runs")" 3

# concurrent main jobs on one machine share the store safely
: >summary.md
gh_env push main "" 4 ../ok2.h5 >/dev/null 2>c1.err &
p1=$!
gh_env push main "" 5 ../ok3.h5 >/dev/null 2>c2.err &
p2=$!
wait $p1
r1=$?
wait $p2
r2=$?
equals "gh: concurrent jobs pass" "$r1 $r2" "0 0"
equals "gh: concurrent jobs stored" "$(sql "$db" "select count(*) from runs")" 5
equals "gh: concurrent stderr" "$(cat c1.err c2.err)" ""
equals "gh: one baseline" "$(sql "$db" "select name || ' ' || run_id from pins")" "baseline 1"
cd .. || exit 1

fi

# --- GitLab CI -------------------------------------------------------------------
if tcase gitlab; then
mkdir gl && cd gl || exit 1
gl_main() { # SHA PROFILE: a default-branch pipeline
	env GITLAB_CI=true CI_PIPELINE_SOURCE=push CI_DEFAULT_BRANCH=main CI_COMMIT_BRANCH=main \
		CI_COMMIT_REF_NAME=main CI_COMMIT_SHA="$(sha "$1")" PROFILE="$2" \
		BUDGET=5 METRIC=p95 bash "$CI_DIR/gitlab.sh"
}
gl_mr() { # SHA PROFILE: a merge request pipeline of branch fix-io
	env GITLAB_CI=true CI_PIPELINE_SOURCE=merge_request_event CI_DEFAULT_BRANCH=main \
		CI_MERGE_REQUEST_IID=12 CI_MERGE_REQUEST_SOURCE_BRANCH_NAME=fix-io \
		CI_COMMIT_REF_NAME=fix-io CI_COMMIT_SHA="$(sha "$1")" PROFILE="$2" \
		BUDGET=5 METRIC=p95 bash "$CI_DIR/gitlab.sh"
}
db=.scopedb/history.sqlite
run gl_mr 80 ../ok.h5
equals "gl: mr before any baseline" "$rc" 0
contains "gl: no baseline" "$out" "no baseline yet"
[ -e "$db" ] && bad "gl: a merge request created the store" || ok
SCOPEDB=/nonexistent/scopedb run gl_mr 80 ../ok.h5
equals "gl: broken binary fails the job" "$rc" 2
contains "gl: broken binary named" "$err" "scopedb: cannot run '/nonexistent/scopedb'"

run gl_main 1 ../base.h5
equals "gl: first run" "$rc" 0
equals "gl: baseline pinned" "$(sql "$db" "select run_id from pins where name = 'baseline'")" 1
equals "gl: identity from CI_*" "$(sql "$db" "select commit_sha || ' ' || branch from runs")" \
	"$(sha 1) main"
contains "gl: report pass" "$(cat scopedb-report.md)" "### Regression check: PASS"
contains "gl: log has the report" "$out" "### Regression check: PASS"

run gl_main 2 ../ok.h5
equals "gl: second run" "$rc" 0
equals "gl: two runs" "$(sql "$db" "select count(*) from runs")" 2
xmllint --noout scopedb-junit.xml && ok || bad "gl: junit of a pass is well-formed"
contains "gl: junit pass" "$(cat scopedb-junit.xml)" 'failures="0"'

cp "$db" good.sqlite
printf 'not a database at all, just some bytes long enough to be a header' >"$db"
run gl_mr 81 ../ok.h5
equals "gl: corrupt store fails the job" "$rc" 2
contains "gl: corrupt store named" "$err" "scopedb: cannot list the pins of $db"
mv good.sqlite "$db"

run gl_mr 81 ../slow2.h5
equals "gl: mr regression fails" "$rc" 1
contains "gl: mr report fail" "$(cat scopedb-report.md)" "budget violations: solve"
contains "gl: html report of the mr" "$(cat scopedb-report.html)" "Regression check: FAIL"
contains "gl: html report trends of main" "$(cat scopedb-report.html)" "of branch &apos;main&apos;"
[ -s scopedb-junit.xml ] && ok || bad "gl: junit written"
xmllint --noout scopedb-junit.xml && ok || bad "gl: junit is well-formed"
equals "gl: junit failure is solve" \
	"$(xmllint --xpath 'string(//testcase[failure]/@name)' scopedb-junit.xml)" solve
equals "gl: junit one failure" \
	"$(xmllint --xpath 'count(//testcase/failure)' scopedb-junit.xml)" 1
equals "gl: mr not stored" "$(sql "$db" "select count(*) from runs")" 2

run gl_mr 82 ../ok2.h5
equals "gl: mr pass" "$rc" 0

run gl_main 3 ../slow2.h5
equals "gl: main regression fails" "$rc" 1
equals "gl: main regression recorded" "$(sql "$db" "select count(*) from runs")" 3
equals "gl: baseline stays" "$(sql "$db" "select run_id from pins where name = 'baseline'")" 1
cd .. || exit 1

fi

finish
