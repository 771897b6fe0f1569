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
mk --scale 0.99 --slow solve=1.31 slow3.h5
sha() { printf '%040d' "$1"; }

if tcase yaml; then
for y in github-workflow.yml gitlab-ci.yml; do
	contains "$y calls its script" "$(<"$CI_DIR/$y")" "examples/ci/${y%%-*}.sh"
done
contains "gitlab-ci.yml declares the junit report" "$(<"$CI_DIR/gitlab-ci.yml")" \
	"junit: scopedb-junit.xml"
for y in github-workflow.yml gitlab-ci.yml; do
	contains "$y keeps the html report" "$(<"$CI_DIR/$y")" "scopedb-report.html"
done

fi

# --- GitHub Actions ------------------------------------------------------------
# job CMD...: one CI job, with an empty step summary (summary.md), run()
job() {
	: >summary.md
	run "$@"
}

# baseline DB: the run the store DB pins as baseline
baseline() { sql "$1" "select run_id from pins where name = 'baseline'"; }

gh_env() { # EVENT REF_NAME HEAD_REF SHA: the job's environment, then the script
	env GITHUB_ACTIONS=true GITHUB_EVENT_NAME="$1" GITHUB_REF_NAME="$2" GITHUB_HEAD_REF="$3" \
		GITHUB_SHA="$(sha "$4")" GITHUB_STEP_SUMMARY="$PWD/summary.md" PROFILE="$5" \
		BUDGET=5 METRIC=p95 bash "$CI_DIR/github.sh"
}
if tcase github; then
mkdir gh && cd gh || exit 1
db=.scopedb/history.sqlite
job gh_env pull_request 7/merge feature 70 ../ok.h5
equals "gh: pr before any baseline" "$rc" 0
equals "gh: no baseline summary" "$(<summary.md)" \
	"scopedb: no baseline yet: no store at $db (the first run on main pins it)"
[ -e "$db" ] && bad "gh: a pull request created the store" || ok

# a broken scopedb fails the job, with or without a store
SCOPEDB=/nonexistent/scopedb job gh_env pull_request 7/merge feature 70 ../ok.h5
equals "gh: broken binary fails the job" "$rc" 2
contains "gh: broken binary named" "$err" "scopedb: cannot run '/nonexistent/scopedb'"
equals "gh: broken binary no note" "$(<summary.md)" ""

job gh_env push main "" 1 ../base.h5
equals "gh: first main run" "$rc" 0
equals "gh: baseline pinned" "$(baseline "$db")" 1
equals "gh: identity from GITHUB_*" "$(sql "$db" "select commit_sha || ' ' || branch from runs")" \
	"$(sha 1) main"
# main's first run is its own baseline: a note, not a check of it against itself
equals "gh: first run: a note" "$(<summary.md)" \
	"scopedb: no baseline yet: this is the first run on main, pinned as the baseline"
equals "gh: no warning" "$err" ""

job gh_env push main "" 2 ../ok.h5
equals "gh: second main run" "$rc" 0
equals "gh: baseline stays" "$(baseline "$db")" 1
equals "gh: two runs" "$(sql "$db" "select count(*) from runs")" 2
contains "gh: candidate is run 2" "$(<summary.md)" "**Candidate:** run 2"

# the store exists but cannot be read: the pull request fails (exit 2)
cp "$db" good.sqlite
printf 'not a database at all, just some bytes long enough to be a header' >"$db"
job gh_env pull_request 7/merge feature 70 ../ok.h5
equals "gh: corrupt store fails the job" "$rc" 2
contains "gh: corrupt store named" "$err" "$db"
equals "gh: corrupt store no note" "$(<summary.md)" ""
SCOPEDB=/nonexistent/scopedb run gh_env pull_request 7/merge feature 70 ../ok.h5
equals "gh: broken binary with a store" "$rc" 2
mv good.sqlite "$db"
# a store without the pin: a note, exit 0
SCOPEDB_DB=$db "$SCOPEDB" unpin baseline >/dev/null
job gh_env pull_request 7/merge feature 70 ../ok.h5
equals "gh: no pin yet passes" "$rc" 0
equals "gh: no pin note" "$(<summary.md)" \
	"scopedb: no baseline yet (the first run on main pins it)"
SCOPEDB_DB=$db "$SCOPEDB" pin baseline 1 >/dev/null

job gh_env pull_request 7/merge feature 71 ../slow.h5
equals "gh: pr regression fails" "$rc" 1
contains "gh: summary fail" "$(<summary.md)" "### Regression check: FAIL"
contains "gh: summary names the region" "$(<summary.md)" "budget violations: solve"
contains "gh: summary file candidate" "$(<summary.md)" "**Candidate:** ../slow.h5 (file"
equals "gh: pr not stored" "$(sql "$db" "select count(*) from runs")" 2
cmp -s summary.md scopedb-report.md && ok || bad "gh: report file is the summary"
contains "gh: html report of the pr" "$(<scopedb-report.html)" "Regression check: FAIL"

job gh_env pull_request 8/merge other 72 ../ok2.h5
equals "gh: pr pass" "$rc" 0
contains "gh: pr summary pass" "$(<summary.md)" "PASS"
equals "gh: still not stored" "$(sql "$db" "select count(*) from runs")" 2

job gh_env push feature "" 73 ../ok3.h5
equals "gh: push to another branch only checks" "$rc" 0
equals "gh: other branch not stored" "$(sql "$db" "select count(*) from runs")" 2

job gh_env push main "" 3 ../slow.h5
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

# PROFILE one file a line ($(ls ...)): every file is a repetition
job gh_env pull_request 7/merge feature 74 "$(printf '../ok.h5\n../slow2.h5\n../slow3.h5')"
equals "gh: newline-separated profiles fail" "$rc" 1
contains "gh: all three are the candidate" "$(<summary.md)" "3 files"
# a check that cannot run (exit 2) says why in the summary too, as code
job env GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request GITHUB_REF_NAME=7/merge \
	GITHUB_HEAD_REF=feature GITHUB_SHA="$(sha 75)" GITHUB_STEP_SUMMARY="$PWD/summary.md" \
	PROFILE=../ok.h5 BUDGET=5 METRIC=nosuch bash "$CI_DIR/github.sh"
equals "gh: a check that cannot run" "$rc" 2
contains "gh: its error in the summary" "$(<summary.md)" \
	"**scopedb:** the check did not run (exit 2):

    scopedb: invalid --metric 'nosuch'"
contains "gh: and on stderr" "$err" "scopedb: invalid --metric 'nosuch'"
# a summary limit under the note's room: the note alone, not the whole
job env GITHUB_ACTIONS=true GITHUB_EVENT_NAME=pull_request GITHUB_REF_NAME=7/merge \
	GITHUB_HEAD_REF=feature GITHUB_SHA="$(sha 76)" GITHUB_STEP_SUMMARY="$PWD/summary.md" \
	PROFILE=../ok.h5 BUDGET=5 METRIC=p95 SUMMARY_LIMIT=300 bash "$CI_DIR/github.sh"
[ "$(wc -c <summary.md)" -le 300 ] && ok || bad "gh: SUMMARY_LIMIT=300 gave $(wc -c <summary.md) bytes"
# main's point check of several files: their median, whichever comes last
# (two of three slow: a regression, though the last file is not slow)
job gh_env push main "" 6 "../slow2.h5 ../slow3.h5 ../ok2.h5"
equals "gh: main files' median fails" "$rc" 1
contains "gh: main files are the candidate" "$(<summary.md)" "3 files"
cd .. || exit 1

fi

# --- a nested regression: the summary says where inside the time went ----------
# the real scope-profiler's nested-base.h5 on main, nested-slow.h5 (which
# sleeps inside solve itself) in a pull request: the summary carries the
# attribution line of each regressed region (docs/ci.md)
if tcase github-nested; then
mkdir ghn && cd ghn || exit 1
cp "${TESTDATA:?}"/real/nested-base.h5 "$TESTDATA"/real/nested-slow.h5 .. || exit 1
job gh_env push main "" 1 ../nested-base.h5
equals "nested: first main run" "$rc" 0
job gh_env pull_request 9/merge nested 90 ../nested-slow.h5
equals "nested: pr regression fails" "$rc" 1
contains "nested: main's attribution in the summary" "$(<summary.md)" \
	"- main p95 +88.1%, total +117 ms: 134% from main \> solve (+157 ms self)"
contains "nested: solve's own" "$(<summary.md)" \
	"- solve p95 +42.7%, total +141 ms: 111% from main \> solve (+157 ms self)"
cd .. || exit 1
fi

# --- with git: baselines by ancestry, the statistical check, annotations -------
# proj/: main c1..c6 (the jobs' commits), feature from c4 (a pull request),
# origin/main as a fetch leaves it; each main job runs on its commit
if tcase setup-git; then
mkdir proj && (cd proj && git init -q -b main . && for c in 1 2 3 4 5 6; do
	echo "$c" >>f && git add f && git -c user.email=t@x -c user.name=t commit -q -m "c$c"
done && git update-ref refs/remotes/origin/main main &&
	git checkout -q -b feature main~2 && echo f >>f &&
	git -c user.email=t@x -c user.name=t commit -q -am f1) || bad "git set-up"
csha() { git -C "$E2E_DIR/proj" rev-parse "main~$((6 - $1))"; }
fi

if tcase github-git; then
cd proj || exit 1
db=.scopedb/history.sqlite
gh_git() { # EVENT REF_NAME SHA|- PROFILES...: a job with git, WINDOW=3, a run id
	local ev=$1 ref=$2 sha=$3
	shift 3
	[ "$sha" = - ] || git checkout -q --detach "$sha"
	env GITHUB_ACTIONS=true GITHUB_EVENT_NAME="$ev" GITHUB_REF_NAME="$ref" \
		GITHUB_BASE_REF="${BASE:-}" GITHUB_HEAD_REF="${HEAD_REF:-}" \
		GITHUB_SHA="$(git rev-parse HEAD)" GITHUB_STEP_SUMMARY="$PWD/summary.md" \
		GITHUB_SERVER_URL=https://github.example GITHUB_REPOSITORY=o/r GITHUB_RUN_ID=77 \
		PROFILE="$*" BUDGET=5 METRIC=p95 WINDOW=3 bash "$CI_DIR/github.sh"
}
job gh_git push main "$(csha 1)" ../base.h5
equals "git: first main run" "$rc" 0
equals "git: no earlier commit, the run is the pin: a note" "$(<summary.md)" \
	"scopedb: no baseline yet: this is the first run on main, pinned as the baseline"
# the second and third main runs: point checks against the previous commit
for k in 2 3; do
	job gh_git push main "$(csha $k)" "../$([ $k = 2 ] && echo ok || echo ok2).h5"
	equals "git: main run $k" "$rc" 0
	equals "git: main run $k: a point check, $((k - 1)) earlier run(s)" "$(head -1 summary.md)" \
		"**scopedb:** point check against \`base:HEAD~1\` with a budget of +5% ($((k - 1)) of the 3 runs of main the statistical check needs)"
	[ $k = 3 ] || contains "git: says which commit" "$(<summary.md)" "run 1, at the merge base"
	[ $k = 3 ] || contains "git: the artifact link" "$(<summary.md)" \
		"[The HTML report](https://github.example/o/r/actions/runs/77#artifacts) (artifact scopedb-report.html)"
done
job gh_git push main "$(csha 4)" ../ok3.h5
equals "git: fourth main run" "$rc" 0
equals "git: the statistical check once 3 earlier runs are stored" "$(head -1 summary.md)" \
	"**scopedb:** statistical check against \`base:HEAD~1\` (a window of up to 3 runs along its first-parent history; main has 3 earlier runs stored), 1 candidate run(s), budget +5%"
contains "git: verdicts" "$(<summary.md)" "| verdict | ratio [95% CI] | p adj. | runs needed |"
contains "git: the baseline set is full" "$(<summary.md)" "**Baseline runs:** 3 "
# a pull request from a fork: three repetitions against the merge base
# (c4), nothing stored, the store not written at all
git checkout -q feature
before=$(sha256sum "$db")
files=$(ls .scopedb)
BASE=main HEAD_REF=fork-user:feature job gh_git pull_request 9/merge - ../slow.h5 ../slow2.h5 ../slow3.h5
equals "git: fork pr regression fails" "$rc" 1
contains "git: against the merge base" "$(<summary.md)" \
	"Baseline from:** base:origin/main: merge base $(csha 4 | cut -c1-12) of HEAD and 'origin/main'; run 4, at the merge base"
contains "git: the candidate set" "$(<summary.md)" "**Candidate runs:** 3 (../slow.h5, ../slow2.h5, ../slow3.h5)"
contains "git: three repetitions" "$(<summary.md)" "**Repetitions:** 3 files: ../slow.h5, ../slow2.h5, ../slow3.h5 (the candidate set)"
contains "git: solve regressed, with its icon" "$(<summary.md)" "| **solve** |"
# the HTML report's verdict is the set's, as the check's
contains "git: the html report of the set" "$(<scopedb-report.html)" "Regression check: FAIL"
contains "git: the html report's candidate set" "$(<scopedb-report.html)" "3 (../slow.h5, ../slow2.h5, ../slow3.h5)"
contains "git: the icon" "$(<summary.md)" "| 🔴 regressed |"
case $out in
*"::error file=example.py,line=17,title=scopedb%3A solve +"*"%25::solve: p95 "*"; regressed: ratio "*) ok ;;
*) bad "git: the annotation on solve's line: $out" ;;
esac
# its ratio and p as the table writes them (1.10, not 1.1)
case $out in
*"; regressed: ratio "[0-9].[0-9][0-9]" ["[0-9].[0-9][0-9]", "[0-9].[0-9][0-9]"], p adj. "[0-9\<]*) ok ;;
*) bad "git: the annotation's ratio: $out" ;;
esac
equals "git: fork pr stores nothing" "$(sha256sum "$db")" "$before"
equals "git: no other file in the cache" "$(ls .scopedb)" "$files"
# the same pull request passing: no annotation
BASE=main job gh_git pull_request 9/merge - ../ok.h5 ../ok2.h5 ../ok3.h5
equals "git: pr pass" "$rc" 0
equals "git: no annotation" "$(grep -c '^::' <<<"$out")" 0
# a report past GitHub's job summary limit (1 MiB; here SUMMARY_LIMIT) is
# cut at a line, saying where the whole is, and not dropped
SUMMARY_LIMIT=1500 BASE=main job gh_git pull_request 9/merge - ../ok.h5 ../ok2.h5 ../ok3.h5
equals "git: a long report, the job" "$rc" 0
[ "$(wc -c <summary.md)" -le 1500 ] && ok || bad "git: the summary past its limit: $(wc -c <summary.md)"
contains "git: the summary says it is cut" "$(<summary.md)" \
	"bytes, is past the job summary limit of 1500 bytes; it is scopedb-report.md, kept as an artifact)*"
contains "git: the summary's start" "$(<summary.md)" "### Regression check: PASS"
# a shallow or foreign checkout: git cannot say, the pin stands in
BASE=nosuch job gh_git pull_request 9/merge - ../ok.h5
equals "git: unknown base branch" "$rc" 0
contains "git: the pin, and why" "$(head -1 summary.md)" \
	"point check against \`pin:baseline\` with a budget of +5% (\`base:origin/nosuch: unknown git revision 'origin/nosuch'"
# a hostile base branch name is shown, never run
: >summary.md
BASE='$(touch PWNED)`x`' run gh_git pull_request 9/merge - ../ok.h5
equals "git: hostile base branch" "$rc" 0
[ -e PWNED ] && bad "git: a branch name ran" || ok
contains "git: hostile name without backquotes" "$(head -1 summary.md)" "(\`base:origin/\$(touch PWNED)x: unknown git revision"
# a target branch named like a team: in a code span, no one is mentioned
: >summary.md
BASE='@org/team' run gh_git pull_request 10/merge - ../ok.h5
contains "git: a base branch like a mention" "$(head -1 summary.md)" "(\`base:origin/@org/team: unknown git revision"
cd .. || exit 1
fi

if tcase gitlab-git; then
rm -rf proj/.scopedb && cd proj || exit 1
gl_git() { # MAIN|MR SHA|- PROFILES...
	local kind=$1 sha=$2
	shift 2
	[ "$sha" = - ] || git checkout -q --detach "$sha"
	if [ "$kind" = main ]; then
		set -- env CI_COMMIT_BRANCH=main CI_COMMIT_REF_NAME=main PROFILE="$*"
	else
		set -- env CI_MERGE_REQUEST_IID=3 CI_MERGE_REQUEST_TARGET_BRANCH_NAME=main \
			CI_COMMIT_REF_NAME=feature PROFILE="$*"
	fi
	"$@" GITLAB_CI=true CI_DEFAULT_BRANCH=main CI_COMMIT_SHA="$(git rev-parse HEAD)" \
		CI_JOB_URL=https://gitlab.example/o/r/-/jobs/5 BUDGET=5 METRIC=p95 WINDOW=3 \
		bash "$CI_DIR/gitlab.sh"
}
for c in 1 2 3 4; do
	f=../ok.h5
	[ "$c" = 1 ] && f=../base.h5
	[ "$c" = 3 ] && f=../ok2.h5
	[ "$c" = 4 ] && f=../ok3.h5
	run gl_git main "$(csha "$c")" "$f"
	equals "gl git: main run $c" "$rc" 0
done
git checkout -q feature
run gl_git mr - ../slow.h5 ../slow2.h5 ../slow3.h5
equals "gl git: mr regression fails" "$rc" 1
contains "gl git: statistical" "$out" "**scopedb:** statistical check against \`base:origin/main\`"
equals "gl git: code quality on solve's line" \
	"$(jq -c '[.[] | select(.check_name == "scopedb-regression") | [.location.path, .location.lines.begin, .severity]]' gl-code-quality-report.json)" \
	'[["example.py",17,"major"]]'
contains "gl git: code quality names it" "$(jq -r '.[0].description' gl-code-quality-report.json)" "solve: p95 "
equals "gl git: junit failure" \
	"$(xmllint --xpath 'string(//testcase[failure]/@name)' scopedb-junit.xml)" solve
contains "gl git: html link" "$(<scopedb-report.md)" "run 4, at the merge base"
cd .. || exit 1
fi

# --- Slurm: the nightly recipe ----------------------------------------------------
if tcase slurm; then
mkdir sl && cd sl || exit 1
# a stand-in srun: runs the step as given, with Slurm's step variables
printf '#!/bin/sh\nSLURM_STEP_ID=0 exec "$@"\n' >srun && chmod +x srun
night() { # N MKPROFILE-ARGS...: night N, the application writing nightly.h5
	local n=$1
	shift
	env SLURM_JOB_ID="10$n" SLURM_JOB_PARTITION=gpu SLURM_JOB_NUM_NODES=2 \
		SLURM_SUBMIT_DIR="$E2E_DIR/proj" SCOPEDB_DB="$PWD/team.sqlite" SRUN="$PWD/srun" \
		PROFILE=nightly.h5 REPORT_DIR="$PWD/reports" WINDOW=5 \
		bash "$CI_DIR/slurm-nightly.sh" "$M" --seed 1 \
		--timestamp "2024-02-$(printf %02d "$n")T00:00:00Z" "$@" nightly.h5
}
git -C ../proj checkout -q main
for n in 1 2 3 4 5 6; do
	run night "$n" --scale "1.0$((n % 3))"
	equals "slurm: night $n passes" "$rc" 0
done
equals "slurm: identity from the source tree and the job" \
	"$(sql team.sqlite "select r.commit_sha || ' ' || r.branch || ' ' || m.value from runs r join run_metadata m on m.run_id = r.id where r.id = 6 and m.key = 'SLURM_JOB_ID'")" \
	"$(git -C ../proj rev-parse main) main 106"
contains "slurm: the first night has no evidence" "$(ls reports/*.md | head -1 | xargs cat)" \
	"5 no evidence"
equals "slurm: a passing night moves the pin" \
	"$(baseline team.sqlite)" 6
run night 7 --slow solve=1.3
equals "slurm: a regression fails the job" "$rc" 1
contains "slurm: says so" "$out" "scopedb: run 7: Regression check: FAIL; report $PWD/reports/scopedb-"
contains "slurm: the report names solve" "$(ls reports/*.md | tail -1 | xargs cat)" "budget violations: solve"
ls reports/*.html >/dev/null && ok || bad "slurm: html reports"
equals "slurm: the pin stays" "$(baseline team.sqlite)" 6
run env SCOPEDB_DB="$PWD/team.sqlite" PROFILE=none.h5 SRUN=true bash "$CI_DIR/slurm-nightly.sh" true
equals "slurm: no profile fails the job" "$rc $err" "2 scopedb: the application wrote no profile at $PWD/none.h5"
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
equals "gl: baseline pinned" "$(baseline "$db")" 1
equals "gl: identity from CI_*" "$(sql "$db" "select commit_sha || ' ' || branch from runs")" \
	"$(sha 1) main"
contains "gl: first run: a note" "$(<scopedb-report.md)" \
	"scopedb: no baseline yet: this is the first run on main, pinned as the baseline"
contains "gl: log has the note" "$out" "scopedb: no baseline yet: this is the first run on main"

run gl_main 2 ../ok.h5
equals "gl: second run" "$rc" 0
equals "gl: two runs" "$(sql "$db" "select count(*) from runs")" 2
xmllint --noout scopedb-junit.xml && ok || bad "gl: junit of a pass is well-formed"
contains "gl: junit pass" "$(<scopedb-junit.xml)" 'failures="0"'

cp "$db" good.sqlite
printf 'not a database at all, just some bytes long enough to be a header' >"$db"
run gl_mr 81 ../ok.h5
equals "gl: corrupt store fails the job" "$rc" 2
contains "gl: corrupt store named" "$err" "$db"
contains "gl: corrupt store, the recipe's line" "$err" "scopedb: cannot list the pins of the store"
mv good.sqlite "$db"

run gl_mr 81 ../slow2.h5
equals "gl: mr regression fails" "$rc" 1
contains "gl: mr report fail" "$(<scopedb-report.md)" "budget violations: solve"
contains "gl: html report of the mr" "$(<scopedb-report.html)" "Regression check: FAIL"
contains "gl: html report trends of main" "$(<scopedb-report.html)" "of branch &apos;main&apos;"
[ -s scopedb-junit.xml ] && ok || bad "gl: junit written"
xmllint --noout scopedb-junit.xml && ok || bad "gl: junit is well-formed"
equals "gl: junit failure is solve" \
	"$(xmllint --xpath 'string(//testcase[failure]/@name)' scopedb-junit.xml)" solve
equals "gl: junit one failure" \
	"$(xmllint --xpath 'count(//testcase/failure)' scopedb-junit.xml)" 1
equals "gl: mr not stored" "$(sql "$db" "select count(*) from runs")" 2

CI_JOB_URL=https://gitlab.example/g/p/-/jobs/5 run gl_mr 82 ../ok2.h5
equals "gl: mr pass" "$rc" 0
contains "gl: the html report's link in the report" "$(<scopedb-report.md)" \
	"[The HTML report](https://gitlab.example/g/p/-/jobs/5/artifacts/file/scopedb-report.html)"
contains "gl: the link in the log" "$out" "jobs/5/artifacts/file/scopedb-report.html"
# a runner whose kernel was updated: its platform string differs; the
# check refuses such runs, unless ALLOW_DIFFERENT names the key
"$M" --seed 1 --scale 1.01 kern.json >/dev/null &&
	jq -c '.metadata.platform = "linux-6.8.0-azure-x86_64"' kern.json >kern2.json || exit 1
run gl_mr 84 kern2.json
equals "gl: another platform fails the job" "$rc" 2
contains "gl: another platform, why" "$err" "platform differs"
ALLOW_DIFFERENT=platform run gl_mr 84 kern2.json
equals "gl: another platform allowed" "$rc" 0
# a broken job is exit 2, not a regression: no profile written, no jq, a
# team store that does not answer (and no folder made for its URI)
run gl_mr 83 ""
equals "gl: no profile fails the job" "$rc" 2
contains "gl: no profile named" "$err" "scopedb: PROFILE is empty"
run gl_mr 83 " "
equals "gl: a blank profile fails the job" "$rc" 2
contains "gl: a blank profile named" "$err" "scopedb: PROFILE is empty"
# (a PATH of every command but jq: one ln of them all, where an ln each
# was 1,400 processes and 3 s)
declare -A seen=([jq]=1)
links=()
for f in /usr/local/bin/* /usr/bin/* /bin/*; do
	[ -n "${seen[${f##*/}]:-}" ] || links+=("$f")
	seen[${f##*/}]=1
done
mkdir nojq && ln -s "${links[@]}" nojq/ || bad "gl: a PATH without jq"
PATH=$PWD/nojq run gl_mr 83 ../ok2.h5
equals "gl: no jq fails the job" "$rc" 2
contains "gl: no jq named" "$err" "scopedb: the recipe needs jq"
SCOPEDB_DB='postgresql://ci:s3cret@127.0.0.1:1/perf' run gl_mr 83 ../ok2.h5
equals "gl: a team store that does not answer fails the job" "$rc" 2
case $err in *s3cret*) bad "gl: the password in the log: $err" ;; *) ok ;; esac
[ -e postgresql: ] && bad "gl: a folder made for the URI" || ok

run gl_main 3 ../slow2.h5
equals "gl: main regression fails" "$rc" 1
equals "gl: main regression recorded" "$(sql "$db" "select count(*) from runs")" 3
equals "gl: baseline stays" "$(baseline "$db")" 1
cd .. || exit 1

fi

finish
