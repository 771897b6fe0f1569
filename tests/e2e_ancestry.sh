#!/usr/bin/env bash
# End-to-end tests of CI-native checks (issue 28, docs/ci.md): the selector
# base:REF (the newest stored run on the first-parent ancestry of the merge
# base of HEAD and REF, --baseline-window N along it, the commit it chose
# and how far back, its three errors), run by git in a repository whose
# configuration names a command for every key that can run one (none may
# run); check --format github and codequality (findings on the lines of
# code, paths relative to the repository, escaping); and a candidate given
# as several files (repetitions, not stored).  The repositories are made
# in the private directory; GIT_CEILING_DIRECTORIES (e2e-lib.sh) keeps git
# out of the project's own checkout.
. "$(dirname "$0")/e2e-lib.sh"
S=$SCOPEDB
M=$MKPROFILE
export SCOPEDB_DB=$E2E_DIR/h.sqlite
n=0
# prof FILE [mkprofile options]: a new profile (a new seed: new content)
prof() {
	local f=$1
	shift
	n=$((n + 1))
	"$M" --seed "$n" --timestamp "2024-01-$(printf %02d "$n")T00:00:00Z" "$@" "$f" >/dev/null
}
gitc() { git -c user.email=t@example.com -c user.name=t -c commit.gpgsign=false "$@"; }
# commit MSG: one more commit of the repository in the current directory
commit() { echo "$1" >>f && git add f && gitc commit -q -m "$1"; }
in_repo() { run bash -c 'cd "$0" && exec "$@"' "$E2E_DIR/repo" "$@"; }

# main: c1 - c2 - c3 - c4 - c5 - c6; side: a merged branch whose commits
# are not on main's first-parent line; feature: from c5, HEAD
if tcase setup-repo; then
mkdir repo && cd repo || exit 1
git init -q -b main . && commit c1 && commit c2 && commit c3 &&
	git checkout -q -b side && commit s1 && git checkout -q main &&
	gitc merge -q --no-ff -m "merge side" side && commit c5 && commit c6 &&
	git checkout -q -b feature main~1 && commit f1 || bad "repository set-up"
sha() { git -C "$E2E_DIR/repo" rev-parse "$1"; }
C1=$(sha main~5) C2=$(sha main~4) C3=$(sha main~3) S1=$(sha side) M4=$(sha main~1)
cd .. || exit 1
# runs: c1, c2, two of c3 (repetitions), one of the side branch's commit
for c in "$C1" "$C2" "$C3" "$C3" "$S1"; do
	prof "r$((n + 1)).h5"
	$S ingest --commit "$c" --branch main "r$n.h5" >/dev/null || bad "ingest $c"
done
prof cand.h5
fi

if tcase base-chooses; then
# HEAD is feature (from c5 = the merge of side): merge base c5, no run on
# c5 nor on the merge; the first-parent line skips s1: c3's newest run
in_repo $S check base:main ../cand.h5 --max-regression 100
equals "base: passes" "$rc" 0
contains "base: the baseline is c3's newest run" "$out" "Baseline: run 4 ("
contains "base: says which commit and how far back" "$out" \
	"Baseline from: base:main: merge base ${M4:0:12} of HEAD and 'main'; run 4 (commit ${C3:0:12}), 2 commits back on its first-parent ancestry"
in_repo $S check base:main ../cand.h5 --max-regression 100 --format json
equals "base: json baseline_from" "$(jq -r .baseline_from <<<"$out")" \
	"merge base ${M4:0:12} of HEAD and 'main'; run 4 (commit ${C3:0:12}), 2 commits back on its first-parent ancestry"
# a run at the merge base itself
in_repo $S check "base:$C2" ../cand.h5 --max-regression 100
contains "base: at the merge base" "$out" "run 2, at the merge base"
# git's own suffixes: base:main~4 is c2, its merge base with HEAD
in_repo $S diff base:main~4 ../cand.h5
contains "base: REF~N is git's" "$out" "a: run 2 ("
# show and meta take it too
in_repo $S show base:main
equals "base: show" "$rc" 0
in_repo $S meta base:main
equals "base: meta" "$rc" 0
fi

if tcase base-implied; then
# along the ancestry too, a check's sets keep the baseline's mpi_size (a
# store of its own: c2's run has 8 ranks), and say so
# (not through prof: the later cases' seeds stay theirs)
db2=$E2E_DIR/i.sqlite
k=0
for c in "$C1" "$C2" "$C3"; do
	k=$((k + 1))
	"$M" --seed "$k" --timestamp "2024-01-0${k}T00:00:00Z" --ranks $([ $k = 2 ] && echo 8 || echo 4) \
		"i$k.h5" >/dev/null && $S ingest --db "$db2" --commit "$c" --branch main "i$k.h5" >/dev/null ||
		bad "ingest $c"
done
in_repo $S check base:main ../cand.h5 --db "$db2" --baseline-window 3 --max-regression 100 --format json
equals "implied: the 4-rank runs" "$(jq -c .baseline_runs <<<"$out")" "[3,1]"
equals "implied: said" "$(jq -c '[.same.keys.mpi_size, .same.left_out]' <<<"$out")" '["4",1]'
fi

if tcase base-more; then
# the walk takes as many stored runs as the history needs (30); when
# --same leaves some out, it walks further: 64 commits, two machines
# alternating, a history of 30 runs of one machine, not 15 (the baseline
# an earlier commit's run: base:HEAD is the candidate's own, refused)
mkdir alt && (cd alt && git init -q -b main . && for i in $(seq 1 64); do
	commit "a$i" && "$M" --seed "$i" --calls 5 --timestamp "$(printf '2024-02-%02dT%02d:00:00Z' $((i / 24 + 1)) $((i % 24)))" "../a$i.h5" >/dev/null &&
		$S ingest -q --db "$E2E_DIR/alt.sqlite" --meta "hostname=$((i % 2))" "../a$i.h5" >/dev/null &&
		$S ingest -q --db "$E2E_DIR/alt4.sqlite" --meta "hostname=$((i % 4 == 0))" "../a$i.h5" >/dev/null || exit 1
done) || bad "alternating set-up"
run bash -c 'cd alt && exec "$@"' "$S" "$S" check base:HEAD latest --db "$E2E_DIR/alt.sqlite" \
	--baseline-window 5 --same hostname --max-regression 50
equals "more: the candidate's own run refused" "$rc $err" \
	"2 scopedb: the baseline 'base:HEAD' and the candidate 'latest' are the same run 64: compare it with an earlier run (such as 'base:HEAD~1')"
run bash -c 'cd alt && exec "$@"' "$S" "$S" check base:HEAD~2 latest --db "$E2E_DIR/alt.sqlite" \
	--baseline-window 5 --same hostname --max-regression 50
contains "more: one machine's history" "$out" "Noise: between-run CV of each region from its history: 30 runs on the first-parent ancestry"
contains "more: the other's left out" "$out" "Like with like: hostname = 0 (29 runs of another value left out)"
# one machine in four, from the fourth run back: a walk of 30 stored runs
# keeps 8; the further one (8 times as far) all 15, as a branch window
# would
run bash -c 'cd alt && exec "$@"' "$S" "$S" check base:HEAD~4 latest --db "$E2E_DIR/alt4.sqlite" \
	--baseline-window 5 --same hostname --max-regression 50
contains "more: one in four, the whole history" "$out" "Noise: between-run CV of each region from its history: 15 runs on the first-parent ancestry"
contains "more: one in four, the others left out" "$out" "Like with like: hostname = 1 (45 runs of another value left out)"
# a shallow clone that cuts the further walk: said when the sets are
# still short (depth 40: 20 of one machine), not when they are full (62)
for d in 40 62; do
	git clone -q --depth $d "file://$E2E_DIR/alt" "alt$d" 2>/dev/null || bad "a clone of depth $d"
	run bash -c 'cd "alt'$d'" && exec "$@"' "$S" "$S" check base:HEAD~2 latest --db "$E2E_DIR/alt.sqlite" \
		--baseline-window 5 --same hostname --max-regression 50
	case "$d:$out" in
	40:*"only 38 runs on its first-parent ancestry: this clone is shallow"*) ok ;;
	62:*"this clone is shallow"*) bad "more: depth 62 called short: $out" ;;
	62:*"Noise: between-run CV of each region from its history: 30 runs"*) ok ;;
	*) bad "more: depth $d: $out" ;;
	esac
done
fi

if tcase base-window; then
# the baseline set and the noise history walk the ancestry: c3's two
# runs, then c2, then c1; never the side branch's run 5
in_repo $S check base:main ../cand.h5 --baseline-window 3 --max-regression 100 --format json
equals "window: baseline runs along the ancestry" "$(jq -c .baseline_runs <<<"$out")" "[4,3,2]"
contains "window: noise from the ancestry" "$(jq -r '.noise[0].from' <<<"$out")" \
	"4 runs on the first-parent ancestry of ${M4:0:12} ending at run 4"
in_repo $S check base:main ../cand.h5 --baseline-window 10 --max-regression 100 --format json
equals "window: as many as there are" "$(jq -c .baseline_runs <<<"$out")" "[4,3,2,1]"
case "$(jq -r .baseline_from <<<"$out")" in
*shallow*) bad "window: a full clone called shallow" ;;
*) ok ;;
esac
# a shallow clone cuts the ancestry short: said where the window is not
# filled (a CI checkout of depth 4 of feature: f1, c5, the merge, c3)
git clone -q --depth 4 --single-branch --branch feature "file://$E2E_DIR/repo" shallow 2>/dev/null ||
	bad "a shallow clone"
run bash -c 'cd shallow && exec "$@"' "$S" "$S" check base:HEAD ../cand.h5 --baseline-window 10 --max-regression 100 --format json
equals "shallow: the runs it can see" "$(jq -c .baseline_runs <<<"$out")" "[4,3]"
contains "shallow: said" "$(jq -r .baseline_from <<<"$out")" \
	"; only 2 runs on its first-parent ancestry: this clone is shallow (git fetch --unshallow; actions/checkout: fetch-depth: 0)"
# a revision beyond the cut (actions/checkout's depth of 1): the shallow
# clone is the cause to name, not a missing fetch of a branch
run bash -c 'cd shallow && exec "$@"' "$S" "$S" check base:HEAD~5 ../cand.h5
equals "shallow: beyond the cut: exit" "$rc" 2
equals "shallow: beyond the cut" "$err" \
	"scopedb: base:HEAD~5: unknown git revision 'HEAD~5' (a CI checkout may need it fetched first: git fetch origin BRANCH; this clone is shallow: git fetch --unshallow, or actions/checkout: fetch-depth: 0)"
# a name there may be a branch not fetched, or a typo: the same two causes
run bash -c 'cd shallow && exec "$@"' "$S" "$S" check base:nosuch ../cand.h5
equals "shallow: a name" "$err" \
	"scopedb: base:nosuch: unknown git revision 'nosuch' (a CI checkout may need it fetched first: git fetch origin BRANCH; this clone is shallow: git fetch --unshallow, or actions/checkout: fetch-depth: 0)"
fi

if tcase base-errors; then
# not a work tree, REF unknown, no stored run on the ancestry: one line, exit 2
expect_error "not a work tree" "^scopedb: base:main: '$E2E_DIR' is not in a git work tree$" \
	$S check base:main cand.h5
# a repository git cannot read: git's own cause, not "not a work tree"
mkdir broken && git -C broken init -q && printf '[core\n[[[' >broken/.git/config
run bash -c 'cd broken && exec "$@"' "$S" "$S" check base:main ../cand.h5
equals "broken config: exit" "$rc" 2
equals "broken config: git's cause" "$err" \
	"scopedb: base:main: git cannot read the repository of '$E2E_DIR/broken': bad config line 1 in file .git/config"
in_repo $S check base:nosuch ../cand.h5
equals "unknown REF: exit" "$rc" 2
equals "unknown REF: message" "$err" \
	"scopedb: base:nosuch: unknown git revision 'nosuch' (a CI checkout may need it fetched first: git fetch origin BRANCH)"
in_repo $S check "base:$C1~1" ../cand.h5
equals "root's parent: exit" "$rc" 2
# a store whose only run is of the merged branch, off the first-parent line
$S ingest --db side.sqlite --commit "$S1" r5.h5 >/dev/null
in_repo $S check --db ../side.sqlite base:main ../cand.h5
equals "no run on the ancestry: exit" "$rc" 2
equals "no run on the ancestry: message" "$err" \
	"scopedb: base:main: no stored run on the first-parent ancestry of ${M4:0:12}, the merge base of HEAD and 'main' (5 commits searched)"
(cd repo && git checkout -q --orphan lone && gitc commit -q -m lone && git checkout -q feature)
in_repo $S check base:lone ../cand.h5
equals "no merge base: exit" "$rc" 2
equals "no merge base: message" "$err" \
	"scopedb: base:lone: HEAD and 'lone' have no merge base (a shallow clone? fetch with --depth large enough, or --unshallow)"
# HEAD on a branch with no commit yet: said so, not a shallow clone
(cd repo && git checkout -q --orphan unborn)
in_repo $S check base:main ../cand.h5
equals "unborn HEAD: exit" "$rc" 2
equals "unborn HEAD: message" "$err" \
	"scopedb: base:main: HEAD is not a commit (a branch with no commit yet?): commit first, or name the baseline by run, tag or branch"
(cd repo && git checkout -q -f feature)
in_repo $S check base: ../cand.h5
equals "empty REF" "$err" "scopedb: invalid run selector 'base:': empty git revision"
# a REF git would take for an option, or that a shell would expand
in_repo $S check "base:--output=$E2E_DIR/pwned" ../cand.h5
equals "option REF: exit" "$rc" 2
equals "option REF: message" "$err" \
	"scopedb: invalid revision '--output=$E2E_DIR/pwned': it would be an option of git"
in_repo $S check 'base:$(touch${IFS}PWNED)' ../cand.h5
equals "shell REF: exit" "$rc" 2
[ -e PWNED ] || [ -e repo/PWNED ] || [ -e pwned ] && bad "a REF ran" || ok
# the commands that change stored runs do not take it
in_repo $S pin x base:main
equals "pin base: exit" "$rc" 2
equals "pin base: message" "$err" \
	"scopedb: 'base:main' names a run by git ancestry: diff, check, show, meta and report take it, this command does not"
fi

# A repository whose configuration names a command (an absolute touch of
# MARKS/KEY) for every key that could run one, and whose hooks all touch
# MARKS/hook-NAME: base:REF resolves in it, and nothing runs.
if tcase base-hostile-repo; then
T=$(command -v touch)
m=$E2E_DIR/marks
mkdir -p "$m"
git clone -q repo evil >/dev/null 2>&1 || bad "clone"
(
	cd evil || exit 1
	git checkout -q -B feature origin/feature && git branch -q -f main origin/main || exit 1
	c() { git config "$@"; }
	for k in rev-parse merge-base rev-list symbolic-ref log diff; do
		c "alias.$k" "!$T $m/alias-$k"
		c "pager.$k" "$T $m/pager-$k"
	done
	c core.fsmonitor "$T $m/fsmonitor"
	c core.hooksPath "$PWD/.git/myhooks"
	c core.pager "$T $m/pager"
	c core.sshCommand "$T $m/sshCommand"
	c core.askPass "$T $m/askPass"
	c credential.helper "!$T $m/credential-helper"
	c diff.external "$T $m/diff-external"
	c diff.x.textconv "$T $m/textconv"
	c filter.x.clean "$T $m/filter-clean"
	c filter.x.smudge "$T $m/filter-smudge"
	c gpg.program "$T $m/gpg"
	c log.showSignature true
	c core.alternateRefsCommand "$T $m/alternateRefsCommand"
	c remote.origin.uploadpack "$T $m/uploadpack"
	printf '* filter=x diff=x\n' >.gitattributes
	mkdir -p .git/myhooks
	for k in pre-commit post-checkout post-merge reference-transaction post-index-change \
		fsmonitor-watchman pre-auto-gc; do
		printf '#!/bin/sh\n%s %s/hook-%s\n' "$T" "$m" "$k" >".git/hooks/$k"
		printf '#!/bin/sh\n%s %s/hooksPath-%s\n' "$T" "$m" "$k" >".git/myhooks/$k"
		chmod +x ".git/hooks/$k" ".git/myhooks/$k"
	done
) || bad "hostile repository set-up"
# the repository is hostile indeed: a plain git runs its fsmonitor and pager
(cd evil && git -c core.pager= -p log -1 >/dev/null 2>&1; git status >/dev/null 2>&1)
[ -n "$(ls "$m")" ] && ok || bad "a plain git in the hostile repository runs nothing"
rm -f "$m"/*
run bash -c 'cd "$0" && exec "$@"' "$E2E_DIR/evil" $S check base:main ../cand.h5 \
	--baseline-window 3 --max-regression 100 --format github --output markdown=../evil.md
equals "hostile repo: base resolves" "$rc $err" "0 "
contains "hostile repo: same baseline" "$(<evil.md)" "run 4 (commit ${C3:0:12}), 2 commits back"
equals "hostile repo: no command of the repository ran" "$(ls "$m" | tr '\n' ' ')" ""
run bash -c 'cd "$0" && exec "$@"' "$E2E_DIR/evil" $S check base:nosuch ../cand.h5
equals "hostile repo: unknown REF" "$rc" 2
equals "hostile repo: still nothing ran" "$(ls "$m" | tr '\n' ' ')" ""
fi

# --- findings on the lines of code ----------------------------------------------
# loc SRC DIR NAME OUT MKPROFILE-ARGS...: a JSON profile whose regions' source
# file is SRC (a JSON string body), run in DIR (working_directory), with
# region solve renamed NAME (a JSON string body)
loc() {
	local src=$1 dir=$2 name=$3 out=$4
	shift 4
	prof "$out.tmp.json" --ranks 2 "$@"
	sed -e "s|\"source_file\": \"example.py\"|\"source_file\": \"$src\"|g" \
		-e "s|\"metadata\": {|\"metadata\": {\"working_directory\": \"$dir\", |" \
		-e "s|\"name\": \"solve\"|\"name\": \"$name\"|g" "$out.tmp.json" >"$out"
	rm -f "$out.tmp.json"
}
if tcase findings; then
top=$E2E_DIR/repo
db=$E2E_DIR/loc.sqlite
hostile='so%l:v,e\\r\\n::error::x'
loc "$top/src/solver.py" "$top" solve lb1.json
loc "$top/src/solver.py" "$top" solve lb2.json
$S ingest --db "$db" --commit "$C2" --branch main lb1.json >/dev/null
$S ingest --db "$db" --commit "$C3" --branch main lb2.json >/dev/null
loc "$top/src/solver.py" "$top" solve lc.json --slow solve=1.5
in_repo $S check --db "$db" base:main ../lc.json --max-regression 5 --format github
equals "github: exit" "$rc" 1
in_repo $S check --db "$db" base:main ../lc.json --max-regression 5 --format github
case $out in
"::error file=src/solver.py,line=17,title=scopedb%3A solve +"*"%25::solve: total "*" -> "*" (+"*"%25); over the budget of +5%25") ok ;;
*) bad "github: shape: $out" ;;
esac
equals "github: one line" "$(printf '%s\n' "$out" | wc -l)" 1
# --output github=FILE beside the markdown report
in_repo $S check --db "$db" base:main ../lc.json --max-regression 5 --format markdown \
	--output github=../gh.txt --output codequality=../cq.json
equals "output github: exit" "$rc" 1
equals "output github: same commands" "$(<gh.txt)" \
	"$(in_repo $S check --db "$db" base:main ../lc.json --max-regression 5 --format github; printf '%s' "$out")"
contains "output github: markdown on stdout" "$out" "### Regression check: FAIL"
equals "codequality: valid JSON, one issue" "$(jq length cq.json)" 1
equals "codequality: fields" \
	"$(jq -r '.[0] | [.check_name, .severity, .location.path, .location.lines.begin, (.fingerprint | length)] | join(" ")' cq.json)" \
	"scopedb-regression major src/solver.py 17 64"
contains "codequality: description" "$(jq -r '.[0].description' cq.json)" "solve: total "
fp=$(jq -r '.[0].fingerprint' cq.json)
# the fingerprint stays from one pipeline to the next
in_repo $S check --db "$db" base:main ../lc.json --max-regression 1 --format codequality
equals "codequality: stable fingerprint" "$(jq -r '.[0].fingerprint' <<<"$out")" "$fp"
# a pass: no command, an empty report
in_repo $S check --db "$db" base:main ../lc.json --max-regression 100 --format github
equals "github pass: exit" "$rc" 0
equals "github pass: nothing" "$out" ""
in_repo $S check --db "$db" base:main ../lc.json --max-regression 100 --format codequality
equals "codequality pass: []" "$out" "[]"
# diff has no findings: not its formats
expect_error "diff --format github" "^scopedb: invalid --format 'github': choose from " \
	$S diff --db "$db" 1 2 --format github

# a profile made in another checkout (working_directory elsewhere), a
# relative path, a path outside the repository, a hostile region name
loc "/home/alice/stencil/lib/a.py" /home/alice/stencil solve lo1.json
loc "/usr/lib/python3/threading.py" /home/alice/stencil "$hostile" lo2.json
loc "/usr/lib/python3/threading.py" /home/alice/stencil "$hostile" lo3.json --slow solve=2
run $S ingest --db "$db" --commit "$C3" --branch main lo2.json
in_repo $S check --db "$db" base:main ../lo3.json --max-regression 5 --format github
equals "outside: exit" "$rc" 1
case $out in
"::error title=scopedb%3A so%25l%3Av%2Ce%0D%0A%3A%3Aerror%3A%3Ax +"*"%25::so%25l:v,e%0D%0A::error::x: total "*) ok ;;
*) bad "outside: no file, escaped name: $out" ;;
esac
equals "outside: one line" "$(printf '%s\n' "$out" | wc -l)" 1
in_repo $S check --db "$db" base:main ../lo3.json --max-regression 5 --format codequality
equals "outside: codequality leaves it out" "$out" "[]"
loc "/home/alice/stencil/lib/a.py" /home/alice/stencil solve lo4.json --slow solve=2
in_repo $S check --db "$db" 2 ../lo4.json --max-regression 5 --format github
case $out in
*"::error file=lib/a.py,line=17,title=scopedb%3A solve "*) ok ;;
*) bad "other checkout: working_directory stripped: $out" ;;
esac
loc "src/rel.py" "$top/src" solve lo5.json --slow solve=2
in_repo $S check --db "$db" 2 ../lo5.json --max-regression 5 --format github
case $out in
*"::error file=src/src/rel.py,line=17,"*) ok ;;
*) bad "relative to a working directory in the checkout: $out" ;;
esac
# line 0 (code at a module's top level): on the file, no line; line 1 in
# the code quality report
loc "$top/src/solver.py" "$top" solve lo6.tmp --slow solve=2
sed 's/"source_lineno": [0-9]*/"source_lineno": 0/g' lo6.tmp >lo6.json
in_repo $S check --db "$db" 2 ../lo6.json --max-regression 5 --format github
case $out in
"::error file=src/solver.py,title=scopedb%3A solve "*) ok ;;
*) bad "line 0: the file, no line: $out" ;;
esac
in_repo $S check --db "$db" 2 ../lo6.json --max-regression 5 --format codequality
equals "line 0: codequality line 1" "$(jq -r '.[0].location.lines.begin' <<<"$out")" 1
# outside any work tree: the working directory alone
run $S check --db "$db" 2 lo4.json --max-regression 5 --format github
case $out in
*"::error file=lib/a.py,line=17,"*) ok ;;
*) bad "no work tree: $out" ;;
esac
fi

# --- a candidate as several files -------------------------------------------------
if tcase candidate-files; then
db=$E2E_DIR/reps.sqlite
for i in 1 2 3 4; do
	prof "h$i.h5" --scale "1.0$i"
	$S ingest --db "$db" --branch main "h$i.h5" >/dev/null
done
prof k1.h5 --slow solve=1.3
prof k2.h5 --slow solve=1.32 --scale 1.01
prof k3.h5 --slow solve=1.28 --scale 0.99
before=$(sql "$db" "select count(*) from runs")
run $S check --db "$db" latest k1.h5 k2.h5 k3.h5 --max-regression 10 --format json
equals "files: a point check fails" "$rc" 1
equals "files: listed" "$(jq -c .candidate_files <<<"$out")" '["k1.h5","k2.h5","k3.h5"]'
equals "files: solve over the budget" "$(jq -c .violations <<<"$out")" '["solve"]'
# the median of each region over the files
for k in k1 k2 k3; do
	$S check --db "$db" latest "$k.h5" --format json | jq '.rows[] | select(.name == "solve") | .b'
done | sort -g | sed -n 2p >median.txt
equals "files: each region's median" "$(jq '.rows[] | select(.name == "solve") | .b' <<<"$out")" \
	"$(<median.txt)"
run $S check --db "$db" latest --candidate-files k1.h5 k2.h5 k3.h5 --max-regression 10 --format json
equals "--candidate-files: the same" "$(jq -c '[.candidate_files, .violations]' <<<"$out")" \
	'[["k1.h5","k2.h5","k3.h5"],["solve"]]'
run $S check --db "$db" latest k1.h5 k2.h5 k3.h5 --baseline-window 4
contains "files: the candidate set" "$out" "Candidate runs: 3 (k1.h5, k2.h5, k3.h5)"
contains "files: repetitions field" "$out" \
	"Repetitions: 3 files: k1.h5, k2.h5, k3.h5 (the candidate set)"
equals "files: nothing stored" "$(sql "$db" "select count(*) from runs")" "$before"
expect_error "files: a file twice" "^scopedb: 'k1.h5' has the same content as an earlier candidate file" \
	$S check --db "$db" latest k1.h5 k1.h5
expect_error "files: a selector among them" "^scopedb: 'latest' is not a file" \
	$S check --db "$db" latest k1.h5 latest
expect_error "files: after a stored candidate" "^scopedb: 'k1.h5': repetitions of a candidate are files" \
	$S check --db "$db" 1 2 k1.h5
expect_error "files: missing" "^scopedb: cannot read 'nosuch.h5': no such file$" \
	$S check --db "$db" latest k1.h5 nosuch.h5
prof k4.h5 --ranks 2
expect_error "files: not comparable" "^scopedb: 'k4.h5': runs are not comparable: mpi_size differs" \
	$S check --db "$db" latest k1.h5 k4.h5
# --same: every repetition on the baseline's machine
for h in a b c; do
	prof "j$h.tmp.json"
	host=node1
	[ "$h" = c ] && host=node2
	sed "s|\"metadata\": {|\"metadata\": {\"hostname\": \"$host\", |" "j$h.tmp.json" >"j$h.json"
done
$S ingest --db "$db" --branch main ja.json >/dev/null
expect 0 "--same: repetitions alike" $S check --db "$db" latest jb.json --same hostname \
	--max-regression 100
expect_error "--same: a repetition on another machine" \
	"^scopedb: 'jc.json': runs are not comparable: hostname differs \(a: node1, b: node2\) and --same keeps the runs of one hostname$" \
	$S check --db "$db" latest jb.json jc.json --same hostname --stat
run $S diff --db "$db" latest k1.h5 k2.h5
equals "diff takes two" "$rc $(head -1 <<<"$err")" "2 scopedb: unexpected argument 'k2.h5'"
fi

finish
