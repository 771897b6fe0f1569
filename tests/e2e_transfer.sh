#!/usr/bin/env bash
# e2e_transfer.sh - scopedb push and pull between two SQLite stores (issue
# 17; between SQLite and PostgreSQL: e2e_postgres.sh): every run or the
# selected ones, with tags, metadata, timings and (--pins) pins; repeated
# transfers copy nothing; the copies answer diff, history and show exactly
# as the original; errors.
source "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?set MKPROFILE to the mkprofile binary}"
S=$SCOPEDB
today=$(date -u +%Y-%m-%d)
for i in 1 2 3; do
	"$MKPROFILE" --ranks 3 --regions solve,io --calls 50 --seed $i \
		--timestamp 2026-0$i-01T00:00:00Z r$i.h5 >/dev/null || exit 1
done
"$MKPROFILE" --ranks 2 --regions solve --calls 10 --seed 9 --aggregate agg.h5 >/dev/null || exit 1
$S ingest --db a.sqlite r1.h5 r2.h5 --tag nightly --meta build=7 >/dev/null 2>&1
$S ingest --db a.sqlite r3.h5 agg.h5 --commit abc1234 >/dev/null 2>&1
$S pin --db a.sqlite base 2 >/dev/null
# pinned long ago: a copied pin keeps that time
sqlite3 a.sqlite "UPDATE pins SET pinned_at = '2026-01-02T03:04:05Z'"

if tcase push; then
expect_err 0 "push all" "" $S push --db a.sqlite --to b.sqlite --pins
equals "push report" "$out" "copied run 1 (r1.h5) as run 1
copied run 2 (r2.h5) as run 2
copied run 3 (r3.h5) as run 3
copied run 4 (agg.h5) as run 4
pinned 'base' to run 2
pushed 4 runs to 'b.sqlite': 4 copied, 0 already there"
expect_err 0 "push again" "" $S push --db a.sqlite --to b.sqlite --pins
equals "push again copies nothing" "$(tail -2 <<<"$out")" "pin 'base' already names run 2
pushed 4 runs to 'b.sqlite': 0 copied, 4 already there"
for cmd in "runs --format json" "pins" "show 3" "meta 1" "diff 1 3 --metric p95" \
	"diff 1 2 --ranks 0,2 --metric p99" "history io --metric p50" "diff 4 1" \
	"history solve --ranks 1 --format csv"; do
	# (today's times masked: the ingest times)
	# shellcheck disable=SC2086
	equals "copy: $cmd" "$($S $cmd --db b.sqlite 2>&1 | sed "s/$today[T0-9:]*Z/NOW/")" \
		"$($S $cmd --db a.sqlite 2>&1 | sed "s/$today[T0-9:]*Z/NOW/")"
done
equals "copy: the pin's time" "$($S pins --db b.sqlite --format json)" \
	"$($S pins --db a.sqlite --format json)"
# a run the other store has keeps its tags there: a tag added since is
# not copied (nor is an untag there undone)
$S tag --db a.sqlite 3 release-1.0 >/dev/null
expect_err 0 "push a later tag" "" $S push --db a.sqlite --to b.sqlite 3
equals "push a later tag: skipped" "$out" "skipped run 3 (r3.h5): already stored as run 3
pushed 1 run to 'b.sqlite': 0 copied, 1 already there"
equals "push a later tag: not there" "$($S runs --db b.sqlite --tag release-1.0 --format csv 2>/dev/null | wc -l)" 1
$S untag --db a.sqlite 3 release-1.0 >/dev/null
# a new store in directories that do not exist yet: made, as ingest makes them
expect 0 "push into new directories" $S push --db a.sqlite --to new/dir/c.sqlite 1
equals "push into new directories: the run" "$($S runs --db new/dir/c.sqlite --format csv | wc -l)" 2

fi

if tcase pull; then
# selected runs, pulled; a pin elsewhere is left as is
expect_err 0 "pull two" "" $S pull --db c.sqlite --from a.sqlite --pins tag:nightly latest
equals "pull report" "$out" "copied run 2 (r2.h5) as run 1
copied run 3 (r3.h5) as run 2
pinned 'base' to run 1
pulled 2 runs from 'a.sqlite': 2 copied, 0 already there"
$S pin --db a.sqlite base 3 >/dev/null
expect_err 0 "pull the rest" "" $S pull --db c.sqlite --from a.sqlite --pins
equals "pull keeps a pin" "$out" "copied run 1 (r1.h5) as run 3
skipped run 2 (r2.h5): already stored as run 1
skipped run 3 (r3.h5): already stored as run 2
copied run 4 (agg.h5) as run 4
pin 'base' names run 1, left as is (not run 2)
pulled 4 runs from 'a.sqlite': 2 copied, 2 already there"
equals "pulled tags" "$($S runs --db c.sqlite --tag nightly --format csv | cut -d, -f1)" "id
1
3"
equals "without --pins no pin" "$($S push --db a.sqlite --to d.sqlite 1 >/dev/null; $S pins --db d.sqlite 2>&1)" "scopedb: no pins in store 'd.sqlite'"

fi

if tcase errors; then
# errors
expect_err 2 "push without --to" "scopedb: push needs --to DB, the store to copy the runs to
usage: scopedb push --to DB [RUN...] [<options>]" bash -c "$S push --db a.sqlite 2>&1 >/dev/null | head -2 >&2; exit 2"
# the other store's option named (an unset variable in a CI job)
expect_err 2 "push --to ''" "scopedb: --to '': empty store path (is a variable unset?)" \
	$S push --db a.sqlite --to ''
expect_err 2 "pull --from :memory:" \
	"scopedb: --from ':memory:': an in-memory store keeps nothing; give a file path" \
	$S pull --db a.sqlite --from :memory:
expect_err 2 "push --to file::memory:" \
	"scopedb: --to 'file::memory:': an in-memory store keeps nothing; give a file path" \
	$S push --db a.sqlite --to file::memory:
expect_err 2 "pull from a missing store" \
	"scopedb: cannot open store 'nowhere.sqlite': no such file or directory" \
	$S pull --db c.sqlite --from nowhere.sqlite
expect_err 2 "unknown run" "scopedb: no run with id 9" $S push --db a.sqlite --to e.sqlite 1 9
equals "an unknown run copies nothing" "$(ls e.sqlite 2>/dev/null)" ""
expect_error "a file is not a stored run" "invalid run selector 'r1.h5x'" \
	$S push --db a.sqlite --to e.sqlite r1.h5x
# a run the destination has is skipped even when a newer text rule would
# refuse it (a tag past 2,000 bytes, stored by an older scopedb)
$S push --db a.sqlite --to long.sqlite 1 >/dev/null
sqlite3 a.sqlite "insert into run_tags (run_id, tag) values (1, '$(printf '%2100s' | tr ' ' t)')"
expect_err 0 "a run there already, with a tag now too long" "" $S push --db a.sqlite --to long.sqlite 1
equals "skipped, not refused" "$out" "skipped run 1 (r1.h5): already stored as run 1
pushed 1 run to 'long.sqlite': 0 copied, 1 already there"
expect_error "a new run with a tag too long: refused" \
	"^scopedb: run 1 \(r1.h5\) not copied: tag 't+\.\.\.' is too long \(2100 bytes; a store indexes names of at most 2000\)$" \
	$S push --db a.sqlite --to long2.sqlite 1
sqlite3 a.sqlite "delete from run_tags where length(tag) > 2000"
# a store without runs (each removed) has nothing to copy: no store is
# created at the other end (docs/commands/push.md)
$S push --db a.sqlite --to empty.sqlite 1 >/dev/null
$S rm --db empty.sqlite 1 >/dev/null
expect_err 0 "push nothing" "" $S push --db empty.sqlite --to none.sqlite
equals "push nothing: said" "$out" "pushed 0 runs to 'none.sqlite': nothing to copy, 'none.sqlite' not created"
expect_err 0 "pull nothing" "" $S pull --from empty.sqlite --db none.sqlite
equals "pull nothing: said" "$out" "pulled 0 runs from 'empty.sqlite': nothing to copy, 'none.sqlite' not created"
equals "nothing to copy creates nothing" "$(ls none.sqlite* 2>/dev/null)" ""
fi
if tcase kept; then
# --- a run the destination has, with another commit, branch or label -------------
# is skipped, and what it keeps is said, as ingest says it: push and pull
# left the laptop's commit and branch behind without a word
"$MKPROFILE" --ranks 2 --seed 21 k.h5 >/dev/null || exit 1
$S ingest --db team.sqlite --branch main --commit 1111aaaa --label night k.h5 >/dev/null 2>&1
$S ingest --db lap.sqlite --branch feat --commit 2222bbbb --tag laptop k.h5 >/dev/null 2>&1
expect_err 0 "kept: push of a run stored otherwise" \
	"scopedb: warning: run 1 (k.h5) already stored as run 1 with commit 1111aaaa, not 2222bbbb, branch main, not feat, label night, not example; keeping it" \
	$S push --db lap.sqlite --to team.sqlite
equals "kept: skipped" "$out" "skipped run 1 (k.h5): already stored as run 1
pushed 1 run to 'team.sqlite': 0 copied, 1 already there"
expect_err 0 "kept: pull the other way" \
	"scopedb: warning: run 1 (k.h5) already stored as run 1 with commit 2222bbbb, not 1111aaaa, branch feat, not main, label example, not night; keeping it" \
	$S pull --db lap.sqlite --from team.sqlite
# (the profile's label is "example"); the same commit, branch and label:
# no warning, nor for what the source lacks
$S ingest --db same.sqlite --branch main --commit 1111aaaa --label night k.h5 >/dev/null 2>&1
sqlite3 same.sqlite "UPDATE runs SET branch = NULL"
expect_err 0 "kept: nothing differs" "" $S push --db same.sqlite --to team.sqlite
fi
finish
