#!/usr/bin/env bash
# End-to-end tests of issue 25: scope-profiler's JSON profiles (plain and
# gzip) wherever a profile file is accepted.  For every layout the fixture
# writer makes (schema 1, 2 and 3, aggregate, GPU column) mkprofile writes
# the HDF5 file and its JSON twins; show --format json of each twin is the
# HDF5 file's byte for byte but for the path (and, for schema 1, the layout:
# a JSON run is columnar or aggregate), and so are meta, diff and check.  A
# summary-only document reads as the aggregate layout.  The upstream
# fixtures' hand-written equivalents (tests/data/schema-N.json) read as
# tests/data/schema-N.h5.  Ingest stores a JSON file under the SHA-256 of
# its bytes; the format follows the content, not the name.
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?}" "${TESTDATA:?}"
S=$SCOPEDB
db=$E2E_DIR/j.sqlite

# norm FILE: show's JSON with the path masked (and the layout when $2)
norm() { sed -e 's/"path": "[^"]*"/"path": P/' ${2:+-e 's/"layout": "[a-z]*"/"layout": L/'} "$1"; }

# twin NAME LAYOUT_MASK MKPROFILE-ARGS...: the HDF5 file and its two JSON
# twins read the same through show (every metric), meta, diff and check
twin() {
	local name=$1 mask=$2 f
	shift 2
	$MKPROFILE "$@" "$name.h5" >/dev/null || bad "mkprofile $name.h5"
	$MKPROFILE "$@" "$name.json" >/dev/null || bad "mkprofile $name.json"
	$MKPROFILE "$@" "$name.json.gz" >/dev/null || bad "mkprofile $name.json.gz"
	run $S show --format json "$name.h5"
	equals "$name.h5 show" "$rc" 0
	printf '%s\n' "$out" >"$name.h5.show"
	run $S meta "$name.h5"
	printf '%s\n' "$out" >"$name.h5.meta"
	for f in "$name.json" "$name.json.gz"; do
		run $S show --format json "$f"
		equals "$f show" "$rc" 0
		printf '%s\n' "$out" >"$f.show"
		equals "$f: show as the HDF5 twin" "$(norm "$f.show" "$mask")" \
			"$(norm "$name.h5.show" "$mask")"
		run $S meta "$f"
		equals "$f: meta as the HDF5 twin" "$out" "$(<"$name.h5.meta")"
		run $S diff "$name.h5" "$f" --format json
		equals "$f diff exit" "$rc" 0
		contains "$f diff: no delta" "$(printf '%s' "$out" | jq -c '[.rows[].delta] | unique')" "[0]"
		run $S check "$name.h5" "$f" --metric max
		equals "$f check exit" "$rc" 0
	done
}

twin s1 layout --schema 1 --ranks 3 --calls 40
twin s2 "" --schema 2 --ranks 3 --calls 40 --gpu
twin s3 "" --schema 3 --ranks 4 --calls 40 --gpu --regions 'a,b c,größe_λ,"q"'
twin agg "" --schema 3 --aggregate --ranks 3 --calls 40

# a summary-only export reads as the aggregate layout (no per-call data)
$MKPROFILE --schema 3 --summary-only --ranks 3 --calls 40 summ.json >/dev/null ||
	bad "mkprofile summ.json"
run $S show --format json summ.json
equals "summary-only show" "$(printf '%s\n' "$out" | norm /dev/stdin)" "$(norm agg.h5.show)"
contains "summary-only layout" "$out" '"layout": "aggregate"'
contains "summary-only p95" "$out" '"p95": null'

# upstream's fixtures and their hand-written JSON equivalents
for n in 1 2 3; do
	run $S show --format json "$TESTDATA/schema-$n.h5"
	printf '%s\n' "$out" >up.show
	mask=
	[ $n = 1 ] && mask=layout
	for f in "$TESTDATA/schema-$n.json" "$TESTDATA/schema-3.json.gz"; do
		run $S show --format json "$f"
		equals "$f show exit" "$rc" 0
		printf '%s\n' "$out" >upj.show
		equals "$(basename "$f") as schema-$n.h5" "$(norm upj.show $mask)" "$(norm up.show $mask)"
	done
	run $S meta "$TESTDATA/schema-$n.json"
	contains "schema-$n.json meta" "$out" "mpi_size  1"
done
run $S show --format json "$TESTDATA/schema-1.json"
contains "upstream fixture: durations 5, 13, 15 ns" "$out" '"total": 3.3e-08, "avg": 1.1e-08, "min": 5e-09, "max": 1.5e-08'

# ingest: the run is stored under the SHA-256 of the file's bytes, layout
# columnar, and the same bytes again are a duplicate
for f in s3.json s3.json.gz; do
	expect 0 "ingest $f" $S ingest --db "$db" --commit abc1234 --quiet "$f"
	equals "$f hash" "$(sql "$db" "select sha256 from runs order by id desc limit 1")" \
		"$(sha256sum "$f" | cut -d' ' -f1)"
done
equals "layout of a JSON run" "$(sql "$db" "select distinct layout from runs")" columnar
run $S ingest --db "$db" --commit abc1234 s3.json
equals "ingest again exit" "$rc" 0
contains "ingest again: duplicate" "$out$err" "already stored"
equals "two runs" "$(sql "$db" "select count(*) from runs")" 2
run $S diff --db "$db" 1 2 --format json
equals "stored plain vs gzip: no delta" \
	"$(printf '%s' "$out" | jq -c '[.rows[] | select(.a != .b)] | length')" 0
run $S report --db "$db" 1 s3.json.gz -o report.html
equals "report of a stored run and a JSON file" "$rc" 0
[ -s report.html ] && ok || bad "report.html not written"

# the content decides, not the name: JSON named .dat, HDF5 named .json
cp s3.json profile.dat
run $S show profile.dat --format json
equals "JSON named .dat" "$(printf '%s\n' "$out" | norm /dev/stdin)" "$(norm s3.json.show)"
cp s3.h5 looks.json
run $S show looks.json
equals "HDF5 named .json: refused" "$rc" 2
contains "HDF5 named .json: message" "$err" "cannot read 'looks.json': not a JSON profile (it starts with neither '{' nor gzip data: it is an HDF5 file; name it *.h5)"
expect_error "missing .json" "cannot read 'missing.json': no such file" $S show missing.json
expect_error "missing .json.gz" "cannot read 'gone.json.gz': no such file" $S diff s3.h5 gone.json.gz

finish
