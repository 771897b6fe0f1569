#!/usr/bin/env bash
# e2e_pg_damage.sh - a tampered team PostgreSQL store is harmless, and a
# connection string's password never shows.
#
# A shared PostgreSQL store is written by many people; anyone who can
# alter its tables can break the invariants ingest keeps (CHECK
# constraints dropped, NaN in a float column, a bytea cut short) or attach
# SQL that would run in our session.  On a throwaway server
# (tests/pg-server.sh) each case is a fresh database holding the same two
# runs, tampered with through psql; the commands exit 2 with exactly the
# one line naming the store and what is wrong, as for SQLite
# (e2e_store_damage.sh).  Then passwords in every form of --db value are
# masked in errors and outputs.  Skipped (exit 77) only when scopedb was
# built without the PostgreSQL backend.
source "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?set MKPROFILE to the mkprofile binary}"
if [ "${SCOPEDB_POSTGRES:-OFF}" != ON ]; then
	echo "skipped: scopedb was built without the PostgreSQL backend (SCOPEDB_POSTGRES=OFF)"
	exit 77
fi
source "$(dirname "$0")/pg-server.sh"
pg_e2e_start
S=$SCOPEDB
psql_q() { "$PG_BIN/psql" -X -A -t -q -d "$1" -c "$2"; }

"$MKPROFILE" --ranks 2 --regions main,solve,io --calls 20 --seed 1 a.h5 >/dev/null || exit 1
"$MKPROFILE" --ranks 2 --regions main,solve,io --calls 20 --seed 2 --slow solve=2 \
	--timestamp 2024-01-02T00:00:00Z b.h5 >/dev/null || exit 1
"$MKPROFILE" --ranks 2 --regions main,solve --calls 5 --seed 3 c.h5 >/dev/null || exit 1
expect 0 "ingest" $S ingest --db base.sqlite --commit abc1234 a.h5 b.h5

# tamper NAME SQL: $db = a new database with the two runs, edited by SQL
n=0
tamper() {
	n=$((n + 1))
	db=$(pg_newdb "t$n$1") || exit 1
	expect 0 "$1: push" $S push --to "$db" --db base.sqlite
	psql_q "$db" "$2" || bad "tamper $1: psql failed"
}
# refused DESC MESSAGE CMD...: each CMD (with --db $db) exits 2 with
# exactly MESSAGE, where STORE in MESSAGE stands for the store's name
refused() {
	local desc=$1 msg=${2//STORE/$db} cmd
	shift 2
	for cmd in "$@"; do
		# shellcheck disable=SC2086
		expect_err 2 "$desc: $cmd" "$msg" $S $cmd --db "$db"
	done
}
D="scopedb: store 'STORE' is damaged:"
main="(SELECT id FROM regions WHERE name = 'main')"

if tcase rows; then
tamper calls "ALTER TABLE run_regions DROP CONSTRAINT run_regions_calls_check;
	UPDATE run_regions SET calls = -5 WHERE run_id = 1 AND region_id = $main"
refused "negative calls" "$D region 'main' of run 1 has -5 calls (0 on a GPU)" \
	"show 1" "diff 1 2" "check 1 2 --stat --metric p95" "history main" "changes" \
	"report 1 2 -o r.html"
tamper nan "UPDATE run_regions SET p95_ns = 'NaN' WHERE run_id = 1 AND region_id = $main"
refused "NaN p95" "$D region 'main' of run 1 has percentiles outside its 27592..124996 ns or out of order" \
	"show 1" "diff 1 2 --metric p95" "history main --metric p95" "changes --metric p95"
tamper inf "UPDATE run_regions SET p50_ns = '-Infinity' WHERE run_id = 2 AND region_id = $main"
refused "infinite p50" "$D region 'main' of run 2 has percentiles outside its 23497..107754 ns or out of order" \
	"show 2" "diff 1 2 --metric p50"
# binary reads decode by width: a column of a type scopedb never uses is
# refused, not read as garbage; an integer column made float8 (or back)
# keeps its numbers
tamper float4 "ALTER TABLE run_regions ALTER COLUMN p95_ns TYPE real"
refused "float4 column" "$D column p95_ns has type real, expected bigint, double precision, bytea or text" \
	"show 1" "diff 1 2 --metric p95" "report 1 2 -o r.html"
tamper numeric "ALTER TABLE run_regions ALTER COLUMN total_ns TYPE numeric"
refused "numeric column" "$D column total_ns has type numeric, expected bigint, double precision, bytea or text" \
	"show 1" "diff 1 2"
# a number column made text: refused, not its bytes read as a number
# (binary results) or "2 ranks" read as 2 (text ones)
tamper text-number "ALTER TABLE run_regions DROP CONSTRAINT run_regions_nranks_check;
	ALTER TABLE run_regions ALTER COLUMN nranks TYPE text"
refused "text column" "$D column nranks holds a text value where a number belongs" \
	"show 1" "diff 1 2"
# a schema version that is not a number: damage, not a store to create
tamper version-text "UPDATE scopedb_meta SET value = 'abc' WHERE key = 'schema_version'"
refused "schema version not a number" "$D its schema version 'abc' is not a number" \
	runs "ingest a.h5"
# a pin without a name (its key dropped): damage, not "out of memory"
tamper pin-null "ALTER TABLE pins DROP CONSTRAINT pins_pkey; ALTER TABLE pins ALTER COLUMN name DROP NOT NULL;
	INSERT INTO pins (name, run_id, pinned_at) VALUES (NULL, 1, '2024-01-01T00:00:00Z')"
refused "a pin without a name" "$D a pin has no name" "rm 1"
# the call tree's rows: a path gone or its total NULL is damage
tamper path-gone "DELETE FROM paths WHERE run_id = 1 AND path_id = 2"
refused "a path gone" "$D run 1 has 2 paths where its nesting row counts 3" \
	"show 1 --by path" "diff 1 2 --by path"
tamper path-null "UPDATE paths SET total_ns = NULL WHERE run_id = 1 AND path_id = 0"
refused "a path's total NULL" "$D path 0 of run 1 has totals missing (NULL) for its 2 ranks" \
	"show 1 --by path" "history main --by path"
tamper text-runs "ALTER TABLE runs DROP CONSTRAINT runs_num_ranks_check;
	ALTER TABLE runs ALTER COLUMN num_ranks TYPE text;
	UPDATE runs SET num_ranks = '2 ranks' WHERE id = 1"
refused "text column, text result" "$D column num_ranks holds a text value where a number belongs" \
	runs "show 1"
run $S show 1 --format json --db base.sqlite
clean=$out
tamper float8 "ALTER TABLE run_regions ALTER COLUMN total_ns TYPE float8;
	ALTER TABLE timings ALTER COLUMN calls TYPE float8"
run $S show 1 --format json --db "$db"
equals "integer columns made float8: same output" "$out" "$clean"
tamper ranks "ALTER TABLE runs DROP CONSTRAINT runs_num_ranks_check;
	UPDATE runs SET num_ranks = -1 WHERE id = 2"
refused "negative rank count" "$D run 2 has -1 ranks" runs "show 2" "diff 1 2"
tamper rank "UPDATE timings SET rank = 7 WHERE id = (SELECT min(id) FROM timings)"
# (the per-rank views ask for the ranks the run has: the row stays unseen;
# the report's heatmaps read every rank, and refuse it as with SQLite)
refused "rank >= mpi_size" "$D region 'main' of run 1 has rank 7 of 2" \
	"report 1 2 -o r.html" "report 2 1 -o r.html"
# a damaged run never blocks the others (issue 24): run 2 is copied, run
# 1 is named on stderr, the exit status is 2
expect_err 2 "rank >= mpi_size: pull" \
	"scopedb: run 1 (a.h5) not copied: store '$db' is damaged: region 'main' of run 1 has rank 7 of 2" \
	$S pull --from "$db" --db y1.sqlite
equals "rank >= mpi_size: pull copies run 2" "$(sqlite3 y1.sqlite 'SELECT source_path FROM runs')" b.h5
# a push of the run alone from SQLite to a new database copies nothing; the
# database keeps the schema the push created (in one transaction) and no row
sqlite_bad=$(pwd)/bad.sqlite
rm -f "$sqlite_bad"*
expect 0 "rank >= mpi_size: the SQLite copy" $S pull --from base.sqlite --db "$sqlite_bad"
sqlite3 "$sqlite_bad" "UPDATE timings SET rank = 7 WHERE id = 1" || bad "tamper bad.sqlite"
fresh=$(pg_newdb fresh) || exit 1
expect_err 2 "rank >= mpi_size: push to PostgreSQL" \
	"scopedb: run 1 (a.h5) not copied: store '$sqlite_bad' is damaged: region 'main' of run 1 has rank 7 of 2" \
	$S push --db "$sqlite_bad" --to "$fresh" 1
equals "push to PostgreSQL: no row" "$(psql_q "$fresh" 'SELECT (SELECT count(*) FROM runs) +
	(SELECT count(*) FROM regions) + (SELECT count(*) FROM timings)')" 0
expect_err 0 "push to PostgreSQL: a whole empty store" "scopedb: no runs stored in '$fresh'" \
	$S runs --db "$fresh"
# and every run: run 2 is copied
run $S push --db "$sqlite_bad" --to "$fresh"
equals "push to PostgreSQL: run 2 copied" "$rc:$out:$err" "2:copied run 2 (b.h5) as run 1
pushed 2 runs to '$fresh': 1 copied, 0 already there, 1 not copied:scopedb: run 1 (a.h5) not copied: store '$sqlite_bad' is damaged: region 'main' of run 1 has rank 7 of 2"
fi

if tcase blobs; then
tamper blob "UPDATE timings_durations SET data = substring(data FROM 1 FOR 5)
	WHERE timing_id = (SELECT min(id) FROM timings)"
refused "truncated blob" "$D call durations of run 1 do not decode" "show 1" \
	"diff 1 2 --ranks 0-1 --metric p95"
expect_err 2 "truncated blob: pull" \
	"scopedb: run 1 (a.h5) not copied: store '$db' is damaged: call durations of run 1 do not decode (region 'main' rank 0)" \
	$S pull --from "$db" --db y2.sqlite
equals "truncated blob: pull copies run 2" "$(sqlite3 y2.sqlite 'SELECT source_path FROM runs')" b.h5
tamper blob-gone "DELETE FROM timings_durations WHERE timing_id = (SELECT min(id) FROM timings)"
refused "missing blob" "$D region 'main' of run 1 has 20 calls but 0 stored durations" \
	"show 1 --ranks 0" "history main --ranks 0 --metric p95"
refused "missing blob" "$D region 'main' of run 1 has 40 calls but 20 stored durations" \
	"show 1" "diff 1 2 --ranks 0-1 --metric p95"

fi

if tcase schema-objects; then
# SQL attached to the tables would run in our session: refused, never run
tamper trigger "CREATE TABLE log (x bigint);
	CREATE FUNCTION spy() RETURNS trigger LANGUAGE plpgsql AS
		\$\$ BEGIN INSERT INTO log VALUES (old.id); RETURN old; END \$\$;
	CREATE TRIGGER spy AFTER DELETE ON runs FOR EACH ROW EXECUTE FUNCTION spy()"
refused "trigger" "scopedb: store 'STORE' has a trigger named 'spy' on its tables, which scopedb never creates; refused (remove it, or use a store without one)" \
	runs "show 1" "rm 2" "prune --keep-last 1"
equals "trigger: never ran" "$(psql_q "$db" 'SELECT count(*) FROM log')" 0
equals "trigger: nothing removed" "$(psql_q "$db" 'SELECT count(*) FROM runs')" 2
# a trigger on any table of the store, the tables of the newest schema
# included: each is refused before anything is written (the list of
# tables that the check guards is kept by hand in conn.c)
tamper every-table "CREATE TABLE log (x bigint);
	CREATE FUNCTION spy() RETURNS trigger LANGUAGE plpgsql AS
		\$\$ BEGIN INSERT INTO log VALUES (1); RETURN new; END \$\$"
tables=$(psql_q "$db" "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()
	AND tablename <> 'log' ORDER BY tablename")
equals "every table: the store's" "$(echo $tables)" "path_ranks paths pins regions run_counter run_metadata run_nesting run_regions run_tags runs scopedb_meta timings timings_durations"
for t in $tables; do
	psql_q "$db" "CREATE TRIGGER spy AFTER INSERT OR UPDATE OR DELETE ON $t
		FOR EACH STATEMENT EXECUTE FUNCTION spy()" || bad "every table: trigger on $t"
	expect_err 2 "every table: $t" "scopedb: store '$db' has a trigger named 'spy' on its tables, which scopedb never creates; refused (remove it, or use a store without one)" \
		$S ingest --db "$db" --commit abc1234 c.h5
	psql_q "$db" "DROP TRIGGER spy ON $t" || bad "every table: drop the trigger on $t"
done
equals "every table: never ran" "$(psql_q "$db" 'SELECT count(*) FROM log')" 0
equals "every table: nothing added" "$(psql_q "$db" 'SELECT count(*) FROM runs')" 2
tamper rule "CREATE TABLE log (x bigint);
	CREATE RULE copy AS ON DELETE TO pins DO ALSO INSERT INTO log VALUES (1)"
refused "rule" "scopedb: store 'STORE' has a rule named 'copy' on its tables, which scopedb never creates; refused (remove it, or use a store without one)" \
	runs "unpin x"
tamper policy "ALTER TABLE runs ENABLE ROW LEVEL SECURITY;
	CREATE POLICY hide ON runs USING (id > 1)"
refused "policy" "scopedb: store 'STORE' has a row-level security policy named 'hide' on its tables, which scopedb never creates; refused (remove it, or use a store without one)" \
	runs "show 1"
tamper view "ALTER TABLE pins RENAME TO pins_real;
	CREATE VIEW pins AS SELECT * FROM pins_real"
refused "view" "scopedb: store 'STORE' has a view named 'pins' among its tables, which scopedb never creates; refused (remove it, or use a store without one)" \
	runs "pins"
tamper partitioned "ALTER TABLE pins RENAME TO pins_real;
	CREATE TABLE pins (LIKE pins_real) PARTITION BY RANGE (run_id)"
refused "partitioned" "scopedb: store 'STORE' has a partitioned table named 'pins' among its tables, which scopedb never creates; refused (remove it, or use a store without one)" \
	runs "pins"
# a table inheriting from one of the store's: a read of timings reads its
# rows, and rm's DELETE would fire its trigger
tamper child "CREATE TABLE log (x bigint);
	CREATE FUNCTION spy() RETURNS trigger LANGUAGE plpgsql AS
		\$\$ BEGIN INSERT INTO log VALUES (1); RETURN old; END \$\$;
	CREATE TABLE timings_child () INHERITS (timings);
	CREATE TRIGGER spy BEFORE DELETE ON timings_child FOR EACH ROW EXECUTE FUNCTION spy()"
refused "child table" "scopedb: store 'STORE' has a child table named 'timings_child' under its tables, which scopedb never creates; refused (remove it, or use a store without one)" \
	runs "show 1" "rm 1"
equals "child table: never ran" "$(psql_q "$db" 'SELECT count(*) FROM log')" 0
equals "child table: nothing removed" "$(psql_q "$db" 'SELECT count(*) FROM runs')" 2
# a database with no store yet, but a scopedb_meta of someone else's,
# empty, with a trigger: the store's creation would fire it
db=$(pg_newdb premade) || exit 1
psql_q "$db" "CREATE TABLE log (x bigint);
	CREATE FUNCTION spy() RETURNS trigger LANGUAGE plpgsql AS
		\$\$ BEGIN INSERT INTO log VALUES (1); RETURN new; END \$\$;
	CREATE TABLE scopedb_meta (key text PRIMARY KEY, value text NOT NULL);
	CREATE TRIGGER spy AFTER INSERT OR UPDATE ON scopedb_meta FOR EACH ROW EXECUTE FUNCTION spy()" ||
	bad "premade: psql failed"
refused "premade" "scopedb: store 'STORE' has a trigger named 'spy' on its tables, which scopedb never creates; refused (remove it, or use a store without one)" \
	"ingest a.h5" runs
equals "premade: never ran" "$(psql_q "$db" 'SELECT count(*) FROM log')" 0
equals "premade: no store made" "$(psql_q "$db" "SELECT to_regclass('runs') IS NULL")" t

fi

if tcase passwords; then
# --- passwords ------------------------------------------------------------------------
# every form of --db value that carries one (trust authentication: the
# server ignores it); the store is named with *** in its place
team=$(pg_newdb team)
expect 0 "push to the team store" $S push --to "$team" --db base.sqlite
for v in "$team password=hunter2" "$team password = 'hun ter2'" \
	"postgresql://postgres:hunter2@/team?host=$PG_DIR" \
	"postgresql://postgres:hun@ter2@/team?host=$PG_DIR" \
	"postgresql:///team?host=$PG_DIR&user=postgres&password=hunter2" \
	"postgresql:///team?password=hunter2&host=$PG_DIR&user=postgres"; do
	for cmd in "runs" "runs --format json" "show 1 --format json" "diff 1 2 --format json" \
		"pins" "vacuum" "meta 1 --format json" "prune --dry-run --keep-last 1" \
		"report 1 2 -o r.html" "rm 99" "show nosuch"; do
		# shellcheck disable=SC2086
		run $S $cmd --db "$v"
		case "$out$err$(cat r.html 2>/dev/null)" in
		*hunter2* | *'hun ter2'* | *ter2@*) bad "password shown by '$cmd --db $v': $out$err" ;;
		*) ok ;;
		esac
	done
	run $S push --to "$v" --db base.sqlite
	case "$out$err" in *hunter2* | *'hun ter2'* | *ter2@*) bad "password shown by push: $out$err" ;; *) ok ;; esac
	run $S pull --from "$v" --db pulled.sqlite
	case "$out$err" in *hunter2* | *'hun ter2'* | *ter2@*) bad "password shown by pull: $out$err" ;; *) ok ;; esac
done
expect_err 2 "URI password" \
	"scopedb: cannot open store 'postgresql://postgres:***@/nosuch?host=$PG_DIR': connection to server on socket \"$PG_DIR/.s.PGSQL.5432\" failed: FATAL:  database \"nosuch\" does not exist" \
	$S runs --db "postgresql://postgres:hun@ter2@/nosuch?host=$PG_DIR"
expect_err 2 "URI parameter" \
	"scopedb: cannot open store 'postgresql:///nosuch?host=$PG_DIR&password=***&user=postgres': connection to server on socket \"$PG_DIR/.s.PGSQL.5432\" failed: FATAL:  database \"nosuch\" does not exist" \
	$S runs --db "postgresql:///nosuch?host=$PG_DIR&password=hunter2&user=postgres"
# a one-letter password: starred where it stands whole, not in every word
expect_err 2 "one-letter URI password" \
	"scopedb: cannot open store 'postgresql://postgres:***@/nosuch?host=$PG_DIR': connection to server on socket \"$PG_DIR/.s.PGSQL.5432\" failed: FATAL:  database \"nosuch\" does not exist" \
	$S runs --db "postgresql://postgres:e@/nosuch?host=$PG_DIR"
expect_err 2 "one-letter password, its bad token" \
	"scopedb: cannot open store 'postgresql://u:***@127.0.0.1:1/db': invalid integer value \"***\" for connection option \"port\"" \
	$S runs --db "postgresql://u:e/o@127.0.0.1:1/db"
# libpq quotes a malformed URI, or its bad token, in its error: masked too
expect_err 2 "malformed URI" \
	"scopedb: cannot open store 'postgresql://u:***@[::1': end of string reached when looking for matching \"]\" in IPv6 host address in URI: \"postgresql://u:***@[::1\"" \
	$S runs --db "postgresql://u:hunter2@[::1"
expect_err 2 "bad percent-encoding in the password" \
	"scopedb: cannot open store 'postgresql://u:***@h/db': invalid percent-encoded token: \"***\"" \
	$S runs --db "postgresql://u:hun%zzter2@h/db"
expect_err 2 "bad percent-encoding in the password parameter" \
	"scopedb: cannot open store 'postgresql://u@h/db?password=***': invalid percent-encoded token: \"***\"" \
	$S runs --db "postgresql://u@h/db?password=hun%zzter2"
# a '?' or '/' in an unescaped password: libpq reads u:hun?ter2@ as user
# info, and u:hun/ter2@h:1 as host u, port "hun" (and quotes it)
expect_err 2 "'?' in the URI password" \
	"scopedb: cannot open store 'postgresql://u:***@127.0.0.1:1/db': connection to server at \"127.0.0.1\", port 1 failed: Connection refused" \
	$S runs --db "postgresql://u:hun?ter2@127.0.0.1:1/db"
expect_err 2 "'/' in the URI password" \
	"scopedb: cannot open store 'postgresql://u:***@127.0.0.1:1/db': invalid integer value \"***\" for connection option \"port\"" \
	$S runs --db "postgresql://u:hun/ter2@127.0.0.1:1/db"
for v in "postgresql://u:hun?ter2@127.0.0.1:1/db" "postgresql://u:hun/ter2@127.0.0.1:1/db" \
	"postgresql://u:hun/t@er2@127.0.0.1:1/db" "postgresql://u:hun@ter2@127.0.0.1:1/db" \
	"host=127.0.0.1 port=1 password='hun ter2'" "host=127.0.0.1 port=1 password=hun\\ ter2" \
	"host=127.0.0.1 port=1 password='hun\\'ter2'"; do
	run $S runs --db "$v"
	case "$out$err" in
	*hun* | *ter2*) bad "password shown by runs --db $v: $out$err" ;;
	*) equals "$v: refused" "$rc" 2 ;;
	esac
done
run $S vacuum --db "$team password=hunter2"
contains "vacuum names the masked store" "$out" "vacuumed '$team password=***'"
# a passfile or sslkey names a file: its content is never shown
printf 'SECRET_LINE_9f3a:5432:*:postgres:pw\n' >secret.pass
chmod 600 secret.pass
run $S runs --db "$team passfile=$E2E_DIR/secret.pass sslkey=$E2E_DIR/secret.pass"
case "$out$err" in *SECRET_LINE*) bad "a passfile's content was shown" ;; *) ok ;; esac
equals "passfile: works" "$rc" 0
fi

finish
