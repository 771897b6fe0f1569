#!/usr/bin/env bash
# e2e_postgres.sh - the PostgreSQL store against a real server (issue 17).
#
# Starts a throwaway PostgreSQL 15 server (tests/pg-server.sh: initdb and
# pg_ctl as an unprivileged user, a Unix socket in the test's directory
# only, fsync off; always stopped by the trap), then:
#  1. the same scenario of ingest, runs, show, meta, diff, check, history,
#     tag/untag, pin/pins/unpin, selectors, errors and rm, run once against
#     an SQLite file and once against a PostgreSQL database: the two
#     transcripts (stdout, stderr and exit status of every command, with
#     the --db value and wall-clock times masked) are byte-identical;
#     likewise push/pull, changes over a series with a level shift, and
#     --same, outlier runs and provisional changes (issue 23);
#  2. 16 writers ingesting overlapping files into one PostgreSQL store all
#     succeed and every distinct file is stored exactly once;
#     and the hostile name corpus with an upper-case commit (issue 29);
#  3. the server stopped (immediate shutdown) in the middle of an ingest:
#     the ingest fails with one clear line, no partial run is left, and
#     the same ingest succeeds after the server restarts.
# Skipped (exit 77) only when scopedb was built without the backend.
source "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?set MKPROFILE to the mkprofile binary}"
if [ "${SCOPEDB_POSTGRES:-OFF}" != ON ]; then
	expect_err 2 "a URI without the backend" \
		"scopedb: cannot open store 'postgresql://h/db': this scopedb was built without the PostgreSQL backend (SCOPEDB_POSTGRES=OFF, or libpq-dev missing)" \
		"$SCOPEDB" ingest --db postgresql://h/db x.h5
	[ "$e2e_fail" -eq 0 ] || exit 1
	echo "skipped: scopedb was built without the PostgreSQL backend (SCOPEDB_POSTGRES=OFF)"
	exit 77
fi
source "$(dirname "$0")/pg-server.sh"
S=$SCOPEDB
PSQL="$PG_BIN/psql"
trap '[ "$BASHPID" != "$$" ] || { pg_stop; rm -rf "$E2E_DIR"; }' EXIT
pg_available || { echo "FAIL: no PostgreSQL 15 server binaries in $PG_BIN" >&2; exit 1; }
pg_start "$E2E_DIR/pg" || { echo "FAIL: cannot start PostgreSQL" >&2; exit 1; }
psql_q() { "$PSQL" -X -A -t -q -d "$1" -c "$2"; }

# --- profiles ------------------------------------------------------------------
mk() { "$MKPROFILE" "$@" >/dev/null || exit 1; }
mk --ranks 4 --regions solve,io,halo --calls 60 --seed 1 --label base \
	--timestamp 2026-01-01T00:00:00Z r1.h5
mk --ranks 4 --regions solve,io,halo --calls 60 --seed 2 --slow io=1.5 \
	--timestamp 2026-02-01T00:00:00Z r2.h5
mk --ranks 2 --regions solve,io --calls 40 --seed 3 --gpu --label 'ünï λ' \
	--timestamp 2026-03-01T00:00:00Z r3.h5
mk --ranks 3 --regions solve,io,new_region --calls 30 --seed 4 --aggregate \
	--timestamp 2026-04-01T00:00:00Z r4.h5
mk --ranks 4 --regions solve,io,halo --calls 60 --seed 5 --scale 0.9 r5.h5

# --- 1. the same transcript on both backends -------------------------------------
today=$(date -u +%Y-%m-%d)
# t CMD...: the command line, its stdout, stderr and exit status, with the
# store's --db value shown as DB and today's wall-clock times as NOW.
t() {
	local o e rc
	o=$("$S" "$@" 2>"$E2E_DIR/.t.err")
	rc=$?
	e=$(<"$E2E_DIR/.t.err")
	{
		echo "\$ scopedb $*"
		printf '%s\n' "$o"
		[ -n "$e" ] && printf 'stderr: %s\n' "$e"
		echo "rc=$rc"
	} | sed -e "s|$DBV|DB|g" -e "s|${today}T[0-9:]*Z|NOW|g" -e "s|${today} [0-9:]*|NOW|g" \
		-e 's/^\(would prune [0-9]* runs*\) ([^)]*)/\1 (BYTES)/'
}

# alike NAME FN PG_DB SQLITE_DB: the transcript of FN on each store, the
# same (NAME-pg.txt, NAME-sqlite.txt)
alike() {
	DBV=$3
	SCOPEDB_DB=$3 $2 >"$1-pg.txt"
	DBV=$4
	SCOPEDB_DB=$4 $2 >"$1-sqlite.txt"
	if diff -u "$1-sqlite.txt" "$1-pg.txt" >"$1.diff"; then ok; else bad "$1 differ: $(head -30 "$1.diff")"; fi
}

scenario() {
	DBV=$1
	export SCOPEDB_DB=$1
	t ingest r1.h5 --tag nightly --commit aaa1111 --branch main
	t ingest r2.h5 r3.h5 --commit bbb2222 --branch main
	t ingest r2.h5 --tag again
	t ingest r4.h5 --commit ccc3333 --branch dev --tag nightly --meta build=42
	t ingest r5.h5 --commit aaa1999 --branch main
	t runs
	t runs --format json
	t runs --format csv --tag nightly
	t runs --branch main --limit 2
	t runs --commit aaa --since 2026-01-15
	t runs --meta build=42
	t show 1
	t show latest --format json
	t show 3 --format csv
	t meta 1
	t meta 1 2
	for m in total self avg min max p50 p95 p99 imbalance calls gpu_total; do
		t diff 1 2 --metric $m
	done
	t diff 1 2 --ranks 0,2 --metric p95
	t diff 1 2 --by path --metric p95
	t diff 1 2 --by path --ranks 1 --metric self --format json
	t show 3 --by path --include 'so.*'
	t show 4 --by path
	t diff 1 2 --ranks 1 --format json
	t diff 1 4
	t diff latest~1 latest --format markdown
	t diff commit:aaa1 branch:dev
	t diff commit:AAA11 BBB2222
	t runs --commit AaA --format csv
	t diff label:base tag:nightly --include so
	t diff 1 r5.h5
	t check 1 2 --max-regression 5
	t check 1 5 --max-regression 5 --format junit
	t check 2 1 --fail-on-missing --format csv
	t history solve
	t history solve --metric p99
	t history solve --ranks 0,1 --metric p50
	t history --match '(io|halo)' --limit 2 --format json
	t history io --branch main --since 2026-01-15 --until 2026-03-15
	t tag 2 baseline release
	t tag 2 baseline
	t untag 2 release
	t untag 2 nope
	t runs --tag baseline
	t pin base 1
	t pin cand latest
	t pin base 2
	t pins
	t pins --format json
	t diff pin:base pin:cand
	t check pin:base~1 pin:cand
	t unpin cand
	t unpin cand
	t pins
	# mistyped names: the nearest stored one, from either backend
	t diff tag:nightlly latest
	t diff branch:mian latest
	t diff label:bsae latest
	t diff pin:bsae latest
	t diff tag:release~1 latest
	t unpin bsae
	t untag 1 nightlly
	t history slove
	t runs --tag nightlly
	# prune rolled back (the bytes are each backend's own: masked by t)
	t prune --dry-run --keep-last 1
	t prune --dry-run --older-than 2026-03-15 --branch main
	t runs --format csv
	# run sets read through the store
	t check branch:main latest --baseline-window 3 --max-regression 5 --allow-different mpi_size
	t check branch:main latest --stat --baseline-window 3 --max-regression 5 --allow-different mpi_size
	t diff branch:main latest --baseline-window 3 --format json
	# change points over every region's series (store_region_series())
	t changes
	t changes --format json --metric p95
	t changes --branch main --include so --format csv
	t changes --tag nightlly
	t rm 2
	t rm 2 --force
	t rm 99
	t rm 4 5
	t runs
	t diff 1 latest
	t diff latest~7 latest
	t diff commit:zzz latest
	t diff commit:aaa latest
	t diff tag:missing latest
	t history nowhere
	t ingest r4.h5 --commit ccc3333
	t runs --format json
	t history io --format csv
}
if tcase transcript; then
scenario "$E2E_DIR/compare.sqlite" >sqlite.txt
scenario "$PG_URI" >postgres.txt
if diff -u sqlite.txt postgres.txt >transcript.diff; then
	ok
else
	bad "PostgreSQL and SQLite transcripts differ: $(head -40 transcript.diff)"
fi
equals "transcript has every command" "$(grep -c '^\$ scopedb' postgres.txt)" 96
equals "transcript: commit prefixes in any case" \
	"$(sed -n '/^\$ scopedb diff commit:AAA11 BBB2222$/,/^rc=/p' postgres.txt | tail -1)" "rc=0"
equals "transcript: runs --commit in any case" \
	"$(sed -n '/^\$ scopedb runs --commit AaA --format csv$/,/^rc=/p' postgres.txt | grep -c ',aaa')" 2
contains "transcript: a mistyped tag" "$(<postgres.txt)" "no run has tag 'nightlly'; did you mean 'nightly'?"
contains "transcript: a mistyped pin" "$(<postgres.txt)" "no pin named 'bsae'; did you mean 'base'?"
contains "transcript: a mistyped region" "$(<postgres.txt)" "did you mean 'solve'?"
contains "transcript: prune" "$(<postgres.txt)" "would prune 2 runs (BYTES)"
# prune measures the space of the removed runs in PostgreSQL too
pg_prune=$("$S" prune --db "$PG_URI" --dry-run --keep-last 1 | tail -n 1)
if [[ $pg_prune =~ ^would\ prune\ [1-9][0-9]*\ runs?\ \((.*)\)$ ]] && [ "${BASH_REMATCH[1]}" != "0 bytes" ]; then
	ok
else
	bad "prune on PostgreSQL measures no space: $pg_prune"
fi
contains "transcript ran diffs" "$(<postgres.txt)" "Metric: p95"
# the URI spellings reach the same store
uri="postgresql:///scopedb?host=$PG_DIR&user=postgres"
expect 0 "postgresql:// URI" $S runs --db "$uri"
equals "URI lists the same runs" "$out" "$(SCOPEDB_DB=$PG_URI $S runs)"
expect 0 "postgres:// URI" $S runs --db "postgres:///scopedb?host=$PG_DIR&user=postgres"
unset SCOPEDB_DB

fi

if tcase push-pull; then
if [ ! -f "$E2E_DIR/compare.sqlite" ]; then # as transcript left it
	scenario "$E2E_DIR/compare.sqlite" >/dev/null
	unset SCOPEDB_DB
fi
# push and pull: the SQLite store of the scenario pushed to an empty
# PostgreSQL store and pulled back into a new SQLite file, and pushed to a
# new SQLite file directly: the reports and the three copies read the same
team=$(pg_newdb team)
"$S" pin --db "$E2E_DIR/compare.sqlite" keep 1 >/dev/null || bad "pin keep"
views() {
	t runs
	t runs --format json
	t pins
	t show latest
	t diff 1 latest --metric p95
	t diff 1 latest --ranks 0,1 --metric p99
	t check 1 latest --max-regression 1
	t history io --metric p50
	t history solve --ranks 0 --metric p95
	t meta 1
}
# push compare.sqlite's runs to the team store $1 twice, then pull them
# into pulled$2.sqlite (two, then all) and all$2.sqlite
push_pull() {
	DBV=$E2E_DIR/compare.sqlite
	t push --db "$E2E_DIR/compare.sqlite" --to "$1" --pins
	t push --db "$E2E_DIR/compare.sqlite" --to "$1" --pins
	DBV=$E2E_DIR/pulled$2.sqlite
	t pull --db "$E2E_DIR/pulled$2.sqlite" --from "$1" --pins latest~1 latest
	t pull --db "$E2E_DIR/pulled$2.sqlite" --from "$1" --pins
	DBV=$E2E_DIR/all$2.sqlite
	t pull --db "$E2E_DIR/all$2.sqlite" --from "$1" --pins
}
push_pull "$team" "" 2>&1 | sed -e "s|$team|TEAM|g" >push-pg.txt
push_pull "$E2E_DIR/team.sqlite" 2 2>&1 | sed -e "s|$E2E_DIR/team.sqlite|TEAM|g" >push-sqlite.txt
if diff -u push-sqlite.txt push-pg.txt >push.diff; then ok; else bad "push/pull reports differ: $(<push.diff)"; fi
equals "push report" "$(sed -n 1,8p push-pg.txt)" "\$ scopedb push --db DB --to TEAM --pins
copied run 1 (r1.h5) as run 1
copied run 3 (r3.h5) as run 2
copied run 6 (r4.h5) as run 3
pinned 'keep' to run 1
pushed 3 runs to 'TEAM': 3 copied, 0 already there
rc=0
\$ scopedb push --db DB --to TEAM --pins"
contains "push again copies nothing" "$(<push-pg.txt)" "pushed 3 runs to 'TEAM': 0 copied, 3 already there"
contains "pull of two runs" "$(<push-pg.txt)" "pulled 2 runs from 'TEAM': 2 copied, 0 already there"
contains "pull of the rest" "$(<push-pg.txt)" "pulled 3 runs from 'TEAM': 1 copied, 2 already there"
DBV=$team
SCOPEDB_DB=$team views >team-pg.txt
DBV=$E2E_DIR/team.sqlite
SCOPEDB_DB=$E2E_DIR/team.sqlite views >team-sqlite.txt
for f in pulled pulled2 all all2; do
	DBV=$E2E_DIR/$f.sqlite
	SCOPEDB_DB=$DBV views >$f.txt
done
for f in team-sqlite all all2; do
	if diff -u team-pg.txt $f.txt >views.diff; then ok; else bad "$f differs from the PostgreSQL team store: $(head -30 views.diff)"; fi
done
if diff -u pulled.txt pulled2.txt >views.diff; then ok; else bad "pulls in two steps differ: $(head -30 views.diff)"; fi
contains "the copies keep tags and pins" "$(<team-pg.txt)" "keep"
contains "the copies keep tags" "$(<team-pg.txt)" "nightly"
equals "the copies keep metadata" "$($S meta --db "$team" 1)" "$($S meta --db "$E2E_DIR/compare.sqlite" 1)"
# a team store without runs: nothing pulled, nothing created, and its
# location as messages give it (a password starred)
none=$(pg_newdb none)
"$S" ingest --db "$none" -q --commit abc1234 r1.h5 >/dev/null && "$S" rm --db "$none" 1 >/dev/null || bad "an emptied team store"
expect_err 0 "pull nothing from PostgreSQL" "" $S pull --from "$none password=hunter2" --db "$E2E_DIR/none.sqlite"
equals "pull nothing: the password starred" "$out" \
	"pulled 0 runs from '$none password=***': nothing to copy, '$E2E_DIR/none.sqlite' not created"
[ ! -e "$E2E_DIR/none.sqlite" ] && ok || bad "pull of nothing created a store"

fi

if tcase paths; then
# the call tree (issue 22) stored alike: the real profiles ingested into
# each backend, and pushed from SQLite to PostgreSQL, give the same paths,
# (path, rank) rows, self times and nesting marks; a schema 1 store is
# upgraded with its runs and their numbers kept, and without paths
REAL=$E2E_SUPPORT/../data/real
q_tree() {
	$1 "$2" "select p.run_id, p.path_id, coalesce(p.parent_id, -1), g.name, p.depth, r.rank,
		r.calls, r.nested, r.total_ns, r.self_ns, coalesce(length(r.durations), -1)
		from paths p join regions g on g.id = p.region_id join path_ranks r
		on r.run_id = p.run_id and r.path_id = p.path_id order by 1, 2, 6"
	$1 "$2" "select n.run_id, n.ranks, n.trees, n.paths, n.path_rows from run_nesting n order by 1"
	$1 "$2" "select t.run_id, g.name, t.rank, coalesce(t.exclusive_ns, -1) from timings t
		join regions g on g.id = t.region_id order by 1, 2, 3"
	$1 "$2" "select t.run_id, g.name, coalesce(t.self_ns, -1) from run_regions t
		join regions g on g.id = t.region_id order by 1, 2"
}
pt=$(pg_newdb paths)
pushed=$(pg_newdb pushed)
"$S" ingest --db "$pt" --commit aaa1111 "$REAL"/*.h5 r4.h5 >/dev/null 2>&1 || bad "ingest into PostgreSQL"
"$S" ingest --db "$E2E_DIR/paths.sqlite" --commit aaa1111 "$REAL"/*.h5 r4.h5 >/dev/null 2>&1 ||
	bad "ingest into SQLite"
"$S" push --db "$E2E_DIR/paths.sqlite" --to "$pushed" >/dev/null || bad "push to PostgreSQL"
q_tree psql_q "$pt" >tree-pg.txt
q_tree "sqlite3 -batch" "$E2E_DIR/paths.sqlite" >tree-sqlite.txt
q_tree psql_q "$pushed" >tree-pushed.txt
if diff -u tree-sqlite.txt tree-pg.txt >tree.diff; then ok; else bad "paths differ: $(head -30 tree.diff)"; fi
if diff -u tree-pg.txt tree-pushed.txt >tree.diff; then ok; else bad "pushed paths differ: $(head -30 tree.diff)"; fi
contains "main > solve of nested-base.h5" "$(<tree-pg.txt)" "4|1|0|solve|2|0|30|0|72717215|2894414|-1"
# each path's stored p50/p95/p99 (issue 22): set on both backends and on
# push, read alike (the diffs print them to the nanosecond)
equals "every path has its percentiles" "$(psql_q "$pt" "select count(*) from paths where p95_ns is null")" 0
equals "pushed: computed on arrival" "$(psql_q "$pushed" "select count(*) from paths where p95_ns is null")" 0
for m in p50 p95 p99; do
	for pair in "1 1" "2 3" "4 5"; do
		# shellcheck disable=SC2086
		want=$("$S" diff $pair --db "$E2E_DIR/paths.sqlite" --by path --metric $m --format csv 2>&1)
		# shellcheck disable=SC2086
		equals "$m --by path of $pair alike" "$("$S" diff $pair --db "$pt" --by path --metric $m --format csv 2>&1)" "$want"
		# shellcheck disable=SC2086
		equals "$m --by path of $pair pushed" "$("$S" diff $pair --db "$pushed" --by path --metric $m --format csv 2>&1)" "$want"
	done
done
# a recursion's nested calls (show --by path), by rank too: alike on both
# backends and pushed (run 1 is fib-recursive.h5, 2 mpi2-base.h5)
for r in "1" "2" "2 --ranks 1"; do
	# shellcheck disable=SC2086
	want=$("$S" show $r --db "$E2E_DIR/paths.sqlite" --by path --columns calls,nested --format csv 2>&1)
	# shellcheck disable=SC2086
	equals "nested of $r alike" "$("$S" show $r --db "$pt" --by path --columns calls,nested --format csv 2>&1)" "$want"
	# shellcheck disable=SC2086
	equals "nested of $r pushed" "$("$S" show $r --db "$pushed" --by path --columns calls,nested --format csv 2>&1)" "$want"
done
contains "fibonacci's 40 nested calls on PostgreSQL" \
	"$("$S" show 1 --db "$pt" --by path --format csv --columns nested)" "main > fibonacci,40"
# what schema 4 changed, undone (the stores below are made by this
# scopedb, then taken back to an older schema)
undo4="drop index run_metadata_by_value; drop index run_metadata_by_key;
	create index run_metadata_by_key on run_metadata (key, value);
	alter table regions drop constraint regions_name_key;
	alter table regions add constraint regions_name_key unique (name);"
# a store of schema 2 (paths without percentiles): upgraded, its runs
# answer from their durations, the same numbers
sch2=$(pg_newdb schema2)
"$S" ingest --db "$sch2" --commit aaa1111 "$REAL"/nested-base.h5 "$REAL"/nested-slow.h5 >/dev/null 2>&1 || bad "ingest nested"
before=$("$S" diff 1 2 --db "$sch2" --by path --metric p95 --format json 2>&1)
psql_q "$sch2" "$undo4 alter table paths drop column p50_ns, drop column p95_ns, drop column p99_ns;
	update scopedb_meta set value = '2' where key = 'schema_version'" || bad "downgrade to 2"
equals "schema 2: the same p95 --by path" "$("$S" diff 1 2 --db "$sch2" --by path --metric p95 --format json 2>&1)" "$before"
equals "upgraded to schema 4" "$(psql_q "$sch2" "select value from scopedb_meta where key = 'schema_version'")" 4
equals "older runs: no stored percentiles" "$(psql_q "$sch2" "select count(p95_ns) from paths")" 0
contains "the aggregate run: read, no paths" "$(<tree-pg.txt)" "6|0|0|0|0"
# a store of schema 1: its runs keep their numbers and have no paths
old=$(pg_newdb oldschema)
"$S" ingest --db "$old" --commit aaa1111 r1.h5 >/dev/null 2>&1 || bad "ingest r1"
before=$("$S" show --db "$old" 1)
psql_q "$old" "$undo4 drop table run_nesting; drop table paths; drop table path_ranks;
	alter table run_regions drop column self_ns;
	update scopedb_meta set value = '1' where key = 'schema_version'" || bad "downgrade"
"$S" ingest --db "$old" --commit aaa1111 "$REAL"/fib-recursive.h5 >/dev/null 2>&1 || bad "ingest after downgrade"
equals "upgraded to schema 4" "$(psql_q "$old" "select value from scopedb_meta where key = 'schema_version'")" 4
equals "old run kept" "$("$S" show --db "$old" 1)" "$before"
equals "only the new run has paths" "$(psql_q "$old" "select string_agg(run_id::text, ',') from run_nesting")" 2
equals "self of the old run: its rows'" "$(psql_q "$old" "select count(*) from run_regions g where run_id = 1
	and self_ns = (select sum(exclusive_ns) from timings t where t.run_id = 1 and t.region_id = g.region_id)")" 3

fi

if tcase errors; then
# errors name the store, with the password masked
expect_err 2 "no server" \
	"scopedb: cannot open store 'host=$E2E_DIR/nowhere user=postgres password=*** dbname=x': connection to server on socket \"$E2E_DIR/nowhere/.s.PGSQL.5432\" failed: No such file or directory" \
	$S runs --db "host=$E2E_DIR/nowhere user=postgres password=secret dbname=x"
empty=$(pg_newdb empty)
expect_err 2 "read from an empty database" \
	"scopedb: cannot open store '$empty': the database holds no scopedb store yet (ingest into it once)" \
	$S runs --db "$empty"
equals "a read creates nothing" "$(psql_q "$empty" "select count(*) from pg_tables where schemaname = 'public'")" 0
psql_q "$empty" "create table runs (x int)"
expect_err 2 "foreign database" "scopedb: cannot open store '$empty': not a scopedb database" \
	$S ingest --db "$empty" r1.h5
newer=$(pg_newdb newer)
expect 0 "ingest into a new database" $S ingest --db "$newer" r1.h5
psql_q "$newer" "update scopedb_meta set value = '99' where key = 'schema_version'"
expect_err 2 "newer store" \
	"scopedb: cannot open store '$newer': written by a newer scopedb (schema version 99; this scopedb supports up to 4)" \
	$S runs --db "$newer"
equals "schema comments" "$(psql_q "$newer" "select obj_description('runs'::regclass)")" \
	"one ingested profile file"
equals "every column has a comment" "$(psql_q "$newer" "select count(*) from information_schema.columns c
	where table_schema = 'public' and col_description((table_schema || '.' || table_name)::regclass, ordinal_position) is null")" 0
# a database of other tables: no store made in it, and the way out said
geo=$(pg_newdb geo)
psql_q "$geo" "create table regions (id int primary key, name text)"
expect_err 2 "a database with a table of scopedb's name" \
	"scopedb: cannot make a scopedb store in '$geo': relation \"regions\" already exists (a store of its own: another database, or a schema of its own with options=-csearch_path=NAME)" \
	$S ingest --db "$geo" r1.h5
equals "nothing made in it" "$(psql_q "$geo" "select count(*) from pg_tables where schemaname = 'public'")" 1
# a schema of its own that does not exist yet: the server's words, and
# what to do
expect_err 2 "a search_path naming no schema" \
	"scopedb: cannot open store '$geo options=-csearch_path=perf': no schema has been selected to create in (the search_path of the URI names no schema that exists: create it first with CREATE SCHEMA, docs/team-store.md)" \
	$S ingest --db "$geo options=-csearch_path=perf" r1.h5
# an older store (schema version 2, made by undoing 0004 and 0003 by
# hand) read by a role that may only read it: the upgrade it needs is
# named, not the server's bare refusal; its owner's read upgrades it
older=$(pg_newdb older)
expect 0 "older: a run" $S ingest --db "$older" r1.h5
psql_q "$older" "ALTER TABLE regions DROP CONSTRAINT regions_name_key;
	ALTER TABLE regions ADD CONSTRAINT regions_name_key UNIQUE (name);
	DROP INDEX run_metadata_by_key; DROP INDEX run_metadata_by_value;
	CREATE INDEX run_metadata_by_key ON run_metadata (key, value);
	ALTER TABLE paths DROP COLUMN p50_ns, DROP COLUMN p95_ns, DROP COLUMN p99_ns;
	UPDATE scopedb_meta SET value = '2' WHERE key = 'schema_version';
	CREATE ROLE e2e_reader LOGIN; GRANT USAGE ON SCHEMA public TO e2e_reader;
	GRANT SELECT ON ALL TABLES IN SCHEMA public TO e2e_reader" >/dev/null || bad "older: downgrade"
reader=${older/user=postgres/user=e2e_reader}
expect_err 2 "older: a reader cannot upgrade it" \
	"scopedb: cannot open store '$reader': schema version 2 must be upgraded to 4, which this role cannot do (permission denied for schema public); open it for writing once as its owner" \
	$S runs --db "$reader"
expect 0 "older: its owner's read upgrades it" $S runs --db "$older"
equals "older: upgraded" "$(psql_q "$older" "select value from scopedb_meta where key = 'schema_version'")" 4
expect 0 "older: then the reader reads it" $S runs --db "$reader" --format csv
equals "older: the run" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1)" 1
# a tag the run has, or a tag it lacks removed: nothing to write, so the
# reader may repeat them (as an ingest of a stored file); a new one fails
expect 0 "older: its owner tags it" $S tag --db "$older" 1 kept
expect 0 "older: the reader's tag it has" $S tag --db "$reader" 1 kept
equals "older: already tagged" "$out" "run 1: already tagged 'kept'"
expect 0 "older: the reader's untag of a tag it lacks" $S untag --db "$reader" 1 gone
equals "older: no such tag" "$out" "run 1: has no tag 'gone'"
expect_error "older: the reader's new tag" "permission denied" $S tag --db "$reader" 1 kept new

fi

if tcase changes; then
# change points (store_region_series()) on a history with a level shift: the
# same series from both backends, as e2e_changes.sh builds it (shorter)
series=$(pg_newdb series)
for i in $(seq 1 20); do
	args=()
	regions=main,solve,io,halo
	[ "$i" -ge 11 ] && args+=(--scale 1.25 --slow main=0.8)
	[ "$i" = 8 ] || [ "$i" = 9 ] && regions=main,solve,io
	mk --ranks 2 --regions $regions --calls 50 --seed "$i" "${args[@]}" \
		--timestamp "2026-01-$(printf %02d "$i")T02:00:00Z" "s$i.h5"
	for db in "$series" "$E2E_DIR/series.sqlite"; do
		$S ingest --db "$db" --quiet --branch main --commit "$(printf 'c%02d%038d' "$i" 0)" \
			"s$i.h5" >/dev/null || bad "series ingest s$i"
	done
done
changes_views() {
	t changes
	t changes --format json --metric p95 --sort pct
	t changes --include 'so|io' --since 2026-01-05 --format csv
	t history halo --format json
	# the HTML report (trends, change points, distributions, ranks) on
	# stdout, its generation time masked
	t report 10 11 -o - --history 12
	t report --branch main -o - --stat --baseline-window 5
}
alike changes changes_views "$series" "$E2E_DIR/series.sqlite"
contains "changes: the shift at run 11" "$(<changes-pg.txt)" "solve   10 -> 11  c10000000000..c11000000000"

fi

if tcase ancestry; then
# base:REF (issue 28): the stored runs along a git repository's first-parent
# ancestry, found by commit on either backend, and the source locations of
# check's findings (store_region_sources())
anc=$(pg_newdb ancestry)
mkdir repo && (cd repo && git init -q -b main . && for i in 1 2 3 4; do
	echo "$i" >>f && git add f && git -c user.email=t@x -c user.name=t commit -q -m "c$i"
done && git checkout -q -b feature main~1 && echo f >>f &&
	git -c user.email=t@x -c user.name=t commit -q -am f) || bad "ancestry: git set-up"
for i in 1 2 3; do
	mk --ranks 2 --regions solve,io --calls 20 --seed "1$i" --timestamp "2026-05-0${i}T00:00:00Z" "a$i.h5"
	for db in "$anc" "$E2E_DIR/ancestry.sqlite"; do
		$S ingest --db "$db" --quiet --branch main --commit "$(git -C repo rev-parse "main~$((4 - i))")" \
			"a$i.h5" >/dev/null || bad "ancestry ingest a$i"
	done
done
mk --ranks 2 --regions solve,io --calls 20 --seed 19 --slow solve=1.5 ac.h5
ancestry_views() {
	cd repo || return 1
	t check base:main ../ac.h5 --max-regression 5
	t check base:main ../ac.h5 --baseline-window 3 --max-regression 5 --format json
	t check base:main ../ac.h5 --max-regression 5 --format github
	t check base:main ../ac.h5 --max-regression 5 --format codequality
	t check base:main~3 ../ac.h5
	cd .. || return 1
}
alike ancestry ancestry_views "$anc" "$E2E_DIR/ancestry.sqlite"
contains "ancestry: the merge base's runs" "$(<ancestry-pg.txt)" '"baseline_runs": [3,2,1]'
contains "ancestry: findings on the line" "$(<ancestry-pg.txt)" "::error file=example.py,line=10,"

fi

if tcase many-regions; then
# Many regions: PostgreSQL reads the durations of a diff or show with
# --ranks POSTGRES_BLOB_CHUNK (32) regions per query (src/store/postgres/
# cache.c); 70 regions take three such queries per run, and a run named
# twice is read twice.
regs=$(for i in $(seq 0 69); do printf 'r%03d,' "$i"; done)
mk --ranks 3 --regions "${regs%,}" --calls 12 --seed 7 m1.h5
mk --ranks 3 --regions "${regs%,}" --calls 12 --seed 8 --slow r040=1.3 m2.h5
many=$(pg_newdb many)
for db in "$many" "$E2E_DIR/many.sqlite"; do
	$S ingest --db "$db" --quiet m1.h5 m2.h5 >/dev/null || bad "many-regions ingest"
done
many_views() {
	t diff 1 2 --ranks 0,2 --metric p95
	t diff 1 2 --by path --metric p95
	t diff 1 2 --by path --ranks 1 --metric self --format json
	t show 3 --by path --include 'so.*'
	t show 4 --by path
	t diff 2 2 --ranks 1 --metric p99 --format csv
	t diff 1 2 --ranks 0 --metric p50 --include 'r0[3-6]'
	t show 2 --ranks 0,1 --columns region,calls,p50,std
}
alike many-regions many_views "$many" "$E2E_DIR/many.sqlite"
contains "many regions: all 70 shown" "$(<many-regions-pg.txt)" "r069"

fi

if tcase long-text; then
# Text longer than a B-tree index entry (2,704 bytes): a region name of
# 2,800 random hex digits and a metadata value of 6,000 (a full
# environment's PATH) are stored by both backends alike (schema 4: hash
# indexes); a tag past STORE_NAME_MAX (2,000 bytes) is refused by both.
long_name=$(head -c 1400 /dev/urandom | od -An -tx1 | tr -d ' \n')
long_value=$(head -c 3000 /dev/urandom | od -An -tx1 | tr -d ' \n')
mk --ranks 2 --regions "main,$long_name" --calls 10 --seed 3 lt.h5
mk --ranks 2 --regions "main,$long_name" --calls 10 --seed 4 lt.json
jq --arg v "$long_value" '.metadata.LD_LIBRARY_PATH = $v' lt.json >lt2.json
lt=$(pg_newdb longtext)
for db in "$lt" "$E2E_DIR/lt.sqlite"; do
	$S ingest --db "$db" --quiet --commit abc1234 lt.h5 lt2.json >/dev/null || bad "long text: ingest into $db"
done
lt_views() {
	t show 1
	t diff 1 2 --metric p95 --format json
	t meta 2
	t runs --meta "LD_LIBRARY_PATH=$long_value" --format csv
}
alike long-text lt_views "$lt" "$E2E_DIR/lt.sqlite"
contains "long text: the region" "$(<long-text-pg.txt)" "$long_name"
contains "long text: the value" "$(<long-text-pg.txt)" "$long_value"
# region names stay unique: the exclusion constraint of schema 4
run psql_q "$lt" "insert into regions (id, name) values (999, '$long_name')"
contains "long text: a second region of the name refused" "$err" "regions_name_key"
long_tag=$(printf '%2001s' | tr ' ' t)
for db in "$lt" "$E2E_DIR/lt.sqlite"; do
	expect_err 2 "long text: a tag too long ($db)" \
		"scopedb: tag '$(printf '%120s' | tr ' ' t)...' is too long (2001 bytes; a store indexes names of at most 2000)" \
		$S tag --db "$db" 1 "$long_tag"
done

fi

if tcase big-sums; then
# Sums past 2^53 ns: PostgreSQL's sum of bigint is a numeric, which read
# as a double lost the last digits, and --ranks found the store "damaged"
# (a call of 9007199254740993 ns totalling 9007199254740992)
printf '%s' '{"format":"scope-profiler-profile","num_ranks":2,"regions":[{"name":"r","rank":0,"start_times_ns":[0],"end_times_ns":[9007199254740993]},{"name":"r","rank":1,"start_times_ns":[0],"end_times_ns":[5]}]}' >big.json
bg=$(pg_newdb bigsums)
for db in "$bg" "$E2E_DIR/bg.sqlite"; do
	$S ingest --db "$db" --quiet --commit abc1234 big.json >/dev/null || bad "big sums: ingest into $db"
done
big_views() {
	t show 1 --ranks 0 --format json
	t show 1 --by path --ranks 0 --format json
	t diff 1 1 --ranks 0 --format json
	t history r --ranks 0 --format json
}
alike big-sums big_views "$bg" "$E2E_DIR/bg.sqlite"
contains "big sums: the total" "$(<big-sums-pg.txt)" '"total": 9007199.254740993'
case $(<big-sums-pg.txt) in *rc=2*) bad "big sums: an error" ;; *) ok ;; esac

fi

if tcase long-blob; then
# A durations blob longer than POSTGRES_BLOB_STREAM (256 KiB) goes to the
# server in a COPY of its own, straight from the row's bytes (issue 26:
# one region of 100M calls held its 100 MB blob twice): a profile whose
# long rows (300,000 calls, 150,000 on rank 1: one over, one under) lie
# between short ones is stored byte for byte as SQLite stores it, by
# ingest and by push, and reads back the same.
awk 'function row(name, rank, k, step,   i, t) {
	printf "%s{\"name\":\"%s\",\"rank\":%d,\"start_times_ns\":[", (nr ? "," : ""), name, rank
	t = nr * 1000000000000
	for (i = 0; i < k; i++) { printf "%s%d", (i ? "," : ""), t; t += 1000 + (i * step) % 977 }
	printf "],\"end_times_ns\":["
	t = nr++ * 1000000000000
	for (i = 0; i < k; i++) { printf "%s%d", (i ? "," : ""), t + 1 + (i * step * 7) % 991; t += 1000 + (i * step) % 977 }
	printf "]}"
}
BEGIN { printf "{\"format\":\"scope-profiler-profile\",\"num_ranks\":2,\"regions\":["
	row("a", 0, 3, 3); row("long", 0, 300000, 5); row("b", 0, 2, 7)
	row("long", 1, 150000, 11); row("c", 1, 1, 13); printf "]}\n" }' >lb.json
lb=$(pg_newdb longblob)
lbp=$(pg_newdb longblobpush)
for db in "$lb" "$E2E_DIR/lb.sqlite"; do
	$S ingest --db "$db" --quiet --commit abc1234 lb.json >/dev/null || bad "long blob: ingest into $db"
done
$S push --db "$E2E_DIR/lb.sqlite" --to "$lbp" >/dev/null || bad "long blob: push"
blobs_sql="SELECT timing_id, length(data), %s FROM timings_durations ORDER BY 1"
# shellcheck disable=SC2059
want=$(sqlite3 "$E2E_DIR/lb.sqlite" "$(printf "$blobs_sql" "lower(hex(data))")" | md5sum)
for db in "$lb" "$lbp"; do
	# shellcheck disable=SC2059
	equals "long blob: the blobs of $db" \
		"$(psql_q "$db" "$(printf "$blobs_sql" "encode(data, 'hex')")" | md5sum)" "$want"
done
equals "long blob: one blob over 256 KiB" \
	"$(psql_q "$lb" "SELECT count(*) FROM timings_durations WHERE length(data) > 262144")" 1
lb_views() {
	t show 1 --ranks 0 --format json
	t show 1 --by path --format json
	t diff 1 1 --ranks 1 --metric p99
}
alike long-blob lb_views "$lb" "$E2E_DIR/lb.sqlite"

fi

if tcase ci-recipe; then
# The CI recipe on a team store given as libpq's key=value words (as
# docs/team-store.md writes it): it was taken for a file, so every pull
# request passed as "no baseline yet" (a folder made for it, a password
# printed); and a team database that holds no store yet is main's first
# run to come (a note, exit 0), as a missing SQLite file is
"$MKPROFILE" --seed 1 --timestamp 2024-01-01T00:00:00Z ci-base.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 1 --slow solve=1.3 --timestamp 2024-01-02T00:00:00Z ci-slow.h5 >/dev/null || exit 1
ci_db=$(pg_newdb cirecipe)
mkdir ci && cd ci || exit 1
gh_job() { # EVENT REF_NAME SHA-DIGIT PROFILE: a GitHub job on the store $ci_db
	: >summary.md
	run env SCOPEDB_DB="$ci_db" GITHUB_EVENT_NAME="$1" GITHUB_REF_NAME="$2" \
		GITHUB_SHA="$(printf '%040d' "$3")" GITHUB_STEP_SUMMARY="$PWD/summary.md" \
		PROFILE="$4" BUDGET=5 METRIC=p95 bash "$EXAMPLES/ci/github.sh"
}
gh_job pull_request 7/merge 70 ../ci-slow.h5
equals "ci: a pull request before the team store" "$rc" 0
contains "ci: before the team store, a note" "$(<summary.md)" \
	"scopedb: no baseline yet: no store in the team database (the first run on main makes it)"
gh_job push main 1 ../ci-base.h5
equals "ci: main's first run" "$rc" 0
gh_job pull_request 7/merge 70 ../ci-slow.h5
equals "ci: a slow pull request fails" "$rc" 1
contains "ci: its report" "$(<summary.md)" "budget violations: solve"
ci_db="host=/nonexistent-socket-dir user=ci password=s3cret dbname=x"
gh_job pull_request 7/merge 70 ../ci-slow.h5
equals "ci: a server that does not answer" "$rc" 2
case $err$(<summary.md) in *s3cret*) bad "ci: the password printed" ;; *) ok ;; esac
[ -z "$(ls)" ] || [ "$(ls)" = summary.md ] && ok || bad "ci: files made for the store: $(ls)"
cd .. || exit 1

fi

if tcase same; then
# Issue 23 through the store on both backends: --same (the run filter's
# metadata conditions and the runs left out), the outlier run named, no
# evidence, and a provisional change.  24 runs alternating between two
# machines (B 1.3x slower), run 9 (on A) 2.5x slower everywhere, then a
# candidate commit of three runs on A, solve 15% slower.
alt=$(pg_newdb alt)
for i in $(seq 1 27); do
	h=A
	args=(--scale 1.0)
	[ $((i % 2)) = 0 ] && [ "$i" -le 24 ] && h=B && args=(--scale 1.3)
	[ "$i" = 9 ] && args=(--scale 2.5)
	c=$(printf 'a%02d%038d' "$i" 0)
	[ "$i" -gt 24 ] && c=$(printf 'b%039d' 1) && args+=(--slow solve=1.15)
	mk --ranks 2 --regions main,solve,io,halo --calls 40 --seed "$i" "${args[@]}" \
		--timestamp "2026-05-$(printf %02d "$i")T02:00:00Z" "a$i.h5"
	for db in "$alt" "$E2E_DIR/alt.sqlite"; do
		$S ingest --db "$db" --quiet --branch main --commit "$c" --meta "hostname=$h" \
			"a$i.h5" >/dev/null || bad "alt ingest a$i"
	done
done
same_views() {
	t check 23 27 --baseline-window 10 --max-regression 5
	t check 23 27 --baseline-window 10 --max-regression 5 --same hostname
	t check 23 27 --baseline-window 10 --max-regression 5 --same hostname --format json
	t check 24 27 --baseline-window 10 --same hostname
	t diff 23 27 --baseline-window 10 --same hostname --format csv
	t history solve --same hostname --format csv
	t changes --same hostname
	t changes --same hostname --format json
	t changes --format json --include solve
	t report 23 27 --baseline-window 10 --same hostname -o - --history 12
}
alike same same_views "$alt" "$E2E_DIR/alt.sqlite"
contains "same: left out" "$(<same-pg.txt)" "Like with like: hostname = A (11 runs of another value left out)"
contains "same: outlier named" "$(<same-pg.txt)" "Outlier runs: 9 (2.4x slower in 4 of 4 regions)"
contains "same: solve regressed" "$(<same-pg.txt)" "regressed"
contains "same: no evidence without" "$(<same-pg.txt)" "no evidence"
contains "same: provisional" "$(<same-pg.txt)" '"provisional": true'

fi

# Issue 29 on both backends: the hostile name corpus (tests/support/
# hostile_names.c; those of valid UTF-8, which a PostgreSQL store takes) as
# labels, branches, tags and regions, one commit stored
# upper case (an older scopedb's store, or the library's caller), through
# every format: the two transcripts are the same, commit prefixes match in
# any case, and an --output over an SQLite file is refused on both.
if tcase hostile; then
: "${MKHOSTILE:?}"
mapfile -d '' NAMES < <("$MKHOSTILE" list)
hostile=$(pg_newdb hostile)
for i in 0 3 12 13 18 26 34; do
	"$MKHOSTILE" names-utf8 "hn$i.h5" "$i" || bad "mkhostile names-utf8 hn$i.h5"
	for db in "$hostile" "$E2E_DIR/hostile.sqlite"; do
		$S ingest --db "$db" --quiet --commit "$(printf 'c0de%04x' "$i")" \
			--branch="${NAMES[i]}" --tag="${NAMES[i]}" "hn$i.h5" >/dev/null ||
			bad "ingest hn$i.h5 into $db"
	done
done
psql_q "$hostile" "UPDATE runs SET commit_sha = 'C0DE000C' WHERE id = 3" >/dev/null ||
	bad "psql update"
sqlite3 "$E2E_DIR/hostile.sqlite" "UPDATE runs SET commit_sha = 'C0DE000C' WHERE id = 3" ||
	bad "sqlite3 update"
sqlite3 "$E2E_DIR/other.sqlite" "CREATE TABLE t (x)" || bad "sqlite3 other"
hostile_views() {
	t show commit:c0de000c --format json
	t show commit:C0DE0003
	t show C0DE0012
	t runs --commit C0DE00 --format json
	t runs --commit c0de000C --format csv
	t diff 1 2 --format csv
	t diff 1 2 --format markdown
	t check 2 3 --format junit
	t show 4 --format csv
	t history --match . --format csv --limit 3
	t history --match . --format markdown --limit 3
	t changes --format markdown
	t runs --format csv
	t diff 1 2 --output "json=$E2E_DIR/other.sqlite"
	t report 2 3 -o "$E2E_DIR/other.sqlite"
}
alike hostile hostile_views "$hostile" "$E2E_DIR/hostile.sqlite"
contains "hostile: commit:c0de000c finds C0DE000C" "$(<hostile-pg.txt)" '"commit": "C0DE000C"'
contains "hostile: commit:C0DE0003 finds c0de0003" "$(<hostile-pg.txt)" 'commit c0de0003'
equals "hostile: runs --commit C0DE00" \
	"$(sed -n '/^\$ scopedb runs --commit C0DE00 /,/^rc=/p' hostile-pg.txt | grep -c '"id"')" 7
for f in hostile-pg.txt hostile-sqlite.txt; do
	equals "$f: every command found its run" "$(grep -c '^rc=2' "$f")" 2
done
contains "hostile: --output over an SQLite file" "$(<hostile-pg.txt)" \
	"stderr: scopedb: cannot write --output 'json=$E2E_DIR/other.sqlite': it is an SQLite database; refused"
contains "hostile: report -o over an SQLite file" "$(<hostile-pg.txt)" \
	"stderr: scopedb: cannot write --output '$E2E_DIR/other.sqlite': it is an SQLite database; refused"
sed -n '/^\$ scopedb diff 1 2 --format csv/,/^rc=/p' hostile-pg.txt | sed '1d;$d' >hostile.csv
"$MKHOSTILE" check csv hostile.csv 2>check.err && ok || bad "hostile csv: $(head -3 check.err)"
sed -n '/^\$ scopedb diff 1 2 --format markdown/,/^rc=/p' hostile-pg.txt | sed '1d;$d' >hostile.md
"$MKHOSTILE" check markdown hostile.md 2>check.err && ok || bad "hostile md: $(head -3 check.err)"

fi

if tcase server-log; then
# Read commands close the connection inside their read snapshot, without
# a COMMIT (src/store/postgres/conn.c): the server ends the transaction
# quietly, and logs no lost client.
equals "no lost client in the server log" \
	"$(grep -c -e 'connection to client lost' -e 'could not send data' "$PG_DIR/server.log")" 0

fi

# --- 2. sixteen concurrent writers ---------------------------------------------------
if tcase concurrent-writers; then
conc=$(pg_newdb conc)
for i in 0 1 2 3 4 5; do
	mk --ranks 4 --regions a,b,c --calls 200 --seed $((100 + i)) c$i.h5
done
pids=()
for w in $(seq 0 15); do
	$S ingest --db "$conc" c$((w % 6)).h5 c$(((w + 1) % 6)).h5 c$(((w + 3) % 6)).h5 \
		>w$w.out 2>w$w.err &
	pids+=($!)
done
fails=0
for w in $(seq 0 15); do
	wait "${pids[$w]}" || { fails=$((fails + 1)); echo "writer $w: $(<w$w.err)" >&2; }
done
equals "16 writers: no error exit" "$fails" 0
equals "16 writers: each file once" "$(psql_q "$conc" "select count(*), count(distinct sha256) from runs")" "6|6"
equals "16 writers: ids 1..6" "$(psql_q "$conc" "select min(id) || '-' || max(id) from runs")" "1-6"
equals "16 writers: every run complete" "$(psql_q "$conc" "select count(*) from runs r where
	num_calls <> (select sum(calls) from timings t where t.run_id = r.id)
	or num_regions <> 3")" 0
equals "16 writers: the runs as one writer stores them" \
	"$($S runs --db "$conc" --format csv | cut -d, -f2- | sed "s/${today}T[0-9:]*Z/NOW/" | sort)" \
	"$(cd "$E2E_DIR" && for i in 0 1 2 3 4 5; do $S ingest --db one.sqlite c$i.h5 >/dev/null 2>&1; done
		$S runs --db one.sqlite --format csv | cut -d, -f2- | sed "s/${today}T[0-9:]*Z/NOW/" | sort)"

fi

# --- 3. the server stops in the middle of an ingest ---------------------------------
# The file is read in a child process first (no store access then); the
# write transaction (store_begin(), which takes the store's advisory lock,
# the inserts, store_commit()) opens only after.  So "the middle of an
# ingest" that can leave a partial run is the write phase.  Another
# session holds the timings table against writes (reads pass), so the
# ingest waits inside its write transaction, its run's row written, under
# the store's lock, until the server stops: the test waits until the ingest holds the lock (however
# long the read took) and only then stops the server.  (It used to race a
# 5-million-call ingest, which the plain build won on a quiet machine.)
# What this does not cover: a stop while the child reads (nothing is
# written then, so nothing can be partial).
if tcase server-stop; then
mk --ranks 32 --regions a,b,c,d,e,f,g,h --calls 2000 --seed 7 big.h5
fault=$(pg_newdb fault)
expect 0 "fault: first run" $S ingest --db "$fault" r1.h5
psql_q "$fault" "BEGIN; LOCK TABLE timings IN EXCLUSIVE MODE; SELECT pg_sleep(120); COMMIT" \
	>/dev/null 2>&1 &
holder=$!
for _ in $(seq 1 3000); do
	[ "$(psql_q "$fault" "select count(*) from pg_locks where relation = 'timings'::regclass
		and mode = 'ExclusiveLock' and granted" 2>/dev/null)" = 1 ] && break
	sleep 0.01
done
$S ingest --db "$fault" big.h5 >fault.out 2>fault.err &
pid=$!
locked=0
for _ in $(seq 1 6000); do
	if [ "$(psql_q "$fault" "select count(*) from pg_locks where locktype = 'advisory' and granted" 2>/dev/null)" = 1 ]; then
		locked=1
		break
	fi
	kill -0 $pid 2>/dev/null || break
	sleep 0.01
done
equals "fault: the server stops while the ingest writes" "$locked" 1
pg_kill
wait $pid
rc=$?
equals "fault: ingest fails" "$rc" 2
equals "fault: one message" "$(wc -l <fault.err)" 1
contains "fault: names the file" "$(<fault.err)" "scopedb: 'big.h5' not stored: cannot "
contains "fault: names the store" "$(<fault.err)" "store '$fault'"
wait $holder
pg_restart_only || exit 1
equals "fault: no partial run" "$(psql_q "$fault" "select count(*) from runs")
$(psql_q "$fault" "select count(*) from timings where run_id <> 1")" "1
0"
expect 0 "fault: the next ingest succeeds" $S ingest --db "$fault" big.h5
equals "fault: two runs" "$(psql_q "$fault" "select string_agg(id::text, ',' order by id) from runs")" "1,2"

fi

finish
