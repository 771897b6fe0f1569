#!/usr/bin/env bash
# End-to-end tests of the command lines issue 11 promises: scope-profiler's
# own diff/check command lines pasted unchanged (--include, --exclude and
# --ranks taking several values after one flag, as Python's argparse
# nargs='+'), giving exactly the output of the repeated-flag form; the
# error when the values swallowed the runs; and the git-like selectors
# (a bare commit hash, ~N and ^ on every form, files for show and meta,
# files refused by the commands that change stored runs).
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?}"
S=$SCOPEDB
export SCOPEDB_DB=$E2E_DIR/c.sqlite

# Profiles with regions named like upstream examples: solve, io, mpi_*.
mk() { "$MKPROFILE" "$@" >/dev/null || { bad "mkprofile $*"; finish; }; }
regions=solve,solver_x,io,mpi_wait,mpi_allreduce,assemble
mk --ranks 8 --regions $regions --calls 10 --seed 1 --timestamp 2026-01-01T00:00:00Z a.h5
mk --ranks 8 --regions $regions --calls 10 --seed 1 --scale 1.1 --slow io=1.5 \
	--timestamp 2026-01-02T00:00:00Z b.h5

# same DESC CMD1 :: CMD2: both exit alike and print the same stdout.
same() {
	local desc=$1 a=() b=()
	shift
	while [ "$1" != "::" ]; do a+=("$1"); shift; done
	shift
	b=("$@")
	run "${a[@]}"
	local out1=$out rc1=$rc
	run "${b[@]}"
	equals "$desc: exit" "$rc" "$rc1"
	equals "$desc: output" "$out" "$out1"
	[ -n "$out1" ] && ok || bad "$desc: no output"
}

# --- upstream command lines, unchanged ---------------------------------------
if tcase upstream; then
# (scope-profiler diff A B --include solve io --exclude '^mpi' --ranks 0 1 4-7)
for f in table csv json markdown; do
	same "diff multi-value ($f)" \
		$S diff a.h5 b.h5 --include solve io --exclude '^mpi' --ranks 0 1 4-7 --format $f :: \
		$S diff a.h5 b.h5 --include solve --include io --exclude '^mpi' --ranks 0 --ranks 1 \
		--ranks 4-7 --format $f
done
same "diff --include several, metric" \
	$S diff a.h5 b.h5 --metric p95 --include solve io mpi --sort pct :: \
	$S diff a.h5 b.h5 --metric p95 --include solve --include io --include mpi --sort pct
same "diff --exclude several" \
	$S diff a.h5 b.h5 --exclude '^mpi' io :: \
	$S diff a.h5 b.h5 --exclude '^mpi' --exclude io
same "check multi-value" \
	$S check a.h5 b.h5 --max-regression 5 --include solve io --ranks 0 1 4-7 :: \
	$S check a.h5 b.h5 --max-regression 5 --include solve --include io --ranks 0,1,4-7
equals "check multi-value fails on io" "$rc" 1
contains "check multi-value names io" "$out" "Budget violations: io"
same "check --ranks first" \
	$S check --ranks 0 1 4-7 a.h5 b.h5 --include solve :: \
	$S check a.h5 b.h5 --include solve --ranks 0-1,4-7
same "runs after --" \
	$S diff --include solve io -- a.h5 b.h5 :: \
	$S diff a.h5 b.h5 --include solve --include io
same "--include=x takes one value" \
	$S diff --include=solve a.h5 b.h5 :: \
	$S diff a.h5 b.h5 --include solve
same "--ranks values end at a word that is no number" \
	$S diff --ranks 0 1 a.h5 b.h5 :: \
	$S diff a.h5 b.h5 --ranks 0-1
expect 0 "show multi-value" $S show a.h5 --include solve io --ranks 0 1 --format csv
equals "show multi-value regions" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1 | sort | tr '\n' ' ')" \
	"io solve solver_x "

fi

if tcase swallowed; then
# The values swallowed the runs, as argparse would: say so, and how to fix.
expect 2 "runs after the values" $S diff --include solve io a.h5 b.h5
equals "runs after the values: the hint" "$(printf '%s\n' "$err" | head -1)" \
	"scopedb: diff needs two runs (selectors or files); --include took 'solve io a.h5 b.h5' (its values run until the next option): put the arguments before it or end its values with --"
contains "runs after the values: usage" "$err" "usage: scopedb diff A B"
run $S check --exclude mpi a.h5 b.h5
equals "check: the same hint" "$(printf '%s\n' "$err" | head -1)" \
	"scopedb: check needs two runs (selectors or files); --exclude took 'mpi a.h5 b.h5' (its values run until the next option): put the arguments before it or end its values with --"
run $S diff --ranks 0 1 2 3
equals "--ranks swallowing run ids" "$(printf '%s\n' "$err" | head -1)" \
	"scopedb: diff needs two runs (selectors or files); --ranks took '0 1 2 3' (its values run until the next option): put the arguments before it or end its values with --"
expect_error "a bad later --ranks value" \
	"^scopedb: invalid --ranks '3-1': range 3-1 ends before it starts \(the values of --ranks run until the next option: end them with --\)$" \
	$S diff a.h5 b.h5 --ranks 0 3-1
expect 2 "exit codes stay 0/1/2" $S diff a.h5 b.h5 --include '('
# the runs were enough, and later files became patterns: said, not silent
expect 0 "files taken as values" $S diff a.h5 b.h5 --exclude io a.h5
equals "files taken as values: the warning" "$err" \
	"scopedb: warning: --exclude took 'a.h5', a file, as one of its values (they run until the next option): put the files before it or end its values with --"
expect_err 0 "a first value that is a file's name: no warning" "" $S diff a.h5 b.h5 --exclude a.h5
mk --ranks 8 --regions $regions --calls 10 --seed 2 c.h5
mk --ranks 8 --regions $regions --calls 10 --seed 3 d.h5
expect_err 0 "files of an option of files: no warning" "" \
	$S check a.h5 b.h5 --max-regression 1000 --candidate-files c.h5 d.h5
run $S diff a.h5 b.h5 --ranks -1
equals "a negative value: said, and how to write one" "$(printf '%s\n' "$err" | head -1)" \
	"scopedb: option '--ranks' needs a value: '-1', a word starting with '-', is taken as an option (a value starting with '-' is written --ranks=-1)"

fi

# --- selectors ----------------------------------------------------------------
# r1 main aaaa1111 (label base)  r2 dev bbbb2222  r3 main cccc3333
# r4 main cccc3333 (the same commit again)  r5 no branch dddd4444
if tcase setup-runs; then
for i in 1 2 3 4 5; do mk --seed $i --timestamp 2026-02-0${i}T00:00:00Z r$i.h5; done
expect 0 "ingest r1" $S ingest -q --commit aaaa1111 --branch main --label base --tag t r1.h5
expect 0 "ingest r2" $S ingest -q --commit bbbb2222 --branch dev --tag t r2.h5
expect 0 "ingest r3" $S ingest -q --commit cccc3333 --branch main --label base r3.h5
expect 0 "ingest r4" $S ingest -q --commit cccc3333 --branch main --tag t r4.h5
expect 0 "ingest r5" $S ingest -q --commit dddd4444 r5.h5

fi

if tcase selectors; then
# sel SELECTOR ID: show SELECTOR is run ID.
sel() {
	run $S show "$1" --format json
	case "$out" in
	"{\"run\": {\"id\": $2,"*) ok ;;
	*) bad "selector '$1': expected run $2, got: $out $err" ;;
	esac
}
sel aaaa 1
sel bbbb2222 2
sel cccc 4
# commit~N counts from the commit's first run (run 3): never a run of
# the commit itself
sel cccc~1 1
sel commit:cccc~1 1
sel cccc^ 1
sel commit:bbbb 2
sel dddd~1 4
sel dddd~4 1
sel branch:main~1 3
sel branch:main^^ 1
sel label:base~1 1
sel label:base^ 1
sel tag:t^ 2
sel latest^ 4
sel latest~1 4
sel latest^^ 3
# so do a run id and a pin: run 4 repeats run 3's commit
sel 4~1 1
sel 3~1 1
sel 5~1 4
expect 0 "pin" $S pin base 4
sel pin:base~1 1
expect_error "bare hash, no such commit" "^scopedb: no run has a commit starting with 'abcd'$" $S show abcd
expect_error "all digits stay a run id" "^scopedb: no run with id 1234$" $S show 1234
# a commit measured on two branches: dev's runs of it count back on dev
# (runs 6 and 7 repeat main's aaaa3 on dev: the run before them is dev's 5)
i=0
for spec in main:aaaa1 main:aaaa2 main:aaaa3 dev:dddd1 dev:dddd2 dev:aaaa3 dev:aaaa3 main:aaaa4; do
	i=$((i + 1))
	mk --seed $i --calls 5 --ranks 1 --timestamp 2026-02-0${i}T00:00:00Z b$i.h5
	$S ingest -q --db two.sqlite --branch "${spec%%:*}" --commit "${spec#*:}0000" b$i.h5 ||
		bad "ingest b$i"
done
sel_two() {
	run $S show --db two.sqlite "$1" --format json
	case "$out" in
	"{\"run\": {\"id\": $2,"*) ok ;;
	*) bad "selector '$1' of two branches: expected run $2, got: $out $err" ;;
	esac
}
sel_two 6~1 5
sel_two 7~1 5
sel_two 7~2 4
sel_two 8~1 3
sel_two commit:aaaa3~1 2
# a short hash of digits only, as the tables print it: the message says
# how to name the commit (in a store of its own)
mk --seed 8 digits.h5
expect 0 "ingest a commit of digits" $S ingest -q --db digits.sqlite --commit 0632942611440abc digits.h5
expect_error "digits of a commit: the hint" \
	"^scopedb: no run with id 632942611440; a commit starts with 0632942611440: write 'commit:0632942611440~1'$" \
	$S show --db digits.sqlite 0632942611440~1
expect_error "commit~N past the first run of its branch" \
	"^scopedb: no run 'commit:bbbb~1': run 2 is the first run of branch dev$" $S show commit:bbbb~1
expect_error "commit~N too far" \
	"^scopedb: no run 'cccc~2': only 1 run recorded before run 3 on branch main$" $S show cccc~2
mk --seed 6 --timestamp 2026-02-06T00:00:00Z r6.h5
expect 0 "ingest r6" $S ingest -q --commit ccccffff --branch main r6.h5
expect_error "ambiguous bare hash lists the candidates" \
	"^scopedb: commit prefix 'cccc' matches several commits: cccc3333, ccccffff$" $S show cccc
sel cccc3 4
sel ccccf~1 4
# an exact commit in upper case, though a longer stored one extends it
mk --seed 7 --timestamp 2026-02-07T00:00:00Z r7.h5
expect 0 "ingest r7" $S ingest -q --commit cccc3333aa --branch main r7.h5
sel CCCC3333 4
sel commit:CCCC3333 4
expect_error "a prefix of both, in upper case" \
	"^scopedb: commit prefix 'CCCC333' matches several commits: cccc3333, cccc3333aa$" $S show CCCC333
# a tag or label whose own name ends like a suffix, when no shorter name has runs
expect 0 "tag rc^ and v~2" $S tag 2 'rc^' 'v~2'
sel 'tag:rc^' 2
sel 'tag:v~2' 2
expect 0 "tag v~0" $S tag 2 'v~0'
sel 'tag:v~0' 2
expect 0 "untag v~0" $S untag 2 'v~0'
expect_error "a tag ending in ~N with a tagged shorter name" \
	"^scopedb: no run 'tag:t~9': only 3 runs have tag 't'$" $S show 'tag:t~9'
expect_error "~N too large" \
	"^scopedb: invalid run selector 'latest~99999999999999999999': ~N is too large \(at most 9223372036854775807 runs back\)$" \
	$S show latest~99999999999999999999
expect 0 "untag" $S untag 2 'rc^' 'v~2'
expect_error "bad selector lists the grammar" \
	"^scopedb: invalid run selector 'abc': expected ID, latest, tag:NAME, commit:PREFIX, a commit hash, branch:NAME, label:NAME or pin:NAME \(each may end in ~N or \^\), base:REF, or the path of an existing file$" \
	$S show abc
# a command of stored runs only lists only their forms (it refuses base:REF
# and files: a hint naming them pointed the wrong way)
for c in "rm 2 abc" "tag abc x" "pin x abc" "export abc" "push --to o.sqlite abc"; do
	# shellcheck disable=SC2086
	expect_error "bad selector, stored runs: $c" \
		"^scopedb: invalid run selector 'abc': expected ID, latest, tag:NAME, commit:PREFIX, a commit hash, branch:NAME, label:NAME or pin:NAME \(each may end in ~N or \^\)$" \
		$S $c
done
# a bare hash naming an existing file is the file
cp r1.h5 beef
expect 0 "show a hash-named file" $S show beef
contains "hash-named file" "$out" "Run: beef (file, label example"
rm -f beef

fi

# --- files wherever a run is read -------------------------------------------
if tcase files; then
expect 0 "show FILE" $S show r2.h5 --include solve
contains "show FILE header" "$out" "Run: r2.h5 (file, label example, recorded 2026-02-02T00:00:00Z, 4 ranks, columnar)"
run $S show 2 --include solve --format csv
csv_stored=$out
expect 0 "show FILE csv" $S show r2.h5 --include solve --format csv
equals "show FILE = show stored run" "$out" "$csv_stored"
expect 0 "show FILE json" $S show r2.h5 --format json
contains "show FILE json" "$out" '{"run": {"id": null, "path": "r2.h5"'
# a file with no timestamp: no recorded time (it was never ingested), in
# the table as in the JSON (the table showed the time of the reading)
cp "$TESTDATA/schema-3.h5" untimed.h5
expect 0 "show an untimed FILE" $S show untimed.h5
equals "untimed FILE header" "${out%%$'\n'*}" "Run: untimed.h5 (file, 1 rank, columnar)"
expect 0 "show an untimed FILE json" $S show untimed.h5 --format json
equals "untimed FILE json" "$(jq -c .run.recorded_at <<<"$out")" null
expect 0 "show FILE without a store" env SCOPEDB_DB="$E2E_DIR/none.sqlite" $S show r2.h5
[ ! -e "$E2E_DIR/none.sqlite" ] && ok || bad "show FILE created a store"
expect_error "show missing file" "^scopedb: cannot read 'nope.h5': no such file$" $S show nope.h5
expect 0 "meta FILE" $S meta r1.h5
contains "meta FILE" "$out" "mpi_size"
expect 0 "meta FILE FILE" $S meta r1.h5 r2.h5 --all
contains "meta a file" "$out" "a: r1.h5 (file)"
contains "meta b file" "$out" "b: r2.h5 (file)"
expect 0 "meta RUN FILE json" $S meta 1 r2.h5 --format json
contains "meta RUN FILE json" "$out" '{"a": 1, "b": null, "b_path": "r2.h5"'
expect 0 "diff stored run with file" $S diff aaaa r1.h5 --format csv
equals "diff run vs its own file: all deltas 0" \
	"$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f4 | sort -u)" "0.0"

fi

if tcase refuse-files; then
# commands that change stored runs refuse files
expect_error "tag refuses a file" \
	"^scopedb: 'r1.h5' is a file, not a stored run: tag takes stored runs only \(ingest the file first\)$" \
	$S tag r1.h5 x
expect_error "untag refuses a file" \
	"^scopedb: 'r1.h5' is a file, not a stored run: untag takes stored runs only \(ingest the file first\)$" \
	$S untag r1.h5 x
expect_error "rm refuses a file" \
	"^scopedb: 'r1.h5' is a file, not a stored run: rm takes stored runs only \(ingest the file first\)$" \
	$S rm r1.h5
expect_error "pin refuses a file" "^scopedb: cannot pin the file 'r1.h5': ingest it, then pin its run$" \
	$S pin p r1.h5
expect_error "export refuses a file" \
	"^scopedb: 'r1.h5' is a file, not a stored run: export takes stored runs only \(ingest the file first\)$" \
	$S export r1.h5
# a name no selector has that exists, but is no file: why it cannot be read
mkdir -p adir
expect_err 2 "a directory as a run" "scopedb: cannot read 'adir': is a directory" $S show adir
mkfifo afifo
expect_err 2 "a FIFO as a run" "scopedb: cannot read 'afifo': not a regular file" $S show afifo
expect_err 2 "a directory as a run: diff" "scopedb: cannot read 'adir': is a directory" \
	$S diff r1.h5 adir
expect_err 2 "a directory as a stored run: tag" "scopedb: cannot read 'adir': is a directory" \
	$S tag adir x
expect_err 2 "a directory as a stored run: pin" "scopedb: cannot pin 'adir': not a stored run (nor a file)" \
	$S pin p adir

fi

finish
