#!/usr/bin/env bash
# e2e_text.sh - text from profiles, stores and users (issue 24):
#  1. every confirmation line (ingest, push, pull, pin, unpin, tag, untag,
#     rm, prune, vacuum) and every note on stderr escapes what it quotes:
#     no ESC byte reaches the terminal, whatever a path, tag, pin, branch
#     or store location holds;
#  2. a store holds UTF-8 text only (docs/text.md): a profile whose region
#     name or metadata is not UTF-8 is refused by ingest, diff and show
#     with one line naming the file and the text; so are --tag, --label,
#     --meta and --branch values and a path that are not, before anything
#     is stored;
#  3. an older store holding such a run: push reports it (one line naming
#     the run and why), copies the others and exits 2, to SQLite and to
#     PostgreSQL alike; a region with no calls on some ranks (legal in
#     schemas 2 and 3) travels both ways;
#  4. PostgreSQL: a failed write is worded as an update, not a read;
#  5. a table's columns stay straight whatever the width of a name's
#     characters (wide, combining); what a terminal cannot print or what
#     reorders a row (U+FFFE, a bidirectional override) is shown as '?'.
# The PostgreSQL part runs when the backend is built (a throwaway server,
# tests/pg-server.sh).
source "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?set MKPROFILE to the mkprofile binary}"
S=$SCOPEDB
ESC=$'\033'
mk() { "$MKPROFILE" "$@" >/dev/null || exit 1; }
# no_esc DESC: neither $out nor $err holds an ESC byte
no_esc() {
	case "$out$err" in *"$ESC"*) bad "$1: a raw ESC in: $(printf '%q' "$out$err")" ;; *) ok ;; esac
}

# --- 1. confirmation lines --------------------------------------------------------
red=$'red\033[31m'
mkdir -p "$red"
mk --ranks 2 --regions solve,io --calls 5 --seed 1 "$red/a.h5"
mk --ranks 2 --regions solve,io --calls 5 --seed 2 --timestamp 2024-02-01T00:00:00Z b.h5
db="$red/s.sqlite"
run $S ingest --db "$db" --commit abc1234 --branch "$red" "$red/a.h5" b.h5
equals "ingest: exit" "$rc" 0
no_esc "ingest"
contains "ingest: the path escaped" "$out" "run 1: red?[31m/a.h5: 2 ranks, 2 regions, 20 calls"
run $S ingest --db "$db" --tag "$red" "$red/a.h5"
no_esc "ingest again"
contains "ingest again: escaped" "$out" "red?[31m/a.h5: already stored as run 1 (tags added)"
contains "prune: the branch escaped" "$($S prune --keep-last 1 --dry-run --db "$db")" \
	"branch red?[31m)"
for cmd in "tag 1 $red" "untag 1 $red" "untag 1 $red" "pin base 1" "pins" "runs" \
	"prune --keep-last 1 --dry-run" "vacuum"; do
	# shellcheck disable=SC2086
	run $S $cmd --db "$db"
	[ "$rc" = 0 ] && ok || bad "$cmd: exit $rc: $err"
	no_esc "$cmd"
done
contains "tag: escaped" "$($S tag 1 "$red" --db "$db")" "run 1: tagged 'red?[31m'"
contains "vacuum: the location escaped" "$($S vacuum --db "$db")" "vacuumed 'red?[31m/s.sqlite'"
# a pin named by another tool (pin names are checked: letters, digits, ...)
sqlite3 "$db" "INSERT INTO pins VALUES ('x' || char(27) || '[2J', 2, '2024-01-01T00:00:00Z')"
for cmd in "push --to $red/t.sqlite --pins" "pull --from $red/s.sqlite --db $red/u.sqlite --pins"; do
	# shellcheck disable=SC2086
	run $S $cmd --db "$db"
	[ "$rc" = 0 ] && ok || bad "$cmd: exit $rc: $err"
	no_esc "$cmd"
done
run $S push --to "$red/t.sqlite" --pins --db "$db"
contains "push: the path and the location escaped" "$out" \
	"skipped run 1 (red?[31m/a.h5): already stored as run 1"
contains "push: the pin escaped" "$out" "pin 'x?[2J' already names run 2"
run $S unpin "x$ESC[2J" --db "$db"
no_esc "unpin"
equals "unpin: escaped" "$out" "unpinned 'x?[2J' (was run 2)"
sqlite3 "$db" "INSERT INTO pins VALUES ('y' || char(27) || '[2J', 2, '2024-01-01T00:00:00Z')"
run $S rm 2 --force --db "$db"
no_esc "rm"
equals "rm: escaped" "$out" "removed run 2 (and its pin y?[2J)"
# notes on stderr
run $S runs --db "$red/empty.sqlite"
no_esc "no store"
run $S pins --db "$red/u.sqlite"
no_esc "no pins"
run $S runs --tag "$red" --db "$db"
no_esc "no such tag"
run $S "$red"
no_esc "unknown command"
equals "unknown command: escaped" "$err" "scopedb: 'red\\x1b[31m' is not a scopedb command; see 'scopedb --help'"
run $S "-$red"
no_esc "unknown option"
# a command's usage errors quote the word (they printed it raw)
for args in "runs x$red" "changes x$red" "runs --x$red" "runs -$red" "completion $red"; do
	read -ra words <<<"$args"
	run $S "${words[@]}" --db "$db"
	no_esc "usage error of '${words[*]}'"
	[ "$rc" = 2 ] && ok || bad "usage error of '${words[*]}': exit $rc"
done
run $S runs "x$red" --db "$db"
equals "unexpected argument: escaped" "${err%%$'\n'*}" \
	"scopedb: unexpected argument 'xred\x1b[31m'"
run $S runs $'x\ny' --db "$db"
equals "unexpected argument: a newline escaped, on one line" "${err%%$'\n'*}" \
	"scopedb: unexpected argument 'x\x0ay'"
run $S help "$red"
no_esc "help of an unknown command"
run $S history "$red" --db "$db"
no_esc "history of no region"
GITHUB_SHA="$red" run $S ingest --db "$red/v.sqlite" b.h5
no_esc "a CI commit that is no commit"

# --- 2. UTF-8 only ------------------------------------------------------------------
mk --ranks 2 --regions $'solve,bad\xffname' --calls 5 badname.h5
mk --ranks 2 --regions solve --label $'lab\xfe' --calls 5 badlabel.h5
expect_err 2 "a region name not UTF-8" \
	"scopedb: cannot read 'badname.h5': region name 'bad\\xffname' is not valid UTF-8 (byte 0xff at offset 3); a store holds UTF-8 text only" \
	$S ingest --db t.sqlite badname.h5
[ ! -e t.sqlite ] && ok || bad "a refused file created a store"
expect_err 2 "metadata not UTF-8" \
	"scopedb: cannot read 'badlabel.h5': metadata 'label' value 'lab\\xfe' is not valid UTF-8 (byte 0xfe at offset 3); a store holds UTF-8 text only" \
	$S ingest --db t.sqlite badlabel.h5
expect_err 2 "diff of such a file" \
	"scopedb: cannot read 'badname.h5': region name 'bad\\xffname' is not valid UTF-8 (byte 0xff at offset 3); a store holds UTF-8 text only" \
	$S diff badname.h5 b.h5
expect_err 2 "show of such a file" \
	"scopedb: cannot read 'badlabel.h5': metadata 'label' value 'lab\\xfe' is not valid UTF-8 (byte 0xfe at offset 3); a store holds UTF-8 text only" \
	$S show badlabel.h5
for opt in "--tag --tag" "--label --label" "--branch branch"; do
	expect_err 2 "${opt% *} not UTF-8" \
		"scopedb: invalid ${opt#* } 'x\\xff': not valid UTF-8 (a store holds UTF-8 text only)" \
		$S ingest --db t.sqlite "${opt% *}" $'x\xff' b.h5
done
expect_err 2 "--meta not UTF-8" \
	"scopedb: invalid --meta 'k=\\xff': not valid UTF-8 (a store holds UTF-8 text only)" \
	$S ingest --db t.sqlite --meta $'k=\xff' b.h5
cp b.h5 $'c\xff.h5'
expect_err 2 "a path not UTF-8" \
	"scopedb: cannot read 'c\\xff.h5': its path is not valid UTF-8 (a store holds UTF-8 text only); rename the file" \
	$S ingest --db t.sqlite $'c\xff.h5'
[ ! -e t.sqlite ] && ok || bad "a refused option created a store"
expect 0 "ingest b" $S ingest --db t.sqlite b.h5 --commit abc1234
expect_err 2 "tag not UTF-8" \
	"scopedb: tag 'x\\xff' is not valid UTF-8 (byte 0xff at offset 1); a store holds UTF-8 text only" \
	$S tag 1 $'x\xff' --db t.sqlite

# --- 3. an older store holding such runs; a region of no calls on some ranks ------------
mk --ranks 4 --regions solve,précondition --idle précondition --calls 5 --seed 3 idle.h5
mk --ranks 2 --regions solve,legacy --calls 5 --seed 4 --timestamp 2024-03-01T00:00:00Z l.h5
mk --ranks 2 --regions solve --calls 5 --seed 5 --timestamp 2024-04-01T00:00:00Z m.h5
expect 0 "ingest the old store" $S ingest --db old.sqlite --commit abc1234 idle.h5 l.h5 m.h5 b.h5
# what an older scopedb stored: a region name and a label that are not UTF-8
sqlite3 old.sqlite "UPDATE regions SET name = CAST(X'6c656761637966ff' AS TEXT) WHERE name = 'legacy';
	UPDATE runs SET label = CAST(X'6cff' AS TEXT) WHERE source_path = 'm.h5'"
expect 0 "show of the old store" $S show 2 --db old.sqlite
W2="run 2 (l.h5) not copied: region name 'legacyf\\xff' is not valid UTF-8 (byte 0xff at offset 7); a store holds UTF-8 text only"
W3="run 3 (m.h5) not copied: label 'l\\xff' is not valid UTF-8 (byte 0xff at offset 1); a store holds UTF-8 text only"
# transfer FROM TO DESC: push every run of FROM to the new store TO
transfer() {
	run $S push --db "$1" --to "$2"
	equals "$3: push" "$rc:$out:$err" "2:copied run 1 (idle.h5) as run 1
copied run 4 (b.h5) as run 2
pushed 4 runs to '$2': 2 copied, 0 already there, 2 not copied:scopedb: $W2
scopedb: $W3"
	run $S push --db "$1" --to "$2"
	equals "$3: push again" "$rc:$out" "2:skipped run 1 (idle.h5): already stored as run 1
skipped run 4 (b.h5): already stored as run 2
pushed 4 runs to '$2': 0 copied, 2 already there, 2 not copied"
}
transfer old.sqlite new.sqlite "SQLite"
# the idle region's rows: calls on rank 0, none on 1-3, as stored
equals "a region of no calls on ranks 1-3: copied" \
	"$($S show 1 --db new.sqlite --format csv --columns ranks,calls)" \
	"$($S show 1 --db old.sqlite --format csv --columns ranks,calls)"
expect 0 "and pulled back" $S pull --from new.sqlite --db back.sqlite
equals "pulled back" "$($S show 1 --db back.sqlite --format json)" \
	"$($S show 1 --db old.sqlite --format json)"
expect_err 2 "a selected bad run" "scopedb: $W3" $S push --db old.sqlite --to new2.sqlite 3
[ ! -e new2.sqlite ] && ok || bad "a push of a bad run alone created a store"

# --- PostgreSQL ----------------------------------------------------------------------------
# --- 5. names of every width ---------------------------------------------------------
# a wide (CJK) character takes two columns, a combining accent none: the
# calls column stays straight; a noncharacter (U+FFFE) and a bidirectional
# override (U+202E, which would reverse the rest of the row) are shown as '?'
mk --ranks 1 --regions $'main,wide\xe4\xb8\xad,comb\xcc\x81x,a\xef\xbf\xbeb,rev\xe2\x80\xaeabc' --calls 3 --seed 6 widths.h5
run $S show widths.h5 --columns calls --sort name
acute=$'\xcc\x81' han=$'\xe4\xb8\xad'
equals "widths: show" "$rc:$out" "0:Run: widths.h5 (file, label example, recorded 2024-01-01T00:00:00Z, 1 rank, columnar)

region   calls
a?b          3
comb${acute}x        3
main         3
rev?abc      3
wide${han}       3"
no_esc "widths"

# a name past 2,000 bytes (docs/text.md): a file read for show keeps it,
# a store refuses it, naming the file, and no new store is left for it
mk --ranks 1 --regions main --calls 3 --label "$(printf '%2100s' | tr ' ' L)" longlabel.h5
expect 0 "a long label: show" $S show longlabel.h5 --columns calls
expect_err 2 "a long label: ingest" \
	"scopedb: cannot read 'longlabel.h5': label '$(printf '%120s' | tr ' ' L)...' is too long (2100 bytes; a store indexes names of at most 2000)" \
	$S ingest --db longlabel.sqlite --commit abc1234 longlabel.h5
equals "a long label: no store made" "$(ls longlabel.sqlite* 2>/dev/null)" ""
$S ingest -q --db ll.sqlite --commit abc1234 widths.h5 >/dev/null || bad "ingest widths.h5"
expect_err 2 "a long label: into a store" \
	"scopedb: cannot read 'longlabel.h5': label '$(printf '%120s' | tr ' ' L)...' is too long (2100 bytes; a store indexes names of at most 2000)" \
	$S ingest --db ll.sqlite --commit abc1234 longlabel.h5

if [ "${SCOPEDB_POSTGRES:-OFF}" != ON ]; then
	echo "e2e_text: the PostgreSQL backend is not built: its part is skipped" >&2
	finish
fi
source "$(dirname "$0")/pg-server.sh"
pg_e2e_start
psql_q() { "$PG_BIN/psql" -X -A -t -q -d "$1" -c "$2"; }
pgdb=$(pg_newdb team) || exit 1
transfer old.sqlite "$pgdb" "PostgreSQL"
equals "PostgreSQL: a region of no calls on ranks 1-3" \
	"$($S show 1 --db "$pgdb" --format csv --columns ranks,calls)" \
	"$($S show 1 --db old.sqlite --format csv --columns ranks,calls)"
expect 0 "pull from PostgreSQL" $S pull --from "$pgdb" --db back2.sqlite
equals "pulled from PostgreSQL" "$($S show 1 --db back2.sqlite --format json)" \
	"$($S show 1 --db old.sqlite --format json)"
expect_err 2 "PostgreSQL: a region name not UTF-8" \
	"scopedb: cannot read 'badname.h5': region name 'bad\\xffname' is not valid UTF-8 (byte 0xff at offset 3); a store holds UTF-8 text only" \
	$S ingest --db "$pgdb" badname.h5
expect_err 2 "PostgreSQL: a tag not UTF-8" \
	"scopedb: tag 'x\\xff' is not valid UTF-8 (byte 0xff at offset 1); a store holds UTF-8 text only" \
	$S tag 1 $'x\xff' --db "$pgdb"
# a write the server refuses is an update that failed, not a read
psql_q "$pgdb" "CREATE ROLE ci LOGIN; GRANT USAGE ON SCHEMA public TO ci;
	GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ci;
	GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ci; REVOKE SELECT ON regions FROM ci" ||
	bad "cannot create the role"
ci=${pgdb/user=postgres/user=ci}
expect_err 2 "PostgreSQL: a write refused" \
	"scopedb: 'm.h5' not stored: cannot update store '$ci': permission denied for table regions" \
	$S ingest --db "$ci" m.h5 --commit abc1234
# VACUUM skips tables the role does not own with a warning only: vacuum
# would say it compacted and do nothing
expect_err 2 "PostgreSQL: vacuum by a role that owns no table" \
	"scopedb: cannot vacuum store '$ci': role 'ci' does not own 13 of its tables, and PostgreSQL lets only their owner, the database's owner or a superuser rewrite them; run 'scopedb vacuum' as the owner of the store's tables" \
	$S vacuum --db "$ci"
# a member of the owner's role that does not inherit its privileges
# (NOINHERIT) is skipped the same way
psql_q "$pgdb" "CREATE ROLE ni LOGIN NOINHERIT IN ROLE postgres; GRANT USAGE ON SCHEMA public TO ni;
	GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ni;
	GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO ni" || bad "cannot create the role ni"
expect_err 2 "PostgreSQL: vacuum by a NOINHERIT member" \
	"scopedb: cannot vacuum store '${pgdb/user=postgres/user=ni}': role 'ni' does not own 13 of its tables, and PostgreSQL lets only their owner, the database's owner or a superuser rewrite them; run 'scopedb vacuum' as the owner of the store's tables" \
	$S vacuum --db "${pgdb/user=postgres/user=ni}"
expect 0 "PostgreSQL: vacuum by the owner" $S vacuum --db "$pgdb"
finish
