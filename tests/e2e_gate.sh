#!/usr/bin/env bash
# End-to-end tests of the CI gate's promises (issue 11, "Never pass on
# nothing" and "One run, several outputs"): files that are not profiles
# are refused, a check that compares nothing fails (diff warns), regions
# missing from the candidate are listed in every format and fail with
# --fail-on-missing, runs of different mpi_size/platform or --require-same
# keys (hostname only then) are not compared, a --require-same key on
# neither run is refused, and --output FORMAT=FILE writes
# each report atomically (JUnit XML validated with xmllint when present),
# and a candidate of several files has the regions of any of them.
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?}"
S=$SCOPEDB
db=$E2E_DIR/g.sqlite
export SCOPEDB_DB=$db

# expect_err RC DESC STDERR CMD...: exit RC and exactly this stderr.

"$MKPROFILE" --seed 1 --gpu --timestamp 2024-01-01T00:00:00Z base.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 1 --gpu --scale 1.2 --timestamp 2024-01-02T00:00:00Z slow.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 1 --gpu --regions main,solve,assemble,fresh \
	--timestamp 2024-01-03T00:00:00Z few.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 1 --timestamp 2024-01-04T00:00:00Z nogpu.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 2 --timestamp 2024-01-05T00:00:00Z nogpu2.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 1 --aggregate --timestamp 2024-01-06T00:00:00Z agg.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 2 --aggregate --timestamp 2024-01-07T00:00:00Z agg2.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 1 --ranks 8 --timestamp 2024-01-08T00:00:00Z eight.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 3 --regions 'a<b>&"c'"'"'d' --timestamp 2024-01-09T00:00:00Z h1.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 3 --scale 2 --regions 'a<b>&"c'"'"'d' --timestamp 2024-01-10T00:00:00Z \
	h2.h5 >/dev/null || exit 1

if tcase not-a-profile; then
# --- not a profile --------------------------------------------------------------
# zero (rank, region) rows in every layout; an HDF5 file with unrelated
# datasets (no scope_profiler_schema: read as schema 1, no rank groups); a
# schema-1 file whose rank group has no regions
for sc in 1 2 3; do
	"$MKPROFILE" --schema $sc --ranks 0 empty$sc.h5 >/dev/null || exit 1
done
"$MKPROFILE" --aggregate --ranks 0 emptyagg.h5 >/dev/null || exit 1
if command -v h5copy >/dev/null 2>&1; then
	h5copy -i base.h5 -o other.h5 -s /events/durations -d /temperature || exit 1
	h5copy -i base.h5 -o other.h5 -s /metadata -d /calibration || exit 1
	h5copy -i base.h5 -o rank0.h5 -s /metadata -d /rank0 || exit 1
	notprof="empty1.h5 empty2.h5 empty3.h5 emptyagg.h5 other.h5 rank0.h5"
else
	echo "note: h5copy not found (Debian hdf5-tools): unrelated-datasets file skipped" >&2
	notprof="empty1.h5 empty2.h5 empty3.h5 emptyagg.h5"
fi
for f in $notprof; do
	msg="scopedb: '$f': not a scope-profiler profile (no regions found)"
	expect_err 2 "ingest $f" "$msg" $S ingest "$f"
	expect_err 2 "diff $f" "$msg" $S diff base.h5 "$f"
	expect_err 2 "check $f" "$msg" $S check "$f" base.h5
	equals "check $f stdout" "$out" ""
done
# ingest creates a new store only for a profile: none was created
equals "no store created" "$(ls "$db"* 2>/dev/null)" ""
expect_err 2 "no store" "scopedb: cannot open store '$db': no such file or directory" \
	$S runs --format csv
expect 2 "ingest json" $S ingest empty3.h5 --format json
contains "ingest json error" "$out" "not a scope-profiler profile (no regions found)"

fi

# --- nothing to compare -----------------------------------------------------------
# nothing RC DESC WHY ARGS...: scopedb ARGS exits RC saying on stderr that
# there is nothing to compare, and WHY (a warning when RC is 0)
nothing() {
	local want=$1 desc=$2 msg="nothing to compare: $3"
	shift 3
	[ "$want" = 0 ] && msg="warning: $msg"
	expect_err "$want" "$desc" "scopedb: $msg" $S "$@"
}

# not_comparable DESC KEY A B ARGS...: scopedb ARGS exits 2 because the
# runs' metadata KEY differs (A in the first, B in the second)
not_comparable() {
	local desc=$1 key=$2 a=$3 b=$4
	shift 4
	expect_err 2 "$desc" "scopedb: runs are not comparable: $key differs (a: $a, b: $b);\
 compare them anyway with --allow-different $key" $S "$@"
}

if tcase setup-store; then
expect 0 "ingest" $S ingest --quiet base.h5 slow.h5 agg.h5 agg2.h5 nogpu.h5 nogpu2.h5 eight.h5
fi

if tcase nothing-to-compare; then
# runs 1 base, 2 slow, 3 agg, 4 agg2, 5 nogpu, 6 nogpu2, 7 eight
nothing 2 "check include nothing" "--include 'zzz' leaves no region of run 1 or run 2" \
	check 1 2 --include zzz
equals "check include nothing stdout" "$out" ""
nothing 2 "check include+exclude" "--include 'solve' --exclude 'sol' leaves no region of run 1 or run 2" \
	check 1 2 --include solve --exclude sol
nothing 2 "check files include nothing" "--include 'zzz' leaves no region of 'base.h5' or 'slow.h5'" \
	check base.h5 slow.h5 --include zzz
nothing 2 "check ranks nothing" "--ranks 90-99 selects no call of run 1 or run 2" \
	check 1 2 --ranks 90-99
expect_err 0 "diff threshold hides all: no warning" "" $S diff 1 2 --threshold 99
contains "diff threshold hides all" "$out" "No regions to compare."
nothing 2 "check p95 aggregate" "metric p95 has no value in either run (aggregate-layout runs have no per-call durations)" \
	check 3 4 --metric p95
nothing 2 "check gpu without gpu" "metric gpu_total has no value in either run (no call has a GPU time)" \
	check 5 6 --metric gpu_total
nothing 0 "diff include nothing warns" "--include 'zzz' leaves no region of run 1 or run 2" \
	diff 1 2 --include zzz
contains "diff include nothing still prints" "$out" "No regions to compare."
nothing 0 "diff p95 aggregate warns" "metric p95 has no value in either run (aggregate-layout runs have no per-call durations)" \
	diff 3 4 --metric p95 --format json
equals "diff p95 json rows" "$(printf '%s' "$out" | jq -c .rows)" "[]"
# one side without values is still a comparison (aggregate vs columnar p95)
expect 0 "diff p95 one side" $S diff 1 3 --metric p95
equals "diff p95 one side no warning" "$err" ""
# ...which a check must not pass on: every row of the aggregate run is
# "no value" (upstream's -100%, or a new region), none was compared
nothing 2 "check p95 one side" "metric p95 has no value in run 3 (aggregate-layout runs have no per-call durations)" \
	check 1 3 --metric p95
nothing 2 "check p95 one side, the baseline" "metric p95 has no value in run 3 (aggregate-layout runs have no per-call durations)" \
	check 3 1 --metric p95 --format json
# a run stored empty (before scopedb refused such files): its regions gone
expect 0 "ingest" $S ingest --quiet few.h5
sqlite3 "$db" "PRAGMA foreign_keys=ON; DELETE FROM timings WHERE run_id=8;
	DELETE FROM run_regions WHERE run_id=8;
	UPDATE runs SET num_regions=0, num_calls=0 WHERE id=8;" || bad "empty the run"
nothing 2 "check empty run" "run 8 has no regions" \
	check 1 8
nothing 2 "check empty baseline" "run 8 has no regions" \
	check 8 1
nothing 2 "check empty both" "run 8 has no regions" \
	check 8 8
nothing 0 "diff empty run" "run 8 has no regions" \
	diff 1 8
# index rows without any call (seed 1164 of the differential test's long
# tier): nothing to compare, the run named once
"$MKPROFILE" --random 1164 nocalls.h5 >/dev/null || exit 1
expect 0 "ingest nocalls" $S ingest --quiet nocalls.h5
nothing 0 "diff nocalls itself" "no call in run 9" \
	diff 9 9
equals "diff nocalls itself rows" "$($S diff 9 9 --format json 2>/dev/null | jq -c .rows)" "[]"
nothing 2 "check nocalls" "no call in run 9 or 'nocalls.h5'" \
	check 9 nocalls.h5

fi

if tcase missing-regions; then
# --- regions missing from the candidate ----------------------------------------
expect 0 "check missing passes" $S check base.h5 few.h5 --max-regression 100
contains "text only in a" "$out" "Only in a: halo_exchange, io"
contains "text only in b" "$out" "Only in b: fresh"
expect 0 "check missing markdown" $S check base.h5 few.h5 --max-regression 100 --format markdown
contains "md only in a" "$out" "Only in a: halo\\_exchange, io"
expect 0 "check missing csv" $S check base.h5 few.h5 --max-regression 100 --format csv
equals "csv rows with no b" "$(printf '%s\n' "$out" | awk -F, '$3 == "" {print $1}' | sort | tr '\n' ' ')" \
	"halo_exchange io "
equals "csv new rows with no a" "$(printf '%s\n' "$out" | awk -F, 'NR > 1 && $2 == "" {print $1}')" "fresh"
expect 0 "check missing json" $S check base.h5 few.h5 --max-regression 100 --format json
equals "json missing" "$(printf '%s' "$out" | jq -c .missing)" '["halo_exchange","io"]'
equals "json new" "$(printf '%s' "$out" | jq -c .new)" '["fresh"]'
equals "json fail_on_missing" "$(printf '%s' "$out" | jq -c .fail_on_missing)" "false"
equals "json key order" "$(printf '%s' "$out" | jq -c 'keys_unsorted')" \
	'["metric","a","b","rows","missing","new","max_regression","fail_on_new","fail_on_missing","status","violations","metadata_changes"]'
expect 0 "diff missing json" $S diff base.h5 few.h5 --format json
equals "diff json keys" "$(printf '%s' "$out" | jq -c 'keys_unsorted')" \
	'["metric","a","b","rows","missing","new","metadata_changes"]'
equals "diff json missing" "$(printf '%s' "$out" | jq -c '[.missing, .new]')" '[["halo_exchange","io"],["fresh"]]'
expect 1 "check --fail-on-missing" $S check base.h5 few.h5 --max-regression 100 --fail-on-missing
contains "fail-on-missing verdict" "$out" "Regression check: FAIL"
contains "fail-on-missing violations" "$out" "Budget violations: halo_exchange, io"
expect 1 "check --fail-on-missing json" $S check base.h5 few.h5 --max-regression 100 \
	--fail-on-missing --format json
equals "fail-on-missing json" "$(printf '%s' "$out" | jq -c '[.fail_on_missing, .status, .violations]')" \
	'[true,"FAIL",["halo_exchange","io"]]'
expect 1 "both flags" $S check base.h5 few.h5 --max-regression 100 --fail-on-missing --fail-on-new
contains "both flags violations" "$out" "Budget violations: halo_exchange, io, fresh"
expect 0 "nothing missing" $S check base.h5 slow.h5 --max-regression 25 --fail-on-missing

fi

if tcase not-comparable; then
# --- runs that are not comparable -------------------------------------------------
not_comparable "check mpi_size" mpi_size 4 8 \
	check 1 7
equals "check mpi_size stdout" "$out" ""
not_comparable "check mpi_size files" mpi_size 8 4 \
	check eight.h5 base.h5
expect 1 "check --allow-different" $S check 1 7 --allow-different mpi_size
expect 0 "diff across mpi_size" $S diff 1 7
contains "diff shows mpi_size" "$out" "mpi_size  4 -> 8"
expect 0 "ingest meta" $S ingest --quiet --meta node=n1 --meta platform=linux-x86_64 \
	--meta hostname=h1 --db m.sqlite base.h5
expect 0 "ingest meta" $S ingest --quiet --meta node=n2 --meta platform=linux-aarch64 \
	--meta hostname=h2 --db m.sqlite slow.h5
expect 0 "ingest meta" $S ingest --quiet --meta hostname=h1 --db m.sqlite nogpu.h5
not_comparable "check platform" platform linux-x86_64 linux-aarch64 \
	check 1 2 --db m.sqlite
# hostname is not a default key (CI runners change it per job): opt in
expect 1 "hostname differs by default" $S check 1 2 --db m.sqlite --allow-different platform
not_comparable "check --require-same hostname" hostname h1 h2 \
	check 1 2 --db m.sqlite --allow-different platform --require-same hostname
not_comparable "check --require-same" node n1 n2 \
	check 1 2 --db m.sqlite --allow-different platform --allow-different hostname \
	--require-same node
expect 1 "check allowed" $S check 1 2 --db m.sqlite --allow-different platform \
	--allow-different hostname
# a default key on one side only is not compared; a required one differs
expect 0 "hostname on both, node on one" $S check 1 3 --db m.sqlite --max-regression 1000
not_comparable "required key on one side" node n1 unset \
	check 1 3 --db m.sqlite --require-same node
# a required key on neither side is most likely misspelled
expect_err 2 "required key on neither side" \
	"scopedb: --require-same 'nosuchkey': neither run has this metadata key" \
	$S check 1 1 --db m.sqlite --require-same nosuchkey
equals "required key on neither side stdout" "$out" ""
expect_err 2 "required key on neither file" \
	"scopedb: --require-same 'compilr': neither run has this metadata key" \
	$S check base.h5 slow.h5 --require-same compilr
expect 0 "allowed key on neither side" $S check 1 1 --db m.sqlite --allow-different nosuchkey
expect_err 2 "required and allowed" \
	"scopedb: --require-same 'node' and --allow-different 'node' contradict each other: drop one" \
	$S check 1 2 --db m.sqlite --require-same node --allow-different node
expect_err 2 "required and allowed, files" \
	"scopedb: --require-same 'node' and --allow-different 'node' contradict each other: drop one" \
	$S check nosuch.h5 base.h5 --allow-different node --require-same node

fi

if tcase outputs; then
# --- one run, several outputs -----------------------------------------------------
expect 1 "outputs" $S check 1 2 --max-regression 5 --output markdown=r.md \
	--output json=c.json --output junit=j.xml --output csv=c.csv
table_out=$out
$S check 1 2 --max-regression 5 >t.txt
equals "stdout is the table" "$table_out" "$(<t.txt)"
for f in markdown:r.md json:c.json junit:j.xml csv:c.csv; do
	$S check 1 2 --max-regression 5 --format "${f%%:*}" >want.txt
	cmp -s want.txt "${f#*:}" && ok || bad "--output ${f%%:*} differs from --format ${f%%:*}"
done
equals "no temporary files" "$(ls | grep -c '\.tmp\.')" "0"
expect 0 "diff outputs" $S diff 1 2 --format json --output table=d.txt
$S diff 1 2 >want.txt
cmp -s want.txt d.txt && ok || bad "diff --output table"
echo old >keep.json
expect_err 2 "bad output format" \
	"scopedb: invalid --output 'xml=x.xml': unknown format; choose from table, json, csv, markdown, junit, github, codequality" \
	$S check 1 2 --output json=keep.json --output xml=x.xml
equals "bad format no stdout" "$out" ""
equals "bad format keeps file" "$(<keep.json)" "old"
expect_err 2 "output without =" "scopedb: invalid --output 'report.md': expected FORMAT=FILE" \
	$S diff 1 2 --output report.md
expect_err 2 "output empty file" "scopedb: invalid --output 'json=': expected FORMAT=FILE" \
	$S diff 1 2 --output json=
expect_err 2 "unwritable output" \
	"scopedb: cannot write --output 'json=nodir/c.json': no such file or directory" \
	$S check 1 2 --output json=keep.json --output json=nodir/c.json
equals "unwritable: no stdout" "$out" ""
equals "unwritable: other file untouched" "$(<keep.json)" "old"
equals "unwritable: no temporary files" "$(ls | grep -c '\.tmp\.')" "0"
nothing 2 "nothing to compare writes nothing" "--include 'zzz' leaves no region of run 1 or run 2" \
	check 1 2 --include zzz --output json=keep.json
equals "nothing: file untouched" "$(<keep.json)" "old"

fi

if tcase junit; then
[ -f j.xml ] || $S check 1 2 --max-regression 5 --format junit >j.xml # as outputs left it
# --- junit ------------------------------------------------------------------------
expect 1 "junit" $S check base.h5 few.h5 --max-regression 5 --fail-on-missing --format junit
equals "junit head" "$(printf '%s\n' "$out" | head -2)" '<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="scopedb.check" tests="6" failures="2" errors="0" skipped="0">'
contains "junit failure" "$out" '  <testcase name="halo_exchange" classname="scopedb.check.total">
    <failure type="missing" message="baseline: 287 ms, candidate: -, delta: -287 ms, delta %: -100%">'
contains "junit pass" "$out" '  <testcase name="fresh" classname="scopedb.check.total"/>'
printf '%s\n' "$out" >j2.xml
# the failure type names the rule: missing, new, or regression (the budget)
expect 1 "junit new" $S check base.h5 few.h5 --max-regression 100 --fail-on-new --format junit
contains "junit new type" "$out" '  <testcase name="fresh" classname="scopedb.check.total">
    <failure type="new" message="baseline: -,'
equals "junit only new fails" "$(printf '%s\n' "$out" | grep -c '<failure')" 1
expect 1 "junit regression" $S check base.h5 slow.h5 --max-regression 5 --format junit
equals "junit regression types" "$(printf '%s\n' "$out" | grep -o 'failure type="[a-z]*"' | sort -u)" \
	'failure type="regression"'
expect 1 "junit hostile names" $S check h1.h5 h2.h5 --format junit --metric avg
printf '%s\n' "$out" >j3.xml
contains "junit escaped" "$out" 'name="a&lt;b&gt;&amp;&quot;c&apos;d"'
# characters XML 1.0 forbids (U+FFFE, U+FFFF, C0 controls) become '?'
# (issue 29); a name of no UTF-8 is refused on one line (docs/text.md)
nonchars=$(printf 'x\357\277\276y,z\357\277\277,c\001\033d')
"$MKPROFILE" --seed 5 --regions "$nonchars" --timestamp 2024-01-09T00:00:00Z n1.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 6 --regions "$nonchars" --scale 1.5 --timestamp 2024-01-10T00:00:00Z n2.h5 \
	>/dev/null || exit 1
expect 1 "junit non-characters" $S check n1.h5 n2.h5 --format junit
printf '%s\n' "$out" >j4.xml
contains "junit U+FFFE" "$out" '<testcase name="x?y"'
contains "junit U+FFFF" "$out" '<testcase name="z?"'
contains "junit controls" "$out" '<testcase name="c??d"'
"$MKPROFILE" --seed 5 --regions "$(printf 'ok,bad\377utf8')" n3.h5 >/dev/null || exit 1
expect_error "junit invalid UTF-8" "cannot read 'n3.h5': region name 'bad.xffutf8' is not valid UTF-8" \
	$S check n3.h5 n2.h5 --format junit
if command -v xmllint >/dev/null 2>&1; then
	for f in j.xml j2.xml j3.xml j4.xml; do
		xmllint --noout "$f" 2>xmllint.err && ok || bad "xmllint $f: $(<xmllint.err)"
	done
	equals "junit testcases" "$(xmllint --xpath 'count(/testsuite/testcase)' j2.xml)" "6"
	equals "junit failures" "$(xmllint --xpath 'count(//failure)' j2.xml)" "2"
else
	echo "note: xmllint not found (Debian libxml2-utils): XML not validated" >&2
fi

fi

if tcase repetitions-any-order; then
# --- a candidate of several files: the regions of any file, in any order ---------------
# solve 50% slower in the one file that has it; the other two lack it.
# The verdict, rows and idle regions are the same whichever file comes
# first (the first file's regions alone were compared: solve "Only in a",
# PASS, when a file without it came first).
"$MKPROFILE" --seed 2 --slow solve=1.5 r1.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 3 --regions main,assemble,io,halo_exchange r2.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 4 --regions main,assemble,io,halo_exchange --idle io r3.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 1 base1.h5 >/dev/null || exit 1
for order in "r1.h5 r2.h5 r3.h5" "r2.h5 r3.h5 r1.h5" "r3.h5 r1.h5 r2.h5"; do
	# shellcheck disable=SC2086
	expect 1 "repetitions $order" $S check base1.h5 $order --max-regression 5
	contains "repetitions $order: solve" "$out" "Budget violations: solve"
	# shellcheck disable=SC2086
	expect 1 "repetitions $order: json" $S check base1.h5 $order --max-regression 5 --format json
	rows=$(printf '%s\n' "$out" | grep -v '"candidate_files"\|"r[123].h5"')
	if [ "$order" = "r1.h5 r2.h5 r3.h5" ]; then
		first=$rows
	elif [ "$rows" = "$first" ]; then
		ok
	else
		bad "repetitions $order: JSON differs from the first order's"
	fi
	case "$out" in *'"missing": []'*) ok ;; *) bad "repetitions $order: missing: $out" ;; esac
done
# the median of 10 and 11 calls is 10.5, shown as it is compared: the
# row's candidate, delta and pct of one number (+5%, over a budget of 4)
"$MKPROFILE" --seed 7 --calls 10 c10.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 22 --calls 11 c11.h5 >/dev/null || exit 1
expect 1 "repetitions: a median count between two" $S check c10.h5 c10.h5 c11.h5 --metric calls \
	--ranks 0 --include main --max-regression 4 --format csv
equals "repetitions: its csv row" "$(printf '%s\n' "$out" | grep '^main,')" "main,10,10.5,0.5,5.0,1"
expect 1 "repetitions: a median count, table" $S check c10.h5 c10.h5 c11.h5 --metric calls \
	--ranks 0 --include main --max-regression 4
contains "repetitions: its table row" "$out" "main          10       10.5   +0.5      +5%"

fi

finish
