#!/usr/bin/env bash
# End-to-end tests of "scopedb diff", "scopedb check" and the pins
# ("pin", "unpin", "pins"): selectors, stored runs against files, every
# output format, colour, and the exit codes CI relies on (diff 0; check 0
# PASS, 1 FAIL; 2 for any error).  Profiles are written by mkprofile.
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?}"
S=$SCOPEDB
db=$E2E_DIR/d.sqlite
has_python=0
command -v python3 >/dev/null 2>&1 && has_python=1

# --- profiles ----------------------------------------------------------------
# base: the reference; slow: every call 20% longer; same: the timings of
# base in a different file; few: two regions gone, one new; agg: base as
# the aggregate layout (no per-call data).
"$MKPROFILE" --seed 1 --gpu --timestamp 2024-01-01T00:00:00Z base.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 1 --gpu --scale 1.2 --timestamp 2024-01-02T00:00:00Z slow.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 1 --gpu --label same --timestamp 2024-01-03T00:00:00Z same.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 1 --gpu --regions main,solve,assemble,fresh \
	--timestamp 2024-01-04T00:00:00Z few.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 1 --aggregate --timestamp 2024-01-05T00:00:00Z agg.h5 >/dev/null || exit 1

# --- files directly, no store ----------------------------------------------
if tcase files; then
expect 0 "diff files" $S diff base.h5 slow.h5
contains "diff header a" "$out" "a: base.h5 (file, label example, recorded 2024-01-01T00:00:00Z, 4 ranks)"
contains "diff header b" "$out" "b: slow.h5 (file"
contains "diff metric" "$out" "Metric: total (seconds)"
contains "diff +20%" "$out" "+20%"
contains "diff columns" "$out" "region"
[ ! -e scopedb.sqlite ] && ok || bad "diff of files created a store"
# the generator's --slow is repeatable (one region each; it kept the last)
"$MKPROFILE" --seed 1 --regions a,b,c --slow a=1.3 --slow c=1.5 slow2.h5 >/dev/null ||
	bad "mkprofile --slow twice"
"$MKPROFILE" --seed 1 --regions a,b,c plain2.h5 >/dev/null || bad "mkprofile"
expect 0 "two --slow" $S diff plain2.h5 slow2.h5 --format csv
equals "two --slow: a, b, c" "$(printf '%s\n' "$out" | tail -n +2 | sort |
	awk -F, '{ printf "%s %.0f ", $1, $5 }')" "a 30 b 0 c 50 "
expect 0 "diff same timings" $S diff base.h5 same.h5 --format csv
equals "diff same: all deltas 0" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f4 | sort -u)" "0.0"
expect 0 "diff few" $S diff base.h5 few.h5
contains "only in a" "$out" "Only in a: halo_exchange, io"
contains "only in b" "$out" "Only in b: fresh"
expect 1 "check files" $S check base.h5 slow.h5
contains "check verdict" "$out" "Regression check: FAIL"
contains "check budget" "$out" "Regression budget: +0% (total)"
contains "check baseline" "$out" "Baseline: base.h5"
contains "check candidate" "$out" "Candidate: slow.h5"
contains "check violations" "$out" "Budget violations: "
expect 0 "check within budget" $S check base.h5 slow.h5 --max-regression 20.01
contains "check pass" "$out" "Regression check: PASS"
expect 1 "check just over budget" $S check base.h5 slow.h5 --max-regression 19.99
expect 0 "improvement passes" $S check slow.h5 base.h5
expect 0 "gone regions never fail" $S check base.h5 few.h5 --include io --include halo
expect 0 "new region passes" $S check base.h5 few.h5 --include fresh
expect 1 "new region with --fail-on-new" $S check base.h5 few.h5 --include fresh --fail-on-new
contains "fail-on-new names it" "$out" "Budget violations: fresh"
# --fail-on-missing: a region the candidate keeps with no call (an index
# row of no calls, schemas 2 and 3) while the baseline calls it fails too,
# typed missing; without the flag, or where the baseline has no call
# either, it does not
"$MKPROFILE" --seed 1 ibase.h5 >/dev/null && "$MKPROFILE" --seed 1 --idle io icand.h5 >/dev/null || exit 1
expect 0 "a region left without calls passes" $S check ibase.h5 icand.h5 --ranks 1-3
expect 1 "with --fail-on-missing it fails" $S check ibase.h5 icand.h5 --ranks 1-3 --fail-on-missing
contains "and is named" "$out" "Budget violations: io"
run $S check ibase.h5 icand.h5 --ranks 1-3 --fail-on-missing --format github
contains "github: missing, no call" "$out" "title=scopedb%3A io is missing::io: total"
contains "github: why" "$out" "no call in the candidate (--fail-on-missing)"
run $S check ibase.h5 icand.h5 --ranks 1-3 --fail-on-missing --format junit
contains "junit: typed missing" "$out" '<failure type="missing"'
expect 0 "rank 0 calls it in both" $S check ibase.h5 icand.h5 --ranks 0 --fail-on-missing
# the only region watched left without calls: with --fail-on-missing a
# FAIL naming it (the candidate ran: its other regions have calls), without
# it nothing to compare, never a pass
expect 1 "the one region watched, not called" \
	$S check ibase.h5 icand.h5 --ranks 1-3 --include io --fail-on-missing
contains "the one region watched: named" "$out" "Budget violations: io"
expect_err 2 "the one region watched, without --fail-on-missing" \
	"scopedb: nothing to compare: --include 'io' --ranks 1-3 selects no call of 'icand.h5'" \
	$S check ibase.h5 icand.h5 --ranks 1-3 --include io
# but a candidate that made no call at all on the ranks chosen is nothing,
# with the option too (another rank's calls do not count)
"$MKPROFILE" --seed 1 --regions a,b --calls 3 --ranks 2 ab.json >/dev/null || exit 1
jq -c '.regions |= map(if .rank == 1 then .start_times_ns = [] | .end_times_ns = [] else . end)' \
	ab.json >ab1idle.json || exit 1
expect_err 2 "no call at all on the ranks chosen" \
	"scopedb: nothing to compare: --ranks 1 selects no call of 'ab1idle.json'" \
	$S check ab.json ab1idle.json --ranks 1 --fail-on-missing
expect 0 "no call in the baseline either" $S check icand.h5 icand.h5 --ranks 1-3 --fail-on-missing
# a metric that gives the idle region a value (calls: 0, -100%) types it
# missing too
run $S check ibase.h5 icand.h5 --ranks 1-3 --fail-on-missing --metric calls --format junit
equals "calls: exit" "$rc" 1
contains "calls: typed missing" "$out" '<failure type="missing"'
# a region only the candidate has, without calls, is not missing
"$MKPROFILE" --seed 1 --regions main,solve inew-a.h5 >/dev/null &&
	"$MKPROFILE" --seed 1 --regions main,solve,fresh --idle fresh inew-b.h5 >/dev/null || exit 1
expect 0 "a new region without calls is not missing" \
	$S check inew-a.h5 inew-b.h5 --ranks 1-3 --fail-on-missing --metric calls
# repetitions: the median over the files decides, whichever file is first
"$MKPROFILE" --seed 2 --idle io irep1.h5 >/dev/null && "$MKPROFILE" --seed 3 irep2.h5 >/dev/null &&
	"$MKPROFILE" --seed 4 irep3.h5 >/dev/null || exit 1
expect 0 "an idle repetition first" $S check ibase.h5 irep1.h5 --candidate-files irep2.h5 irep3.h5 \
	--ranks 1-3 --fail-on-missing --max-regression 50
expect 0 "an idle repetition later" $S check ibase.h5 irep2.h5 --candidate-files irep1.h5 irep3.h5 \
	--ranks 1-3 --fail-on-missing --max-regression 50
# a run whose regions have no call at all (index rows only) is nothing to
# compare: a check never passes on it, in either place, point or windowed
"$MKPROFILE" --seed 3 --calls 0 idle.h5 >/dev/null || exit 1
expect_err 2 "check of a run without calls" \
	"scopedb: nothing to compare: no call in 'idle.h5'" $S check base.h5 idle.h5 --fail-on-missing
expect_err 2 "check against a baseline without calls" \
	"scopedb: nothing to compare: no call in 'idle.h5'" $S check idle.h5 base.h5
expect_err 0 "diff of a run without calls warns" \
	"scopedb: warning: nothing to compare: no call in 'idle.h5'" $S diff base.h5 idle.h5
expect_err 0 "two runs without calls: nothing either" \
	"scopedb: warning: nothing to compare: no call in 'idle.h5'" $S diff idle.h5 idle.h5
# among repetitions the medians are compared, whichever file is first
"$MKPROFILE" --seed 5 rep2.h5 >/dev/null && "$MKPROFILE" --seed 6 rep3.h5 >/dev/null || exit 1
run $S check base.h5 idle.h5 --candidate-files rep2.h5 rep3.h5
r1=$rc
run $S check base.h5 rep2.h5 --candidate-files idle.h5 rep3.h5
equals "an idle repetition, first or not" "$r1" "$rc"
[ "$rc" != 2 ] && ok || bad "repetitions with an idle file: nothing to compare"
fi

# --- ingest, selectors -----------------------------------------------------
if tcase setup-store; then
expect 0 "ingest" $S ingest --db "$db" --tag baseline --commit 1111aaaa --branch main base.h5
expect 0 "ingest" $S ingest --db "$db" --tag nightly --commit 2222bbbb --branch main slow.h5
expect 0 "ingest" $S ingest --db "$db" --tag nightly --commit 2222cccc --branch dev same.h5
expect 0 "ingest" $S ingest --db "$db" --label aggregated agg.h5
fi
export SCOPEDB_DB=$db
if tcase selectors; then
expect 0 "diff ids" $S diff 1 2
contains "diff ids header" "$out" "a: run 1 (label example, commit 1111aaaa, branch main, tags baseline, recorded 2024-01-01T00:00:00Z, 4 ranks)"
contains "diff ids +20%" "$out" "+20%"
expect 0 "latest~1" $S diff latest~1 latest --format json
contains "latest is run 4" "$out" '"b": {"id": 4,'
contains "latest~1 is run 3" "$out" '"a": {"id": 3,'
expect 0 "tag selectors" $S diff tag:baseline tag:nightly~1 --format json
contains "tag:nightly~1 is run 2" "$out" '"b": {"id": 2,'
expect 0 "commit prefix" $S diff commit:1111 commit:2222b --format json
contains "commit:2222b" "$out" '"commit": "2222bbbb"'
expect_error "ambiguous commit" "commit prefix '2222' matches several commits: 2222bbbb, 2222cccc" \
	$S diff commit:2222 1
expect 0 "branch and label" $S diff branch:main~1 label:aggregated --format json
contains "branch:main~1 is run 1" "$out" '"a": {"id": 1,'
contains "label:aggregated" "$out" '"label": "aggregated"'
expect_error "unknown tag" "^scopedb: no run has tag 'weekly'$" $S diff tag:weekly 1
expect_error "too far back" "no run 'latest~9': only 4 runs stored" $S diff latest~9 1
expect_error "no such id" "no run with id 99" $S check 99 1
expect_error "bad selector" "invalid run selector 'yesterday'" $S diff yesterday 1
expect_error "missing file" "cannot read 'nope.h5': no such file" $S diff nope.h5 1
expect_error "not a profile" "cannot read '.*d.sqlite'" $S diff "$db" 1
expect_error "store missing" "absent.sqlite" $S diff --db absent.sqlite latest 1
[ ! -e absent.sqlite ] && ok || bad "diff created a missing store"
# A stored run and its file give the same rows.
if [ $has_python = 1 ]; then
	$S diff 1 2 --metric p95 --format json >stored.json
	$S diff base.h5 slow.h5 --metric p95 --format json >files.json
	python3 - stored.json files.json <<'EOF' && ok || bad "stored and file rows differ"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["rows"] == b["rows"] and len(a["rows"]) == 5, (a["rows"], b["rows"])
assert a["a"]["id"] == 1 and b["a"]["id"] is None and b["a"]["path"] == "base.h5"
EOF
fi
fi

# --- options -----------------------------------------------------------------
if tcase options; then
expect 0 "metric p95 on aggregate" $S diff 1 label:aggregated --metric p95 --format csv
equals "aggregate percentiles empty" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f3 | sort -u)" ""
expect 0 "metric calls" $S diff 1 2 --metric calls --format csv
equals "calls unchanged" "$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f2-5)" "400,400,0,0.0"
expect 0 "gpu metric" $S diff 1 2 --metric gpu_total
expect 0 "sort name" $S diff 1 few.h5 --sort name --format csv
equals "sorted by name" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1 | tr '\n' ' ')" \
	"assemble fresh halo_exchange io main solve "
expect 0 "threshold" $S diff 1 3 --threshold 1 --format csv
equals "threshold drops unchanged rows" "$(printf '%s\n' "$out" | wc -l)" 1
expect 0 "include exclude" $S diff 1 2 --include 'ma|so' --include io --exclude 'so' --format csv
equals "include/exclude rows" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1 | sort | tr '\n' ' ')" "io main "
expect 0 "ranks" $S diff 1 2 --ranks 0-1 --ranks 3 --metric calls --format csv
equals "ranks 0,1,3" "$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f2)" 300
expect 0 "ranks table line" $S diff 1 2 --ranks 0-1 --ranks 3
contains "ranks line" "$out" "Ranks: 0-1,3"
expect 0 "absent ranks" $S diff 1 2 --ranks 7 --metric calls --format csv
equals "absent ranks: calls 0" "$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f2-3)" "0,0"
# Without --ranks the stored all-ranks totals (run_regions) are read; with
# every rank listed the timings rows and blobs are pooled: same numbers.
for m in $(metrics); do
	expect 0 "stored totals $m" $S diff 1 2 --metric $m --format csv
	all=$out
	expect 0 "pooled ranks $m" $S diff 1 2 --ranks 0-3 --metric $m --format csv
	equals "stored totals = pooled ranks: $m" "$all" "$out"
	expect 0 "stored history $m" $S history --match . --metric $m --format csv
	all=$out
	expect 0 "pooled history $m" $S history --match . --ranks 0-3 --metric $m --format csv
	equals "history stored = pooled: $m" "$all" "$out"
done
# A schema-1 store (no run_regions, its covering index still there): the
# first command, even a read-only diff, upgrades it to the same numbers.
cp "$db" v1.sqlite
expect 0 "p95 before" $S diff 1 2 --db v1.sqlite --metric p95 --format csv
all=$out
sqlite3 v1.sqlite "DROP TABLE run_regions; DROP TABLE run_nesting; DROP TABLE paths;
	DROP TABLE path_ranks; CREATE INDEX timings_summary ON timings (run_id,
	region_id, rank, has_events, calls, total_ns, min_ns, max_ns, gpu_count, gpu_total_ns);
	PRAGMA user_version = 1" || bad "cannot make a schema-1 store"
expect 0 "diff upgrades a schema-1 store" $S diff 1 2 --db v1.sqlite --metric p95 --format csv
equals "upgraded store, same p95" "$out" "$all"
equals "upgraded to 4" "$(sqlite3 v1.sqlite 'PRAGMA user_version')" 4
equals "run_regions refilled" "$(sqlite3 v1.sqlite 'SELECT count(DISTINCT run_id) FROM run_regions')" \
	"$(sqlite3 v1.sqlite 'SELECT count(*) FROM runs')"
fi

# --- formats -------------------------------------------------------------------
if tcase formats; then
expect_error "unknown pin" "no pin named 'none'" $S check pin:none 2 --format json
expect 0 "pin" $S pin release 1
equals "pin message" "$out" "pinned 'release' to run 1"
expect 1 "check pin json" $S check pin:release tag:nightly~1 --max-regression 5 --format json
if [ $has_python = 1 ]; then
	printf '%s\n' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert list(d) == ["metric", "a", "b", "rows", "missing", "new", "max_regression",
                   "fail_on_new", "fail_on_missing", "status", "violations",
                   "metadata_changes"], list(d)
assert d["metadata_changes"] == [], d["metadata_changes"]
assert list(d["a"]) == ["id", "path", "label", "commit", "branch", "tags", "recorded_at",
                        "num_ranks"], list(d["a"])
assert d["metric"] == "total" and d["status"] == "FAIL" and d["max_regression"] == 5.0
assert d["fail_on_new"] is False and d["a"]["id"] == 1 and d["b"]["id"] == 2
assert d["a"]["tags"] == ["baseline"] and d["a"]["num_ranks"] == 4
assert len(d["violations"]) == 5 and len(d["rows"]) == 5
for r in d["rows"]:
    assert list(r) == ["name", "a", "b", "delta", "pct"]
    assert abs(r["pct"] - 20) < 0.001 and abs(r["b"] - r["a"] - r["delta"]) < 1e-12
assert [r["name"] for r in d["rows"]] == d["violations"]
' && ok || bad "check json shape"
fi
expect 0 "check markdown pass" $S check pin:release latest~1 --format markdown
equals "markdown verdict first" "$(printf '%s\n' "$out" | head -1)" "### Regression check: PASS"
contains "markdown table" "$out" "| region | baseline | candidate | delta | delta % |"
contains "markdown align" "$out" "| :--- | ---: | ---: | ---: | ---: |"
expect 0 "diff markdown" $S diff 1 2 --format markdown
contains "markdown escapes _" "$out" "| halo\\_exchange |"
expect 1 "check csv" $S check 1 2 --format csv
equals "csv header" "$(printf '%s\n' "$out" | head -1)" "region,a,b,delta,pct,violation"
equals "csv rows" "$(printf '%s\n' "$out" | wc -l)" 6
# the rows over the budget, as JSON's "violations" names them
equals "csv violations = json's" \
	"$(printf '%s\n' "$out" | awk -F, 'NR > 1 && $6 == 1 { print $1 }' | sort | tr '\n' ' ')" \
	"$($S check 1 2 --format json | jq -r '.violations[]' | sort | tr '\n' ' ')"
[ "$(printf '%s\n' "$out" | awk -F, 'NR > 1 && $6 == 1' | wc -l)" -gt 0 ] && ok ||
	bad "csv: no row marked a violation in a failed check"
expect 0 "diff csv" $S diff 1 2 --format csv
equals "diff csv: no violation column" "$(printf '%s\n' "$out" | head -1)" "region,a,b,delta,pct"
expect_error "bad format" "invalid --format 'xml': choose from table, json, csv, markdown" \
	$S diff 1 2 --format xml
fi

# --- pins ------------------------------------------------------------------------
if tcase pins; then
$S pin release 1 >/dev/null # as formats left it
expect 0 "pin move" $S pin release tag:nightly~1
equals "move message" "$out" "moved pin 'release' from run 1 to run 2"
expect 0 "pin again" $S pin release 2
equals "same run message" "$out" "pin 'release' already on run 2"
expect 0 "second pin" $S pin base/v1.0 commit:1111
expect 0 "pins" $S pins
contains "pins lists base" "$out" "base/v1.0"
contains "pins lists release" "$out" "release"
equals "pins rows" "$(printf '%s\n' "$out" | wc -l)" 3
expect 0 "pins json" $S pins --format json
contains "pins json" "$out" '"name": "release", "run": 2,'
equals "pinned run cannot be deleted" \
	"$(sqlite3 "$db" 'PRAGMA foreign_keys=ON; DELETE FROM runs WHERE id = 2;' 2>&1 | grep -c 'FOREIGN KEY')" 1
expect_error "pin unknown run" "no run with id 42" $S pin x 42
expect_error "pin bad name" "invalid pin name 'a b'" $S pin "a b" 1
# a long name is quoted to 120 bytes, so the rule and the hint stay whole
# (a 2,001-byte name was cut at 1 KiB, rule and closing quote lost)
long=$(printf '%2001s' | tr ' ' t)
cut120="$(printf '%120s' | tr ' ' t)..."
expect_err 2 "pin: a long name" \
	"scopedb: invalid pin name '$cut120': use 1 to 64 letters, digits, '.', '_', '-' or '/'" \
	$S pin "$long" 1
expect_err 2 "unpin: a long name" "scopedb: no pin named '$cut120'" $S unpin "$long"
expect_err 2 "pin: a long selector" "scopedb: no pin named '$cut120'" $S show "pin:$long"
expect_error "pin a file" "cannot pin the file 'base.h5': ingest it, then pin its run" $S pin x base.h5
expect_error "pin needs a store" "cannot open store 'none.sqlite': no such file" \
	$S pin --db none.sqlite x 1
[ ! -e none.sqlite ] && ok || bad "pin created a store"
expect 0 "unpin" $S unpin base/v1.0
equals "unpin message" "$out" "unpinned 'base/v1.0' (was run 1)"
expect_error "unpin twice" "no pin named 'base/v1.0'" $S unpin base/v1.0
expect 2 "unpin usage" $S unpin
fi

# --- CI recipe: exit codes -----------------------------------------------------
if tcase exit-codes; then
$S pin release 2 >/dev/null # as pins left it
expect 0 "pin baseline" $S pin baseline tag:baseline
expect 1 "CI fail" $S check pin:baseline tag:nightly~1 --max-regression 5
expect 0 "CI pass" $S check pin:baseline tag:nightly --max-regression 5
expect 0 "CI fail-on-new without new regions" $S check pin:release tag:nightly --fail-on-new
expect_error "negative budget" "invalid --max-regression '-5': must not be negative" \
	$S check pin:release tag:nightly --max-regression -5
expect_error "bad metric" "invalid --metric 'p90'" $S check 1 2 --metric p90
expect_error "bad sort" "invalid --sort 'size'" $S diff 1 2 --sort size
expect_error "bad threshold" "invalid --threshold 'x'" $S diff 1 2 --threshold x
expect_error "bad ranks" "invalid --ranks '3-1'" $S diff 1 2 --ranks 3-1
expect_error "bad pattern" "invalid --include pattern '\(': missing closing parenthesis at offset 1" \
	$S diff 1 2 --include '('
run $S check 1 2 --sort pct
equals "check has no --sort" "$rc" 2
contains "check --sort unknown" "$err" "unknown option '--sort'"
run $S diff 1
equals "one run" "$rc" 2
contains "one run message" "$err" "diff needs two runs"
contains "one run usage" "$err" "usage: scopedb diff A B"
expect 2 "three runs" $S diff 1 2 3
expect 0 "help check" $S help check
contains "help check exit codes" "$out" "Exit status: 0 PASS, 1 FAIL"
fi

# --- colour only on a terminal, never with NO_COLOR ------------------------------
if tcase colour; then
if script -qc true /dev/null >/dev/null 2>&1; then
	tty_out=$(NO_COLOR= TERM=xterm script -qc "$S diff 1 2" /dev/null)
	contains "colour on a terminal" "$tty_out" $'\033[31m'
	tty_out=$(NO_COLOR=1 TERM=xterm script -qc "$S diff 1 2" /dev/null)
	case "$tty_out" in *$'\033['*) bad "NO_COLOR still coloured" ;; *) ok ;; esac
fi
run env NO_COLOR= $S diff 1 2
case "$out" in *$'\033['*) bad "colour in a pipe" ;; *) ok ;; esac
fi

if tcase many-names; then
# the lines after the table name 20 regions at most, then how many more:
# the table and JSON have them all
regs=$(seq -f 'r%02g' 1 25 | paste -sd,)
"$MKPROFILE" --seed 1 --regions "$regs" many-a.h5 >/dev/null &&
	"$MKPROFILE" --seed 1 --regions "$regs" --scale 1.5 many-b.h5 >/dev/null || exit 1
expect 1 "25 violations" $S check many-a.h5 many-b.h5
got=$(printf '%s\n' "$out" | sed -n 's/^Budget violations: //p')
equals "20 distinct regions named, then 5 more" "$(printf '%s' "$got" | sed -n 's/ and 5 more$//p' |
	tr -d ' ' | tr ',' '\n' | grep -x 'r[0-2][0-9]' | sort -u | wc -l)" 20
equals "every row in the table" "$(printf '%s\n' "$out" | grep -c '^r[0-9][0-9] ')" 25
expect 1 "25 violations, markdown" $S check many-a.h5 many-b.h5 --format markdown
contains "markdown: and 5 more" "$out" " and 5 more"
expect 1 "25 violations, json" $S check many-a.h5 many-b.h5 --format json
equals "json: every name" "$(jq '.violations | length' <<<"$out")" 25
fi

finish
