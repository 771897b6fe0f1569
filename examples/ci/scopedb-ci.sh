#!/usr/bin/env bash
# The scopedb step of a CI job, shared by github.sh and gitlab.sh (which
# set ROLE, BASE_REF, SUMMARY, OUTPUTS and ARTIFACT_URL from their CI's
# variables).  tests/e2e_ci_recipes.sh runs it through them, with each
# CI's variables set, so it is known to work.  docs/ci.md explains it.
#
# ROLE=main (a push to the main branch): ingest the profiles (commit and
# branch from the CI's variables; several files are repetitions of this
# commit), pin the first run as the baseline (pin --if-missing) and check
# the run (main's very first run has no baseline but itself: a note).  ROLE=pr (a pull or merge request, another branch): check the
# profile files as one candidate set, storing nothing (diff and check read
# files into a temporary store): nothing of a pull request enters main's
# history, and a pull request from a fork writes no cache.
#
# The baseline: base:$BASE_REF (the newest stored run on the first-parent
# ancestry of the merge base of HEAD and BASE_REF; main: HEAD~1, the
# previous commit) when git can say, else pin:baseline (no git work tree,
# a shallow clone, no stored run on that ancestry).  The check: once main
# has WINDOW runs stored before this job's (or a pull request's) and the
# baseline is base:, the statistical check
# (--baseline-window WINDOW --stat: each region's verdict from the run
# sets and the noise of main's history; INCONCLUSIVE, e.g. too few
# repetitions, exits as $INCONCLUSIVE says, pass by default); before that
# a point check with the budget.  The report's first line says which.
#
# The markdown report goes to $REPORT and is appended to $SUMMARY (GitHub's
# job summary), with a link to the HTML report (an artifact) when
# ARTIFACT_URL is set; OUTPUTS adds --output FORMAT=FILE reports (github
# annotations, GitLab's JUnit and Code Quality).  A point check's report
# has, under the verdict, the attribution line of each regression: where
# inside the code the time went (docs/calltree.md).  Exit status: check's (0 pass,
# 1 a regression, or inconclusive with INCONCLUSIVE=fail; 2 an error, also
# a broken job: no PROFILE, no jq, a store that cannot be read).
#
# Environment: PROFILE (the profile files this job wrote, separated by
# blanks or newlines, e.g. "profile-1.h5 profile-2.h5 profile-3.h5": repetitions of
# one run; required), ROLE (main or pr; required), SCOPEDB (the scopedb
# command; default scopedb), SCOPEDB_DB (the store; default
# .scopedb/history.sqlite, the cached folder), BUDGET (percent; default
# 5), METRIC (default p95), MAIN_BRANCH (default main), BASE_REF (a git
# revision; empty: pin:baseline only), WINDOW (runs of the baseline set
# and of main's history the statistics need; default 10), INCONCLUSIVE
# (pass or fail; default pass), REPORT (default scopedb-report.md), HTML
# (default scopedb-report.html), SUMMARY (a file the report is appended
# to; default none; cut past SUMMARY_LIMIT bytes, default 1000000, as
# GitHub's job summary takes 1 MiB), OUTPUTS (FORMAT=FILE words), ARTIFACT_URL,
# ALLOW_DIFFERENT (metadata keys, separated by blanks, whose values may
# differ between the baseline and the candidate: --allow-different, e.g.
# platform when the runners' kernel is updated under the history).
set -euo pipefail
fail() {
	echo "scopedb: $*" >&2
	exit 2
}
# (words separated by any blanks, newlines too: PROFILE="$(ls *.h5)")
read -r -d '' -a files <<<"${PROFILE:-}" || true
[ ${#files[@]} -gt 0 ] ||
	fail "PROFILE is empty: set it to the profile files this job wrote (did the benchmark write none?)"
case ${ROLE:-} in
main | pr) ;;
*) fail "set ROLE to main or pr" ;;
esac
command -v jq >/dev/null || fail "the recipe needs jq (apt-get install jq)"
scopedb=${SCOPEDB:-scopedb}
export SCOPEDB_DB=${SCOPEDB_DB:-.scopedb/history.sqlite}
# a team store (docs/team-store.md) is a URI or libpq's key=value words
# (as scopedb tells them: src/store/postgres/uri.c), not a file to look for
pg_words='^[[:space:]]*(host|hostaddr|port|dbname|user|password|service|passfile|sslmode|connect_timeout|options|application_name|target_session_attrs)[[:space:]]*='
store_file=$SCOPEDB_DB
case $SCOPEDB_DB in
postgres://* | postgresql://*) store_file= ;;
*) [[ ! $SCOPEDB_DB =~ $pg_words ]] || store_file= ;;
esac
main=${MAIN_BRANCH:-main}
report=${REPORT:-scopedb-report.md}
html=${HTML:-scopedb-report.html}
summary=${SUMMARY:-/dev/null}
window=${WINDOW:-10}
metric=${METRIC:-p95}
budget=${BUDGET:-5}
read -r -d '' -a outputs <<<"${OUTPUTS:-}" || true
read -r -d '' -a allow <<<"${ALLOW_DIFFERENT:-}" || true
# nothing of an earlier job is left to be taken for this one's
rm -f "$report" "$html"
for o in "${outputs[@]}"; do
	rm -f "${o#*=}"
done
[ -z "$store_file" ] || mkdir -p "$(dirname "$store_file")"
"$scopedb" --version >/dev/null || fail "cannot run '$scopedb' (set SCOPEDB to the scopedb binary)"

if [ "$ROLE" = main ]; then
	# main: record the runs; the first one ever becomes the baseline
	ids=$("$scopedb" ingest --tag ci --format json "${files[@]}" | jq -r '.[].run')
	"$scopedb" pin baseline "$(head -n 1 <<<"$ids")" --if-missing
	candidate=("$(tail -n 1 <<<"$ids")")
else
	# a pull request: compare the files, store nothing.  No store file
	# yet, or no pin in the store: the first run on $main has not happened
	# (a note, exit 0).  Anything else (a corrupt store, a server that does
	# not answer) fails the job (exit 2).
	if [ -n "$store_file" ] && [ ! -e "$store_file" ]; then
		echo "scopedb: no baseline yet: no store at $SCOPEDB_DB (the first run on $main pins it)" |
			tee "$report" >>"$summary"
		exit 0
	fi
	# (scopedb's own error names the store, a URI's password masked; a
	# team store's database before main's first run holds none yet)
	perr=$(mktemp)
	if ! pins=$("$scopedb" pins --format json 2>"$perr"); then
		if [ -z "$store_file" ] && grep -q "holds no scopedb store yet" "$perr"; then
			rm -f "$perr"
			echo "scopedb: no baseline yet: no store in the team database (the first run on $main makes it)" |
				tee "$report" >>"$summary"
			exit 0
		fi
		cat "$perr" >&2
		rm -f "$perr"
		fail "cannot list the pins of the store"
	fi
	rm -f "$perr"
	have=$(jq -e 'any(.[]; .name == "baseline")' <<<"$pins") || [ "$have" = false ] ||
		fail "cannot read the pins of the store"
	if [ "$have" != true ]; then
		echo "scopedb: no baseline yet (the first run on $main pins it)" |
			tee "$report" >>"$summary"
		exit 0
	fi
	candidate=("${files[@]}")
fi

# The baseline git chooses, when it can (scopedb runs git itself, safely:
# no hook, alias or pager of the repository runs); else the pin.
base=pin:baseline
why="git cannot place it"
if [ -n "${BASE_REF:-}" ]; then
	if err=$("$scopedb" meta "base:$BASE_REF" 2>&1 >/dev/null); then
		base=base:$BASE_REF
	else
		why=${err#scopedb: }
	fi
fi
stored=$("$scopedb" runs --branch "$main" --format json | jq length)
if [ "$ROLE" = main ]; then
	# the baseline runs are the earlier ones: this job's are the candidate
	stored=$((stored - $(wc -l <<<"$ids")))
	if [ "$base" = pin:baseline ] &&
		pinned=$("$scopedb" pins --format json | jq -r '.[] | select(.name == "baseline") | .run') &&
		grep -qx -- "$pinned" <<<"$ids"; then
		# main's first run is its own baseline: nothing to compare yet
		echo "scopedb: no baseline yet: this is the first run on $main, pinned as the baseline" |
			tee "$report" >>"$summary"
		exit 0
	fi
fi
stat=()
# (backquotes dropped: a branch name is shown, never run or formatted)
shown=${base//\`/}
if [ "$base" != pin:baseline ] && [ "$stored" -ge "$window" ]; then
	stat=(--baseline-window "$window" --inconclusive "${INCONCLUSIVE:-pass}")
	mode="statistical check against \`$shown\` (a window of up to $window runs along its first-parent history; $main has $stored earlier runs stored), ${#candidate[@]} candidate run(s), budget +$budget%"
elif [ "$base" != pin:baseline ]; then
	mode="point check against \`$shown\` with a budget of +$budget% ($stored of the $window runs of $main the statistical check needs)"
else
	# (why quotes the target branch, which may hold '@' or '#': in a code
	# span the summary mentions no one and links nothing)
	mode="point check against \`pin:baseline\` with a budget of +$budget% (\`${why//\`/}\`)"
	[ -n "${BASE_REF:-}" ] || mode="point check against \`pin:baseline\` with a budget of +$budget%"
fi
# a point check on main of several files: their median, as a pull
# request's (the statistical check takes the commit's runs itself)
[ ${#stat[@]} -gt 0 ] || [ "$ROLE" != main ] || [ ${#files[@]} -lt 2 ] || candidate=("${files[@]}")
# what check and report share: the runs, the metric, the budget
args=("$base" "${candidate[@]}" --metric "$metric" --max-regression "$budget")
for k in "${allow[@]}"; do
	args+=(--allow-different "$k")
done
outs=()
for o in "${outputs[@]}"; do
	outs+=(--output "$o")
done
rc=0
cerr=$(mktemp)
{
	printf '%s\n\n' "**scopedb:** $mode"
	"$scopedb" check "${args[@]}" "${stat[@]}" "${outs[@]}" --format markdown 2>"$cerr" || rc=$?
	# a check that could not run says why in the report too (an indented
	# code block: what came from data is shown as it is, never formatted)
	if [ "$rc" -ge 2 ]; then
		printf '**scopedb:** the check did not run (exit %s):\n\n' "$rc"
		sed 's/^/    /' "$cerr"
	fi
} >"$report"
cat "$cerr" >&2
rm -f "$cerr"
# GitHub takes at most 1 MiB of job summary a step, and shows none of a
# larger one: a check of thousands of regions is cut at a line (a table
# stays a table), worst regions first, and says where the whole is
limit=${SUMMARY_LIMIT:-1000000}
size=$(wc -c <"$report")
if [ "$size" -le "$limit" ]; then
	cat "$report" >>"$summary"
else
	{
		head -c "$((limit > 400 ? limit - 400 : 0))" "$report" | sed '$d'
		printf '\n*(cut here: the whole report, %s bytes, is past the job summary limit of %s bytes; it is %s, kept as an artifact)*\n' \
			"$size" "$limit" "$report"
	} >>"$summary"
fi
# The HTML report for people (an artifact): the verdict, main's trends,
# the distributions and the ranks.  The check above decides the job.
if [ "$rc" -lt 2 ]; then
	stat_html=()
	[ ${#stat[@]} -eq 0 ] || stat_html=(--baseline-window "$window")
	# (the candidate set, as checked: the page's verdict is the check's)
	if "$scopedb" report "${args[@]}" "${stat_html[@]}" --branch "$main" -o "$html"; then
		[ -z "${ARTIFACT_URL:-}" ] ||
			printf '\n[The HTML report](%s) (artifact %s)\n' "$ARTIFACT_URL" "$html" |
			tee -a "$report" >>"$summary"
	else
		echo "scopedb: no HTML report (the check above stands)" >&2
	fi
fi
exit "$rc"
