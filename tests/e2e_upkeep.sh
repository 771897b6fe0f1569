#!/usr/bin/env bash
# End-to-end tests of store upkeep and everyday commands (issue 12): -V,
# --version and version; help CMD (summary first, aligned options); prune
# (--older-than, --keep-last per branch, --branch, --dry-run, pinned runs
# never removed, the bytes it frees); rm of several selectors; runs
# --limit 0 refused; ingest creating the directories of a new store; and
# no new empty store left behind by a command that stores nothing.
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?}"
S=$SCOPEDB

# --- version and help --------------------------------------------------------
if tcase version-help; then
for v in -V --version version; do
	expect 0 "$v" $S $v
	equals "$v output" "$out" "scopedb $(sed -n 's/^project(scopedb VERSION \([0-9.]*\).*/\1/p' \
		"$(dirname "$0")/../CMakeLists.txt")"
done
run $S help prune
equals "help starts with the summary" "$(printf '%s\n' "$out" | head -3)" \
	"scopedb prune - remove old runs, keeping the newest of each branch and pinned runs

usage: scopedb prune [<options>]"
run $S help check
# every help line of an option starts at the same column (23), also
# after a name too long for it, which gets a line of its own
equals "help aligned" "$(printf '%s\n' "$out" | grep -A1 -e '^    --allow-different KEY$')" \
	"    --allow-different KEY
                       compare runs whose metadata KEY differs (repeatable)"
bad_lines=$(printf '%s\n' "$out" | grep -E '^    -' | grep -vE '^    (-., )?--[a-z-]+( [^ ]+)?( {2,}|$)')
equals "option lines" "$bad_lines" ""

fi

if tcase limit; then
# --- runs --limit 0 --------------------------------------------------------------
expect_err 2 "limit 0" \
	"scopedb: invalid --limit '0': expected a positive integer (without --limit, every run is listed)" \
	$S runs --limit 0

fi

if tcase no-empty-store; then
# --- no empty store left behind; ingest creates directories ----------------------
"$MKPROFILE" --seed 1 --timestamp 2026-01-01T00:00:00Z p1.h5 >/dev/null || exit 1
echo 'not hdf5' >text.h5
expect_err 2 "runs on a new path" "scopedb: cannot open store 'new.sqlite': no such file or directory" \
	$S runs --db new.sqlite
expect 2 "ingest of a non-profile" $S ingest --db new.sqlite text.h5
expect 2 "ingest of a missing file" $S ingest --db sub/dir/new.sqlite missing.h5
expect 2 "ingest json of a non-profile" $S ingest --db new.sqlite --format json text.h5
equals "json error" "$out" '[
  {"run": null, "path": "text.h5", "status": "error", "error": "cannot read '"'text.h5'"': not an HDF5 file"}
]'
equals "no store, no directory left" "$(ls -d new.sqlite* sub 2>/dev/null)" ""
expect 2 "non-profile first, then a profile" $S ingest --db sub/dir/s.sqlite --commit abcd1 text.h5 p1.h5
equals "stored into new directories" "$out" "run 1: p1.h5: 4 ranks, 5 regions, 2,000 calls"
equals "store created" "$(ls sub/dir)" "s.sqlite"
echo file >plain
expect_err 2 "directory under a file" \
	"scopedb: cannot open store 'plain/x.sqlite': not a directory" \
	$S ingest --db plain/x.sqlite --commit abcd1 p1.h5
mkdir ro && chmod 555 ro
if [ "$(id -u)" -ne 0 ]; then
	expect_err 2 "unwritable parent" \
		"scopedb: cannot create directory 'ro/d' for store 'ro/d/x.sqlite': permission denied" \
		$S ingest --db ro/d/x.sqlite --commit abcd1 p1.h5
fi

fi

if tcase prune-rm; then
# --- prune ---------------------------------------------------------------------
# seven runs a month apart (3000 calls per rank and region: a run takes
# several pages of the store): 1-4 on main, 5-6 on dev, 7 without a branch
export SCOPEDB_DB=$E2E_DIR/p.sqlite
for i in 1 2 3 4 5 6 7; do
	"$MKPROFILE" --seed $i --calls 3000 --timestamp 2026-0$i-01T00:00:00Z r$i.h5 >/dev/null || exit 1
done
$S ingest -q --commit aaaa1 --branch main r1.h5 r2.h5 r3.h5 r4.h5 >/dev/null || exit 1
$S ingest -q --commit bbbb1 --branch dev r5.h5 r6.h5 >/dev/null || exit 1
$S ingest -q --commit cccc1 r7.h5 >/dev/null 2>&1 || exit 1
$S pin base 1 >/dev/null || exit 1
ids() { sqlite3 "$SCOPEDB_DB" 'select group_concat(id, " ") from (select id from runs order by id)'; }
used() { sqlite3 "$SCOPEDB_DB" 'select (select page_count from pragma_page_count) - (select freelist_count from pragma_freelist_count)'; }

expect_err 2 "prune needs a condition" \
	"scopedb: prune needs --older-than DATE or --keep-last N (or both)
usage: $($S help prune | sed -n '3,$p' | sed 's/^usage: //')" $S prune
expect_err 2 "keep-last 0" "scopedb: invalid --keep-last '0': expected a positive integer" \
	$S prune --keep-last 0
expect_err 2 "prune bad date" \
	"scopedb: invalid --older-than 'soon': expected an ISO-8601 date or a relative age such as 7d" \
	$S prune --older-than soon

pages=$(used)
expect 0 "dry run" $S prune --older-than 2026-04-01 --dry-run
equals "dry run output" "$(printf '%s\n' "$out" | sed -n '1,3p')" \
	"kept run 1 (pinned as 'base')
would remove run 2 (recorded 2026-02-01T00:00:00Z, branch main)
would remove run 3 (recorded 2026-03-01T00:00:00Z, branch main)"
case "$(printf '%s\n' "$out" | sed -n '4p')" in
"would prune 2 runs ("*" KiB); 1 pinned run kept") ok ;;
*) bad "dry run total: $out" ;;
esac
equals "dry run removes nothing" "$(ids)" "1 2 3 4 5 6 7"
equals "dry run frees nothing" "$(used)" "$pages"

# keep the newest 2 of each branch (the runs without one are a branch):
# main keeps 4 and 3 (1 is pinned), dev keeps 6 and 5, 7 is alone
expect 0 "keep-last" $S prune --keep-last 2
equals "keep-last output" "$(printf '%s\n' "$out" | sed -n '1,2p')" \
	"kept run 1 (pinned as 'base')
removed run 2 (recorded 2026-02-01T00:00:00Z, branch main)"
total=$(printf '%s\n' "$out" | sed -n '3p')
case "$total" in
"pruned 1 run ("*"); 1 pinned run kept; 'scopedb vacuum' gives the space back to the file system") ok ;;
*) bad "keep-last total: $total" ;;
esac
equals "keep-last left" "$(ids)" "1 3 4 5 6 7"
# the bytes reported are the pages the store no longer uses
page_size=$(sqlite3 "$SCOPEDB_DB" 'pragma page_size')
freed=$(((pages - $(used)) * page_size))
want=$(awk -v b="$freed" 'BEGIN { if (b < 1024) printf "%d bytes", b; else printf "%.1f KiB", b / 1024 }')
contains "bytes freed" "$total" "($want)"
[ "$freed" -gt 0 ] && ok || bad "prune freed no page"

expect 0 "branch and age" $S prune --branch dev --older-than 2026-06-01
equals "branch and age output" "$out" \
	"removed run 5 (recorded 2026-05-01T00:00:00Z, branch dev)
pruned 1 run (${out##*\(}"
equals "branch and age left" "$(ids)" "1 3 4 6 7"
expect 0 "relative age, nothing left to prune" $S prune --older-than 9999d
equals "nothing to prune" "$out" "pruned 0 runs (0 bytes)"
# age alone never empties a branch: every run is older than tomorrow, and
# the newest of each branch stays (--keep-last 1)
expect 0 "age alone, dry run" $S prune --older-than "$(date -u -d tomorrow +%Y-%m-%d)" --dry-run
equals "age alone keeps the newest of each branch" \
	"$(printf '%s\n' "$out" | grep -c '^would remove')" 1
contains "age alone removes the older one" "$out" "would remove run 3 "
expect 0 "all but the newest" $S prune --keep-last 1 --older-than 2026-12-01
equals "all but the newest left" "$(ids)" "1 4 6 7"
expect_err 2 "prune of a missing store" "scopedb: cannot open store 'none.sqlite': no such file or directory" \
	$S prune --keep-last 1 --db none.sqlite
equals "missing store not created" "$(ls none.sqlite* 2>/dev/null)" ""

# --- rm takes several selectors ----------------------------------------------------
expect 0 "rm several" $S rm 4 branch:dev
equals "rm several output" "$out" "removed run 4
removed run 6"
equals "rm several left" "$(ids)" "1 7"
expect_err 2 "rm all or nothing" "scopedb: no run has tag 'nope'" $S rm 7 tag:nope
equals "rm all or nothing left" "$(ids)" "1 7"

fi

finish
