#!/usr/bin/env bash
# e2e_store_damage.sh - a damaged or hostile SQLite store is harmless.
#
# A store file can come from anyone (pull --from a colleague's file or a
# CI artifact, --db downloaded.sqlite).  Every case below is a copy of a
# small store edited with the sqlite3 shell (CHECK constraints off, as a
# hostile editor would have them): each read command exits 2 with exactly
# the one line that names the store and what is wrong, or works on what
# is intact; nothing is written to a pull source; no view or trigger of
# the file runs; names and metadata are escaped in every output.  Last, a
# fixed-seed campaign flips bytes of the store (100 files; 30 under the
# sanitizers) and runs the read commands and a pull on each: every one
# ends with exit 2 and one "scopedb: " line, or exit 0 (1 for a failed
# check), no diagnostic and the intact store's output; never a signal, a
# hang or another number.  Nothing here is skipped.
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?set MKPROFILE to the mkprofile binary}"
S=$SCOPEDB

mk() { "$MKPROFILE" "$@" >/dev/null || exit 1; }
mk --ranks 2 --regions main,solve,io --calls 20 --seed 1 a.h5
mk --ranks 2 --regions main,solve,io --calls 20 --seed 2 --slow solve=2 \
	--timestamp 2024-01-02T00:00:00Z b.h5
expect 0 "ingest" $S ingest --db base.sqlite --commit abc1234 a.h5 b.h5
expect 0 "vacuum" $S vacuum --db base.sqlite

# tamper NAME SQL: x.sqlite = base.sqlite edited by SQL (constraints off)
tamper() {
	rm -f x.sqlite x.sqlite-wal x.sqlite-shm y.sqlite*
	cp base.sqlite x.sqlite
	sqlite3 x.sqlite "PRAGMA ignore_check_constraints = 1; PRAGMA foreign_keys = 0; $2" ||
		bad "tamper $1: sqlite3 failed"
}

# refused DESC MESSAGE CMD...: each command CMD (with --db x.sqlite) exits 2
# with exactly MESSAGE
READS=("runs" "show 1" "diff 1 2" "diff 1 2 --metric p95" "check 1 2"
	"check 1 2 --stat --metric p95" "history main" "changes" "report 1 2 -o r.html"
	"meta 1" "meta 1 2" "prune --dry-run --keep-last 1")
refused() {
	local desc=$1 msg=$2 cmd
	shift 2
	for cmd in "$@"; do
		# shellcheck disable=SC2086
		expect_err 2 "$desc: $cmd" "$msg" $S $cmd --db x.sqlite
	done
}

# pull_refused DESC MESSAGE: pull --from x.sqlite exits 2 with MESSAGE and
# leaves no store y.sqlite behind (nor its -wal, -shm), nor z.sqlite of a
# push --to from x.sqlite when the message is about the runs' rows
pull_refused() {
	rm -f y.sqlite* z.sqlite*
	expect_err 2 "$1: pull --from" "$2" $S pull --from x.sqlite --db y.sqlite
	if ls y.sqlite* >/dev/null 2>&1; then
		bad "$1: pull left $(ls y.sqlite*) behind"
	else
		ok
	fi
	case $2 in
	*"cannot open"* | *"malformed"*) return ;;
	esac
	expect_err 2 "$1: push --to" "$2" $S push --db x.sqlite --to z.sqlite
	if ls z.sqlite* >/dev/null 2>&1; then
		bad "$1: push left $(ls z.sqlite*) behind"
	else
		ok
	fi
}

# run_skipped DESC RUN MESSAGE [nopath]: one damaged run never blocks the
# other (issue 24): pull --from x.sqlite into a new y.sqlite, and push --to
# a new z.sqlite, each copy the intact run, say "scopedb: run RUN (FILE)
# not copied: " + MESSAGE (without its "scopedb: ") on stderr, and exit 2;
# with nopath "run RUN not copied" (the run's own row is what is damaged)
run_skipped() {
	local desc=$1 id=$2 why=${3#scopedb: } file=a.h5 other=b.h5 dir who
	[ "$id" = 2 ] && file=b.h5 other=a.h5
	who="run $id ($file)"
	[ "${4:-}" = nopath ] && who="run $id"
	for dir in pull push; do
		rm -f y.sqlite* z.sqlite*
		if [ $dir = pull ]; then
			run $S pull --from x.sqlite --db y.sqlite
			into=y.sqlite
		else
			run $S push --db x.sqlite --to z.sqlite
			into=z.sqlite
		fi
		equals "$desc: $dir" "$rc:$err" "2:scopedb: $who not copied: $why"
		if [ $dir = pull ]; then
			contains "$desc: $dir: totals" "$out" \
				"pulled 2 runs from 'x.sqlite': 1 copied, 0 already there, 1 not copied"
		else
			contains "$desc: $dir: totals" "$out" \
				"pushed 2 runs to 'z.sqlite': 1 copied, 0 already there, 1 not copied"
		fi
		equals "$desc: $dir: the other run" "$(sqlite3 $into 'SELECT source_path FROM runs')" \
			"$other"
	done
}

# --- the file itself -------------------------------------------------------------
if tcase the-file; then
printf 'not a database at all\n' >x.sqlite
refused "not SQLite" "scopedb: cannot open store 'x.sqlite': not a scopedb database" "${READS[@]}"
pull_refused "not SQLite" "scopedb: cannot open store 'x.sqlite': not a scopedb database"
head -c 20000 base.sqlite >x.sqlite
refused "truncated" \
	"scopedb: store 'x.sqlite' is damaged: database disk image is malformed" "${READS[@]}"
pull_refused "truncated" "scopedb: store 'x.sqlite' is damaged: database disk image is malformed"
rm -f x.sqlite
sqlite3 x.sqlite 'CREATE TABLE notes (x); INSERT INTO notes VALUES (1)'
refused "another application's" "scopedb: cannot open store 'x.sqlite': not a scopedb database" \
	runs "show 1" "diff 1 2"

fi

if tcase schema-versions; then
# --- schema versions ---------------------------------------------------------------
tamper newer "PRAGMA user_version = 5"
refused "newer schema" \
	"scopedb: cannot open store 'x.sqlite': written by a newer scopedb (schema version 5; this scopedb supports up to 4)" \
	"${READS[@]}" "rm 2" "tag 1 x"
pull_refused "newer schema" \
	"scopedb: cannot open store 'x.sqlite': written by a newer scopedb (schema version 5; this scopedb supports up to 4)"
equals "newer schema: not written" "$(sqlite3 x.sqlite 'PRAGMA user_version')" 5

# an older store (schema 1: no run_regions, no call trees) from someone
# else: pull never upgrades (or otherwise writes) its source, --db
# upgrades the user's own
old1="DROP TABLE run_regions; DROP TABLE run_nesting; DROP TABLE paths; DROP TABLE path_ranks;
	CREATE INDEX timings_summary ON timings (run_id, region_id, rank,
	has_events, calls, total_ns, min_ns, max_ns, gpu_count, gpu_total_ns);
	PRAGMA user_version = 1"
tamper older "$old1"
sum=$(sha256sum x.sqlite)
expect_err 2 "older source of pull" \
	"scopedb: cannot open store 'x.sqlite': schema version 1 must be upgraded to 4; open it for writing once" \
	$S pull --from x.sqlite --db y.sqlite
equals "older source: not written" "$(sha256sum x.sqlite)" "$sum"
[ -e x.sqlite-wal ] && [ -s x.sqlite-wal ] && bad "older source: a WAL was written" || ok
expect 0 "older --db store upgrades" $S diff 1 2 --db x.sqlite
equals "older --db store upgraded" "$(sqlite3 x.sqlite 'PRAGMA user_version')" 4
expect 0 "and then pulls" $S pull --from x.sqlite --db y.sqlite

fi

if tcase schema-parts; then
# --- the schema: missing parts, views and triggers -----------------------------------
# (a command that needs the missing part refuses; the rest work on what
# is intact: pull recomputes the all-ranks totals, run_regions, anyway)
tamper no-table "DROP TABLE run_regions"
refused "missing table" "scopedb: store 'x.sqlite' is damaged: no such table: run_regions" \
	"show 1" "diff 1 2" "check 1 2" "check 1 2 --stat --metric p95" "history main" "changes" \
	"report 1 2 -o r.html"
expect 0 "missing table: runs" $S runs --db x.sqlite
expect 0 "missing table: pull" $S pull --from x.sqlite --db y.sqlite
tamper no-column "ALTER TABLE run_metadata RENAME COLUMN value TO v"
refused "missing column" "scopedb: store 'x.sqlite' is damaged: no such column: value" \
	"diff 1 2" "check 1 2" "meta 1" "meta 1 2" "report 1 2 -o r.html"
# (every run's metadata is unreadable: nothing to copy, nothing created)
pull_refused "missing column" \
	"scopedb: run 1 (a.h5) not copied: store 'x.sqlite' is damaged: no such column: value"
# a view in place of a table would put the file's SQL in our queries
tamper view "ALTER TABLE pins RENAME TO pins_real;
	CREATE VIEW pins AS SELECT name, run_id, pinned_at FROM pins_real"
refused "view" \
	"scopedb: store 'x.sqlite' has a view named 'pins' among its tables, which scopedb never creates; refused (remove it, or use a store without one)" \
	"${READS[@]}" "rm 2" "pin base 1"
pull_refused "view" \
	"scopedb: store 'x.sqlite' has a view named 'pins' among its tables, which scopedb never creates; refused (remove it, or use a store without one)"
# a trigger would run the file's SQL on our writes
tamper trigger "CREATE TABLE log (x);
	CREATE TRIGGER spy AFTER DELETE ON runs BEGIN INSERT INTO log VALUES (old.id); END"
refused "trigger" \
	"scopedb: store 'x.sqlite' has a trigger named 'spy' on its tables, which scopedb never creates; refused (remove it, or use a store without one)" \
	"${READS[@]}" "rm 2"
pull_refused "trigger" \
	"scopedb: store 'x.sqlite' has a trigger named 'spy' on its tables, which scopedb never creates; refused (remove it, or use a store without one)"
equals "trigger: never ran" "$(sqlite3 x.sqlite 'SELECT count(*) FROM log')" 0
equals "trigger: nothing removed" "$(sqlite3 x.sqlite 'SELECT count(*) FROM runs')" 2
# ... and refused before anything writes to the file: an older store
# with a trigger is neither upgraded nor switched to WAL, read or written
tamper old-trigger "$old1; CREATE TABLE log (x);
	CREATE TRIGGER spy AFTER DELETE ON runs BEGIN INSERT INTO log VALUES (old.id); END"
sum=$(sha256sum x.sqlite)
refused "older store with a trigger" \
	"scopedb: store 'x.sqlite' has a trigger named 'spy' on its tables, which scopedb never creates; refused (remove it, or use a store without one)" \
	runs "diff 1 2" "tag 1 x" "rm 2"
equals "older store with a trigger: not written" "$(sha256sum x.sqlite)" "$sum"
equals "older store with a trigger: not upgraded" "$(sqlite3 x.sqlite 'PRAGMA user_version')" 1

fi

# --- rows violating the invariants ----------------------------------------------------
# The all-ranks totals (run_regions) are what the read commands use; push
# and pull copy the per-rank rows and compute the totals anew, so damaged
# totals do not travel (the copies below are refused for their rows).
D="scopedb: store 'x.sqlite' is damaged:"
STATS=("show 1" "diff 1 2" "diff 1 2 --metric p95" "check 1 2" "check 1 2 --stat --metric p95"
	"history main" "changes" "report 1 2 -o r.html")
if tcase invariants; then
tamper neg-calls "UPDATE run_regions SET calls = -5 WHERE run_id = 1 AND region_id = 1"
refused "negative calls" "$D region 'main' of run 1 has -5 calls (0 on a GPU)" "${STATS[@]}"
tamper huge-calls "UPDATE run_regions SET calls = 9223372036854775807 WHERE run_id = 1 AND region_id = 1"
refused "huge calls" \
	"$D region 'main' of run 1 has 9223372036854775807 calls of 27592..124996 ns totalling 2147264 ns" \
	"${STATS[@]}"
tamper min-max "UPDATE run_regions SET min_ns = max_ns + 1 WHERE run_id = 1 AND region_id = 1"
refused "min > max" \
	"$D region 'main' of run 1 has 40 calls of 124997..124996 ns totalling 2147264 ns" \
	"${STATS[@]}"
tamper neg-time "UPDATE run_regions SET total_ns = -1 WHERE run_id = 2 AND region_id = 2"
refused "negative total" "$D region 'solve' of run 2 has a negative time" "show 2" "diff 1 2" \
	"check 1 2" "history solve" "changes" "report 1 2 -o r.html"
tamper p95-out "UPDATE run_regions SET p95_ns = max_ns * 2 WHERE run_id = 1 AND region_id = 1"
refused "p95 above max" \
	"$D region 'main' of run 1 has percentiles outside its 27592..124996 ns or out of order" \
	"show 1" "diff 1 2 --metric p95" "history main --metric p95"
tamper p-order "UPDATE run_regions SET p50_ns = p99_ns + 1 WHERE run_id = 1 AND region_id = 1"
refused "p50 > p99" \
	"$D region 'main' of run 1 has percentiles outside its 27592..124996 ns or out of order" \
	"show 1" "diff 1 2 --metric p50"
# SQLite keeps no NaN (it reads back as NULL, so percentiles "absent"); an
# infinity it keeps
tamper inf "UPDATE run_regions SET p99_ns = 1e999 WHERE run_id = 1 AND region_id = 2"
refused "infinite p99" \
	"$D region 'solve' of run 1 has percentiles outside its 40398..161333 ns or out of order" \
	"show 1" "diff 1 2 --metric p99" "changes --metric p99"
tamper busy "UPDATE run_regions SET busy_ranks = 9 WHERE run_id = 2 AND region_id = 1"
refused "busy ranks" \
	"$D region 'main' of run 2 has 2 ranks of which 9 busy, the busiest for 1094279 ns" \
	"show 2" "diff 1 2 --metric imbalance"
tamper ranks "UPDATE runs SET num_ranks = 1099511627776 WHERE id = 1"
refused "huge rank count" "$D run 1 has 1099511627776 ranks" runs "show 1" "diff 1 2" "check 1 2" \
	"report 1 2 -o r.html" "prune --dry-run --keep-last 1"
run_skipped "huge rank count" 1 "$D run 1 has 1099511627776 ranks" nopath
tamper layout "UPDATE runs SET layout = 'Myst' || char(1) || 'ery' WHERE id = 2"
refused "unknown layout" "$D run 2 has an unknown layout" runs "show 2" "diff 1 2"
run_skipped "unknown layout" 2 "$D run 2 has an unknown layout" nopath
# a text or a blob where a number belongs (SQLite keeps either in any
# column, and 'abc' >= 0 passes a CHECK): refused, not read as 0
tamper text-number "UPDATE run_regions SET calls = 'abc' WHERE run_id = 1 AND region_id = 1"
refused "text in a number column" "$D column calls holds a text value where a number belongs" \
	"show 1" "diff 1 2" "check 1 2" "history main"
tamper blob-number "UPDATE runs SET num_ranks = X'02' WHERE id = 2"
refused "blob in a number column" "$D column num_ranks holds a blob value where a number belongs" \
	runs "show 2"
# a run of a newer scopedb (a shared store): not called damaged
NEWER="scopedb: store 'x.sqlite' has run 2 written by a newer scopedb"
tamper newer-layout "UPDATE runs SET layout = 'mystery' WHERE id = 2"
refused "newer layout" \
	"$NEWER (layout 'mystery'; this scopedb reads hierarchical, columnar and aggregate); upgrade scopedb" \
	runs "show 2" "diff 1 2"
tamper newer-profile "UPDATE runs SET schema_version = 4 WHERE id = 2"
refused "newer profile schema" \
	"$NEWER (profile schema 4; this scopedb reads up to 3); upgrade scopedb" runs "show 2" "diff 1 2"
run_skipped "newer profile schema" 2 \
	"$NEWER (profile schema 4; this scopedb reads up to 3); upgrade scopedb" nopath
# rows of ranks the run does not have: the report's per-rank picture and
# a copy refuse them (--ranks selections simply never see them)
tamper rank-range "UPDATE timings SET rank = 100000000 WHERE id = 1"
refused "rank >= mpi_size" "$D region 'main' of run 1 has rank 100000000 of 2" \
	"report 1 2 -o r.html"
run_skipped "rank >= mpi_size" 1 "$D region 'main' of run 1 has rank 100000000 of 2"
# per-rank rows (--ranks, and what push/pull copy)
tamper rank-calls "UPDATE timings SET calls = -5 WHERE run_id = 1 AND region_id = 1"
refused "per-rank calls" "$D region 'main' of run 1 has -10 calls (0 on a GPU)" \
	"show 1 --ranks 0-1" "diff 1 2 --ranks 0-1" "check 1 2 --ranks 0-1"
run_skipped "per-rank calls" 1 "$D region 'main' of run 1 rank 0 has -5 calls (0 on a GPU)"
# the runs before and after a damaged one are copied; a store that was
# there stays
tamper run2-calls "UPDATE timings SET calls = -5 WHERE run_id = 2 AND region_id = 1"
rm -f y.sqlite*
run $S pull --from x.sqlite --db y.sqlite
equals "copied around the error: pull" "$rc:$out:$err" "2:copied run 1 (a.h5) as run 1
pulled 2 runs from 'x.sqlite': 1 copied, 0 already there, 1 not copied:scopedb: run 2 (b.h5) not copied: ${D#scopedb: } region 'main' of run 2 rank 0 has -5 calls (0 on a GPU)"
equals "copied around the error: kept" "$(sqlite3 y.sqlite 'SELECT id FROM runs')" 1
rm -f z.sqlite*
expect 0 "an existing empty store" $S pull --from base.sqlite --db z.sqlite 1
expect 0 "an existing empty store: rm" $S rm 1 --db z.sqlite
expect_err 2 "an existing empty store: pull" \
	"scopedb: run 2 (b.h5) not copied: ${D#scopedb: } region 'main' of run 2 rank 0 has -5 calls (0 on a GPU)" \
	$S pull --from x.sqlite --db z.sqlite 2
if [ -f z.sqlite ]; then ok; else bad "an existing empty store: removed"; fi

fi

if tcase blobs; then
# --- duration blobs -----------------------------------------------------------------
P95=("show 1" "diff 1 2 --ranks 0-1 --metric p95" "check 1 2 --ranks 0 --metric p99")
tamper blob-cut "UPDATE timings_durations SET data = substr(data, 1, 5) WHERE timing_id = 1"
refused "truncated blob" "$D call durations of run 1 do not decode" "${P95[@]}"
run_skipped "truncated blob" 1 "$D call durations of run 1 do not decode (region 'main' rank 0)"
tamper blob-2p40 "UPDATE timings_durations SET data = x'0180808080808020' WHERE timing_id = 1"
refused "a blob claiming 2^40 values" "$D call durations of run 1 do not decode" "${P95[@]}"
run_skipped "a blob claiming 2^40 values" 1 \
	"$D call durations of run 1 do not decode (region 'main' rank 0)"
tamper blob-text "UPDATE timings_durations SET data = 'hello' WHERE timing_id = 1"
refused "text for a blob" "$D call durations of run 1 do not decode" "${P95[@]}"
run_skipped "text for a blob" 1 "$D call durations of run 1 do not decode (region 'main' rank 0)"
# a valid blob of other values: the copy checks it against its row
tamper blob-other "UPDATE timings_durations SET data = (SELECT data FROM timings_durations
	WHERE timing_id = 2) WHERE timing_id = 1"
run_skipped "blob of another row" 1 \
	"$D the call durations of region 'main' of run 1 rank 0 do not match its calls, minimum, maximum and total"
tamper blob-gone "DELETE FROM timings_durations WHERE timing_id = 1"
run_skipped "missing blob" 1 "$D region 'main' of run 1 rank 0 has 20 calls but no call durations"
# the reads that need the durations count them against the region's calls
refused "missing blob" "$D region 'main' of run 1 has 20 calls but 0 stored durations" \
	"show 1 --ranks 0" "check 1 2 --ranks 0 --metric p99" "history main --ranks 0 --metric p95"
refused "missing blob" "$D region 'main' of run 1 has 40 calls but 20 stored durations" \
	"show 1" "diff 1 2 --ranks 0-1 --metric p95"
tamper no-percentiles "UPDATE run_regions SET p50_ns = NULL, p95_ns = NULL, p99_ns = NULL
	WHERE run_id = 1 AND region_id = 1"
refused "missing percentiles" "$D region 'main' of run 1 has 40 calls but 0 stored durations" \
	"history main --metric p95" "changes --metric p95" "report 1 2 -o r.html --metric p95"

fi

if tcase paths; then
# the call tree's rows: a path gone, or its totals NULL, is damage, not a
# smaller tree or a path of 0 s
tamper paths-gone "DELETE FROM paths WHERE run_id = 1 AND path_id = 2"
refused "a path gone" "$D run 1 has 2 paths where its nesting row counts 3" \
	"show 1 --by path" "diff 1 2 --by path" "history main --by path"
tamper paths-all-gone "DELETE FROM paths WHERE run_id = 1"
refused "every path gone" "$D run 1 has 0 paths where its nesting row counts 3" \
	"show 1 --by path" "show 1 --by path --ranks 0"
tamper path-rows-gone "DELETE FROM path_ranks WHERE run_id = 1 AND rank = 1"
refused "a rank's path rows gone" "$D run 1 has 3 (path, rank) rows where its nesting row counts 6" \
	"show 1 --by path --ranks 0" "diff 1 2 --by path --ranks 0-1"
tamper path-total-null "UPDATE paths SET total_ns = NULL WHERE run_id = 1 AND path_id = 0"
refused "a path's total NULL" "$D path 0 of run 1 has totals missing (NULL) for its 2 ranks" \
	"show 1 --by path" "diff 1 2 --by path"
tamper path-calls-null "UPDATE paths SET calls = NULL WHERE run_id = 2 AND path_id = 1"
refused "a path's calls NULL" "$D path 1 of run 2 has totals missing (NULL) for its 2 ranks" \
	"show 2 --by path" "history solve --by path"
fi

if tcase references; then
# --- references to nothing ------------------------------------------------------------
tamper orphans "INSERT INTO pins VALUES ('ghost', 97, '2024-01-01T00:00:00Z');
	INSERT INTO run_tags VALUES (98, 'ghost')"
expect_err 2 "pin to a missing run" "scopedb: no run 97 in store 'x.sqlite'" \
	$S show pin:ghost --db x.sqlite
expect_err 2 "pins listing a missing run" "scopedb: no run 97 in store 'x.sqlite'" \
	$S pins --db x.sqlite
expect 0 "a tag of a missing run lists nothing" $S runs --tag ghost --db x.sqlite
expect 0 "the intact runs still diff" $S diff 1 2 --db x.sqlite

# a duplicate content hash (the UNIQUE constraint gone with a rebuilt
# table): the copy keeps one run per hash and says which it skipped
tamper dup-sha "PRAGMA legacy_alter_table = ON; ALTER TABLE runs RENAME TO runs_old;
	CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, sha256 TEXT NOT NULL,
		source_path TEXT NOT NULL, ingested_at TEXT NOT NULL, recorded_at TEXT,
		sort_time TEXT GENERATED ALWAYS AS (coalesce(recorded_at, ingested_at)) STORED NOT NULL,
		label TEXT, commit_sha TEXT, branch TEXT, schema_version INTEGER NOT NULL,
		layout TEXT NOT NULL, num_ranks INTEGER NOT NULL,
		num_regions INTEGER NOT NULL DEFAULT 0, num_calls INTEGER NOT NULL DEFAULT 0);
	INSERT INTO runs (id, sha256, source_path, ingested_at, recorded_at, label, commit_sha,
		branch, schema_version, layout, num_ranks, num_regions, num_calls)
		SELECT id, sha256, source_path, ingested_at, recorded_at, label, commit_sha, branch,
		schema_version, layout, num_ranks, num_regions, num_calls FROM runs_old;
	DROP TABLE runs_old; UPDATE runs SET sha256 = (SELECT sha256 FROM runs WHERE id = 1) WHERE id = 2"
run $S pull --from x.sqlite --db y.sqlite
equals "duplicate hash: pull" "$rc:$out" "0:copied run 1 (a.h5) as run 1
skipped run 2 (b.h5): already stored as run 1
pulled 2 runs from 'x.sqlite': 1 copied, 1 already there"

fi

if tcase names; then
# --- names and metadata: escaped everywhere --------------------------------------------
tamper names "UPDATE regions SET name = char(27) || '[31mRED' || char(10) ||
		'<script>alert(1)</script>' WHERE id = 1;
	UPDATE regions SET name = replace(hex(zeroblob(500000)), '0', 'n') WHERE id = 2;
	UPDATE regions SET name = 'c1' || char(155) || '31m' || cast(x'ff' AS text) WHERE id = 3;
	UPDATE run_metadata SET value = 'a' || char(10) || char(27) || '[2Jb\"<b>'
		WHERE key = 'platform';
	UPDATE runs SET label = '<img src=x onerror=alert(1)>' WHERE id = 1;
	INSERT INTO run_tags VALUES (1, '<svg onload=alert(2)>')"
for cmd in "runs" "show 1" "show 1 --format csv" "show 1 --format markdown" "diff 1 2" \
	"meta 1" "meta 1 2 --all" "history --match ." "changes"; do
	# shellcheck disable=SC2086
	run $S $cmd --db x.sqlite
	equals "names: $cmd exit" "$rc" 0
	# ESC, and CSI as one character (U+009B, which terminals also obey)
	case "$out$err" in
	*$'\e'* | *$'\xc2\x9b'*) bad "names: $cmd: an escape sequence reached the output" ;;
	*) ok ;;
	esac
done
run $S meta 1 --db x.sqlite --format json
contains "metadata in JSON" "$out" '"platform": "a\n\u001b[2Jb\"<b>"'
# JSON is UTF-8 (U+FFFD for the byte that is not), so strict parsers read it
for cmd in "show 1" "diff 1 2" "runs" "history --match ." "changes"; do
	# shellcheck disable=SC2086
	$S $cmd --db x.sqlite --format json >doc.json
	if [ -s doc.json ] && iconv -f UTF-8 -t UTF-8 doc.json >/dev/null 2>&1; then
		ok
	else
		bad "names: $cmd --format json is not UTF-8"
	fi
done
expect 0 "names: report" $S report 1 2 --db x.sqlite -o r.html
html=$(<r.html)
case "$html" in *'<script>alert'* | *'<img src=x'* | *'<svg onload'* | *$'\e'*)
	bad "names: the report lets markup or escapes through" ;;
*) ok ;;
esac
contains "names: report escapes" "$html" '&lt;script&gt;alert(1)&lt;/script&gt;'

fi

if tcase byte-flips; then
# --- byte flips ------------------------------------------------------------------------
# Each command on a flipped copy is refused (exit 2, one line) or prints
# exactly what it prints on the intact store (the report's "generated"
# time aside): a changed number or name with exit 0 fails the test.
# Damage is found by the invariants of verify.c, not by checksums (SQLite
# keeps none), so a flip inside a stored value that keeps every invariant
# (a letter of a name, a digit of a timestamp, low bits of a stored mean)
# would go unnoticed by design; with this seed and store no flip does
# (docs/guarantees.md), and one that ever does fails here to be looked at.
# flip FILE: a copy of base.sqlite with 1-3 bytes XORed with 1..255 at
# seeded offsets: the header, the schema page (page 1) or anywhere.  The
# offsets and masks come from $RANDOM; one perl writes the copy (a
# hundred flips are a hundred processes, not a thousand).
size=$(stat -c %s base.sqlite)
flip() {
	local k n off xors=()
	n=$((1 + RANDOM % 3))
	for ((k = 0; k < n; k++)); do
		case $((RANDOM % 4)) in
		0) off=$((RANDOM % 100)) ;;
		1) off=$((RANDOM % 16384)) ;;
		*) off=$(((RANDOM * 32768 + RANDOM) % size)) ;;
		esac
		xors+=("$off" $((1 + RANDOM % 255)))
	done
	perl -e 'local $/; open(my $in, "<:raw", "base.sqlite") or die; my $d = <$in>;
		my $f = shift; while (@ARGV) { my ($o, $x) = splice(@ARGV, 0, 2);
		$d .= "\0" x ($o + 1 - length $d) if $o >= length $d;
		substr($d, $o, 1) = chr(ord(substr($d, $o, 1)) ^ $x) }
		open(my $out, ">:raw", $f) or die; print $out $d; close $out or die' "$1" "${xors[@]}"
}
# harmless DESC CMD...: exit 0 (1 for check) and no diagnostic, or exit 2
# and one "scopedb: " line; within 60 s.  $out is CMD's stdout and exit
# status (and the report's HTML), for same_output.  (Its output is read
# by bash itself: it runs a thousand times.)
harmless() {
	local desc=$1 lines=0 line first=
	shift
	[ ! -e r.html ] || rm -f r.html
	timeout 60 "$@" >"$E2E_DIR/.stdout" 2>"$E2E_DIR/.stderr"
	rc=$?
	# out=$(<.stdout), without a process: up to a NUL, then the final
	# newlines dropped
	IFS= read -r -d '' out <"$E2E_DIR/.stdout"
	while [ "${out%$'\n'}" != "$out" ]; do out=${out%$'\n'}; done
	if [ -f r.html ]; then
		# the page, its "generated" time masked (read by bash too)
		IFS= read -r -d '' page <r.html
		[[ $page =~ \;\ generated\ [0-9TZ:-]*\. ]] && page=${page//"${BASH_REMATCH[0]}"/.}
		out="$out
exit $rc $page"
	else
		out="$out
exit $rc "
	fi
	while IFS= read -r line || [ -n "$line" ]; do
		[ -n "$line" ] || continue
		lines=$((lines + 1))
		[ "$lines" -gt 1 ] || first=$line
	done <"$E2E_DIR/.stderr"
	if { [ "$rc" -eq 0 ] || { [ "$rc" -eq 1 ] && [ "$2" = check ]; }; } && [ "$lines" -eq 0 ]; then
		ok
	elif [ "$rc" -eq 2 ] && [ "$lines" -eq 1 ] && [[ $first == "scopedb: "* ]]; then
		ok
	else
		bad "$desc: exit $rc: $(head -c 400 "$E2E_DIR/.stderr")"
		cp x.sqlite "$SCOPEDB_BUILD_DIR/store_damage_failed.sqlite" 2>/dev/null
	fi
}
FLIPPED=("runs" "show 1" "diff 1 2 --metric p95" "check 1 2 --ranks 0-1 --metric p99"
	"history main" "meta 1" "changes" "report 1 2 -o r.html")
# pulled: what pull copied into y.sqlite, as the numbers diff shows
pulled() {
	$S diff 1 2 --db y.sqlite --metric p95 --format json 2>&1
}
# the outputs of the intact store, which an exit 0 must reproduce
declare -A clean
rm -f x.sqlite* y.sqlite*
cp base.sqlite x.sqlite
for cmd in "${FLIPPED[@]}"; do
	# shellcheck disable=SC2086
	harmless "intact: $cmd" $S $cmd --db x.sqlite
	clean[$cmd]=$out
done
harmless "intact: pull" $S pull --from x.sqlite --db y.sqlite
clean[pull]="$out
$(pulled)"
nflip=100
[ "${SCOPEDB_SANITIZE:-OFF}" = ON ] && nflip=30
RANDOM=1306
damaged=0 same=0 changed=0
for ((i = 0; i < nflip; i++)); do
	rm -f x.sqlite x.sqlite-wal x.sqlite-shm y.sqlite*
	flip x.sqlite
	for cmd in "${FLIPPED[@]}" pull; do
		if [ "$cmd" = pull ]; then
			harmless "flip $i: pull" $S pull --from x.sqlite --db y.sqlite
			[ "$rc" -eq 0 ] && out="$out
$(pulled)"
		else
			# shellcheck disable=SC2086
			harmless "flip $i: $cmd" $S $cmd --db x.sqlite
		fi
		if [ "$rc" -eq 2 ]; then
			damaged=$((damaged + 1))
		elif [ "$out" = "${clean[$cmd]}" ]; then
			same=$((same + 1))
		else
			changed=$((changed + 1))
			bad "flip $i: $cmd: exit $rc with other output than the intact store's:
$(diff <(echo "${clean[$cmd]}") <(echo "$out") | head -6)"
			cp x.sqlite "$SCOPEDB_BUILD_DIR/store_damage_failed.sqlite" 2>/dev/null
		fi
	done
done
# the campaign damaged something (its seed is fixed: the count is too)
[ "$damaged" -gt 0 ] && ok || bad "the byte flips never damaged the store"
note "byte flips: $nflip files; commands: $damaged refused, $same same output, $changed changed"
fi

finish
