#!/usr/bin/env bash
# End-to-end tests of "scopedb ingest", "scopedb runs" and the global
# options, running the built binary against the upstream fixtures, files
# written by mkprofile, and a collection of bad inputs.
. "$(dirname "$0")/e2e-lib.sh"
: "${TESTDATA:?}" "${MKPROFILE:?}"
S=$SCOPEDB
db=$E2E_DIR/h.sqlite

# --- global options --------------------------------------------------------
if tcase global-options; then
expect 0 "--help" $S --help
contains "--help lists ingest" "$out" "ingest"
contains "--help lists runs" "$out" "runs"
expect 0 "--version" $S --version
contains "--version" "$out" "scopedb "
expect 0 "help ingest" $S help ingest
contains "help ingest usage" "$out" "usage: scopedb ingest FILE..."
expect 0 "ingest --help" $S ingest --help
contains "ingest --help usage" "$out" "--meta KEY=VALUE"
expect_error "unknown command" "'frobnicate' is not a scopedb command" $S frobnicate
run $S ingest --bogus x.h5
equals "unknown option exit" "$rc" 2
contains "unknown option named" "$err" "unknown option '--bogus'"
contains "unknown option usage" "$err" "usage: scopedb ingest"
expect 2 "no arguments" $S

fi

# --- the upstream fixtures ------------------------------------------------
if tcase setup-fixtures; then
expect 0 "ingest schema-1" $S ingest --db "$db" "$TESTDATA/schema-1.h5"
contains "schema-1 line" "$out" "run 1: $TESTDATA/schema-1.h5: 1 rank, 1 region, 3 calls"
expect 0 "ingest schema-2 and 3" $S ingest --db "$db" --tag golden --label up \
	--commit abc123 --branch main --meta host=login1 "$TESTDATA/schema-2.h5" "$TESTDATA/schema-3.h5"
contains "schema-2 line" "$out" "run 2: $TESTDATA/schema-2.h5"
contains "schema-3 line" "$out" "run 3: $TESTDATA/schema-3.h5"
equals "timings rows" "$(sql "$db" 'select count(*) from timings')" 3
equals "totals" "$(sql "$db" 'select group_concat(total_ns) from timings')" "33,33,33"
equals "min max" "$(sql "$db" 'select min(min_ns), max(max_ns) from timings')" "5|15"
equals "schema versions" "$(sql "$db" 'select group_concat(schema_version) from (select schema_version from runs order by id)')" "1,2,3"
equals "tags" "$(sql "$db" "select count(*) from run_tags where tag='golden'")" 2
equals "meta override" "$(sql "$db" "select value from run_metadata where run_id=2 and key='host'")" login1
equals "file meta" "$(sql "$db" "select value from run_metadata where run_id=3 and key='mpi_size'")" 1
equals "label commit branch" "$(sql "$db" 'select label, commit_sha, branch from runs where id=3')" "up|abc123|main"
equals "source" "$(sql "$db" 'select source_file, source_line, tags from timings where run_id=1')" 'solver.py|7|["golden"]'

fi

# --- runs ------------------------------------------------------------------
if tcase runs; then
expect 0 "runs" $S runs --db "$db"
equals "runs rows" "$(printf '%s\n' "$out" | wc -l)" 4
contains "runs header" "$out" "id"
contains "runs tag" "$out" "golden"
expect 0 "runs json" $S runs --db "$db" --format json
contains "runs json id" "$out" '"id": 3'
contains "runs json tags" "$out" '"tags": ["golden"]'
expect_error "runs bad format" "invalid --format 'xml'" $S runs --db "$db" --format xml
SCOPEDB_DB=$db expect 0 "SCOPEDB_DB" $S runs
contains "SCOPEDB_DB lists" "$out" "schema-1.h5"

fi

# --- duplicates ------------------------------------------------------------
if tcase duplicates; then
cp "$TESTDATA/schema-1.h5" copy.h5
expect 0 "duplicate" $S ingest --db "$db" --tag again copy.h5
contains "duplicate message" "$out" "copy.h5: already stored as run 1"
equals "no new run" "$(sql "$db" 'select count(*) from runs')" 3
equals "tag added to duplicate" "$(sql "$db" "select run_id from run_tags where tag='again'")" 1
expect 0 "json output" $S ingest --db "$db" --format json copy.h5
contains "json duplicate" "$out" '"status": "duplicate"'
contains "json run" "$out" '"run": 1'

fi

# --- CI variables ------------------------------------------------------------
if tcase ci-variables; then
"$MKPROFILE" --ranks 2 --regions a,b --calls 10 --seed 5 ci.h5 >/dev/null
GITHUB_SHA=deadbeef GITHUB_REF_NAME=feature expect 0 "github env" $S ingest --db "$db" ci.h5
equals "github commit" "$(sql "$db" "select commit_sha || ' ' || branch from runs where source_path='ci.h5'")" "deadbeef feature"
"$MKPROFILE" --ranks 2 --regions a --calls 10 --seed 6 ci2.h5 >/dev/null
CI_COMMIT_SHA=cafe CI_COMMIT_REF_NAME=dev expect 0 "gitlab env" $S ingest --db "$db" --branch override ci2.h5
equals "gitlab commit" "$(sql "$db" "select commit_sha || ' ' || branch from runs where source_path='ci2.h5'")" "cafe override"

fi

# --- bad input: each exits 2 with one line naming the file; store unchanged ---
if tcase bad-input; then
[ -f ci.h5 ] || "$MKPROFILE" --ranks 2 --regions a,b --calls 10 --seed 5 ci.h5 >/dev/null
before=$(sql "$db" 'select count(*) from runs; select count(*) from timings; select count(*) from run_tags; select count(*) from run_metadata; select count(*) from regions')
mkdir adir
: >empty.h5
printf 'this is not an HDF5 file, only some bytes\n' >text.h5
head -c 3000 "$TESTDATA/schema-3.h5" >trunc1.h5
head -c 800 "$TESTDATA/schema-3.h5" >trunc2.h5
head -c 12000 "$TESTDATA/schema-3.h5" >trunc3.h5
expect_error "missing file" "'missing.h5'" $S ingest --db "$db" missing.h5
expect_error "directory" "'adir'" $S ingest --db "$db" adir
expect_error "empty file" "'empty.h5'" $S ingest --db "$db" empty.h5
expect_error "not hdf5" "'text.h5'.*not an HDF5 file" $S ingest --db "$db" text.h5
for f in trunc1.h5 trunc2.h5 trunc3.h5; do
	expect_error "truncated $f" "'$f'" $S ingest --db "$db" $f
done
expect_error "meta without =" "invalid --meta 'oops'" $S ingest --db "$db" --meta oops ci.h5
expect_error "meta empty key" "invalid --meta '=v'" $S ingest --db "$db" --meta =v ci.h5
# a --meta label is the run's label: a name as --label is, refused before
# any file is read or store made
long=$(printf 'x%.0s' $(seq 2100))
expect_error "meta label too long" "invalid --meta 'label=xxxxx" $S ingest --db nolabel.sqlite \
	--meta "label=$long" ci.h5
[ ! -e nolabel.sqlite ] && ok || bad "meta label too long: a store was made"
# and a --meta timestamp the run's recorded time: a time, or refused
expect_error "meta timestamp no time" \
	"invalid --meta 'timestamp=yesterday': not an ISO-8601 time" \
	$S ingest --db nolabel.sqlite --meta timestamp=yesterday ci.h5
[ ! -e nolabel.sqlite ] && ok || bad "meta timestamp no time: a store was made"
# an empty tag: 'tag' and the tag: selector refuse it, so nothing could remove it
expect_error "empty tag" "^scopedb: invalid --tag '': empty tag" $S ingest --db "$db" --tag ok --tag '' ci.h5
# every row valid, their sum over the ranks past 2^63 ns: named, nothing kept
printf '%s\n' '{"format": "scope-profiler-profile", "regions": [' \
	'{"name": "huge", "rank": 0, "start_times_ns": [0], "end_times_ns": [5000000000000000000]},' \
	'{"name": "huge", "rank": 1, "start_times_ns": [0], "end_times_ns": [5000000000000000000]}]}' >huge.json
expect_error "totals past 2^63 ns" \
	"^scopedb: cannot store 'huge.json': a region's times summed over its ranks pass 2\^63 ns \(292 years\), more than a store keeps: region 'huge'$" \
	$S ingest --db "$db" huge.json
after=$(sql "$db" 'select count(*) from runs; select count(*) from timings; select count(*) from run_tags; select count(*) from run_metadata; select count(*) from regions')
equals "store unchanged after bad input" "$after" "$before"
equals "integrity" "$(sql "$db" 'pragma integrity_check')" ok

# A bad file among good ones: the good ones are stored, exit 2.
"$MKPROFILE" --ranks 1 --regions x --calls 3 --seed 9 good.h5 >/dev/null
run $S ingest --db "$db" text.h5 good.h5
equals "mixed exit" "$rc" 2
contains "mixed good stored" "$out" "good.h5"
contains "mixed error" "$err" "text.h5"
run $S ingest --db "$db" --format json text.h5 missing.h5
contains "json error status" "$out" '"status": "error"'
contains "json error message" "$out" '"error": "cannot'

fi

# --- the store itself ------------------------------------------------------
# --- a metadata timestamp that is no time: stored, with a warning -----------
if tcase timestamp; then
"$MKPROFILE" --ranks 1 --regions a --calls 5 --seed 9 --timestamp 2024-02-30T00:00:00Z \
	feb30.h5 >/dev/null || exit 1
expect_err 0 "a timestamp that is no date" \
	"scopedb: warning: 'feb30.h5': its metadata timestamp '2024-02-30T00:00:00Z' is not a valid ISO-8601 time, so the run counts as recorded when it was ingested" \
	$S ingest -q --db ts.sqlite --commit abc1234 feb30.h5
equals "recorded when ingested" "$(sql ts.sqlite 'select recorded_at is null, sort_time = ingested_at from runs')" "1|1"
# the value is the file's: escaped as every message is (no CI command, no
# terminal control)
"$MKPROFILE" --ranks 1 --regions a --calls 5 --seed 10 --timestamp $'##[error]x \xc2\x9b' \
	badts.h5 >/dev/null || exit 1
expect_err 0 "a hostile timestamp, escaped" \
	"scopedb: warning: 'badts.h5': its metadata timestamp '##"$'\xe2\x81\xa0'"[error]x \\xc2\\x9b' is not a valid ISO-8601 time, so the run counts as recorded when it was ingested" \
	$S ingest -q --db ts.sqlite --commit abc1234 badts.h5
# --meta timestamp and label override the file's, for the run's recorded
# time and label too (what runs shows, as meta does); --label before both
"$MKPROFILE" --ranks 1 --regions a --calls 5 --seed 11 over.h5 >/dev/null || exit 1
expect 0 "--meta timestamp and label" $S ingest -q --db ts.sqlite --commit abc1234 \
	--meta label=zzz --meta timestamp=2020-01-01T00:00:00Z over.h5
equals "their run" "$(sql ts.sqlite "select label, recorded_at from runs where source_path = 'over.h5'")" \
	"zzz|2020-01-01T00:00:00Z"
"$MKPROFILE" --ranks 1 --regions a --calls 5 --seed 12 over2.h5 >/dev/null || exit 1
expect 0 "--label before --meta label" $S ingest -q --db ts.sqlite --commit abc1234 \
	--label given --meta label=zzz over2.h5
equals "--label's run" "$(sql ts.sqlite "select label from runs where source_path = 'over2.h5'")" "given"
fi

if tcase store; then
[ -f ci.h5 ] || "$MKPROFILE" --ranks 2 --regions a,b --calls 10 --seed 5 ci.h5 >/dev/null
[ -f good.h5 ] || "$MKPROFILE" --ranks 1 --regions x --calls 3 --seed 9 good.h5 >/dev/null
echo not a directory >plainfile
expect_error "unwritable store" "'plainfile/dir/s.sqlite'" $S ingest --db plainfile/dir/s.sqlite ci.h5
cp "$db" newer.sqlite
sqlite3 newer.sqlite 'pragma user_version=99'
expect_error "newer store" "'newer.sqlite'.*newer" $S ingest --db newer.sqlite good.h5
expect_error "newer store runs" "'newer.sqlite'.*newer" $S runs --db newer.sqlite
printf 'not a database at all, just text padding padding padding padding padding padding padding padding padding padding padding padding\n' >foreign.sqlite
expect_error "not a store" "'foreign.sqlite'" $S ingest --db foreign.sqlite good.h5
sqlite3 other.sqlite 'create table t(x); pragma application_id=42'
expect_error "foreign sqlite db" "'other.sqlite'.*not a scopedb" $S ingest --db other.sqlite good.h5
equals "default db absent" "$(ls scopedb.sqlite 2>/dev/null)" ""
expect 0 "default db" $S ingest good.h5
equals "default db created" "$(ls scopedb.sqlite)" scopedb.sqlite

fi

finish
