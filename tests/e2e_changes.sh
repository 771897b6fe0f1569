#!/usr/bin/env bash
# End-to-end tests of "scopedb changes" and the change points of
# "scopedb history": a generated history of 30 nightly runs (one commit
# each) where every region but main gets 25 % slower at run 16, io also
# has one slow run (10), and halo is missing from runs 14 and 15 (so its
# change lies between the non-adjacent commits of runs 13 and 16), then
# two repetitions of the last commit.
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?}"
S=$SCOPEDB
export SCOPEDB_DB=$E2E_DIR/c.sqlite

commit() { printf 'c%02d%038d' "$1" 0; }
for i in $(seq 1 32); do
	args=()
	regions=main,solve,io,halo
	[ "$i" -ge 16 ] && args+=(--scale 1.25 --slow main=0.8)
	[ "$i" = 10 ] && args+=(--slow io=3)
	[ "$i" = 14 ] || [ "$i" = 15 ] && regions=main,solve,io
	"$MKPROFILE" --ranks 2 --regions $regions --calls 50 --seed "$i" "${args[@]}" \
		--timestamp "2026-01-$(printf %02d "$i")T02:00:00Z" "r$i.h5" >/dev/null
	c=$(commit "$i")
	[ "$i" -gt 30 ] && c=$(commit 30)
	"$S" ingest --quiet --branch main --commit "$c" "r$i.h5" >/dev/null || bad "ingest r$i"
done

# --- help and usage ----------------------------------------------------------
if tcase usage; then
expect 0 "help changes" $S help changes
contains "help changes usage" "$out" "usage: scopedb changes"
contains "help changes --min-change" "$out" "--min-change PCT"
expect 0 "--help lists changes" $S --help
contains "--help changes" "$out" "changes"
expect_err 2 "bad --sort" "scopedb: invalid --sort 'size': choose from time, pct" $S changes --sort size
expect_err 2 "bad --min-change" "scopedb: invalid --min-change 'x': expected a number (percent)" \
	$S changes --min-change x
expect_err 2 "negative --min-change" "scopedb: invalid --min-change '-1': must not be negative" \
	$S changes --min-change -1
expect_err 2 "missing store" "scopedb: cannot open store 'nope.sqlite': no such file or directory" \
	$S changes --db nope.sqlite
expect_err 2 "no region matches" "scopedb: no region matches 'zzz' in store '$SCOPEDB_DB'" \
	$S changes --include zzz
# a history too short for any change point says so, not "nothing changed"
# (in the document: stderr stays clean)
expect 0 "too short a history" $S changes --until 2026-01-05T23:59:59Z
contains "too short: says why" "$out" \
	"no change points: 5 runs, too few (a change point needs 6 commits, 3 on each side of it)"
# ... in markdown (a CI summary) as on the terminal, and in JSON
expect 0 "too short: markdown" $S changes --until 2026-01-05T23:59:59Z --format markdown
contains "too short: markdown says why" "$out" \
	"no change points: 5 runs, too few (a change point needs 6 commits, 3 on each side of it)"
not_contains "too short: markdown, no bare header" "$out" "| region |"
expect 0 "too short: json" $S changes --until 2026-01-05T23:59:59Z --format json
equals "too short: json says so" "$out" '{"metric": "total", "enough_history": false, "changes": []}'
expect 0 "long enough: plain" $S changes --until 2026-01-06T23:59:59Z
contains "long enough: plain" "$out" "no change points"
not_contains "long enough: not too few" "$out" "too few"
expect 0 "long enough: json" $S changes --until 2026-01-06T23:59:59Z --format json
equals "long enough: json" "$out" '{"metric": "total", "enough_history": true, "changes": []}'
# no run at all is no history, not a long one with no change
expect 0 "no run: json" $S changes --since 2030-01-01 --format json
equals "no run: not enough" "$out" '{"metric": "total", "enough_history": false, "changes": []}'
# history --changes-only says it the same way
expect 0 "history: too short a history" $S history solve --changes-only --until 2026-01-05T23:59:59Z
contains "history too short: says why" "$out" \
	"no change points: 5 runs, too few (a change point needs 6 commits, 3 on each side of it)"
expect 0 "history: too short, markdown" $S history solve --changes-only \
	--until 2026-01-05T23:59:59Z --format markdown
contains "history too short: markdown says why" "$out" \
	"no change points: 5 runs, too few (a change point needs 6 commits, 3 on each side of it)"
expect 0 "history: too short, json" $S history solve --changes-only \
	--until 2026-01-05T23:59:59Z --format json
equals "history too short: json says so" "$out" \
	'{"metric": "total", "regions": [
  {"name": "solve", "enough_history": false, "runs": []}
]}'
expect 0 "history: long enough, json" $S history solve --until 2026-01-06T23:59:59Z --format json
contains "history long enough: json" "$out" '{"name": "solve", "enough_history": true, "runs": ['
expect 0 "history: long enough" $S history main --changes-only --until 2026-01-06T23:59:59Z
not_contains "history long enough: not too few" "$out" "too few"
case "$out" in *"too few"*) bad "long enough: a too-short note: $out" ;; *) ok ;; esac
# runs of one commit are one point: 4 runs of 2 commits are too few
expect 0 "too few commits" $S changes --since 2026-01-29
contains "too few commits: says so" "$out" \
	"no change points: 4 runs of 2 commits, too few (a change point needs 6 commits, 3 on each side of it)"

fi

# --- changes -----------------------------------------------------------------------
expect 0 "changes json" $S changes --format json
equals "json keys" "$(printf '%s' "$out" | jq -c 'keys')" '["changes","enough_history","metric"]'
equals "json regions" "$(printf '%s' "$out" | jq -c '[.changes[].region]')" '["halo","io","solve"]'
equals "json change keys" "$(printf '%s' "$out" | jq -c '.changes[0] | keys_unsorted')" \
	'["region","before","after","pct","p","runs_before","runs_after","at_run","provisional","confirm_runs"]'
equals "json side keys" "$(printf '%s' "$out" | jq -c '.changes[0].before | keys_unsorted')" \
	'["run","commit","recorded_at","value"]'
equals "solve runs" "$(printf '%s' "$out" | jq -c '.changes[2] | [.before.run, .after.run]')" '[15,16]'
equals "solve commits" "$(printf '%s' "$out" | jq -r '.changes[2] | .before.commit + " " + .after.commit')" \
	"$(commit 15) $(commit 16)"
equals "solve recorded" "$(printf '%s' "$out" | jq -r '.changes[2].after.recorded_at')" "2026-01-16T02:00:00Z"
equals "solve runs around" "$(printf '%s' "$out" | jq -c '.changes[2] | [.runs_before, .runs_after]')" '[15,17]'
equals "solve pct ~ +25" "$(printf '%s' "$out" | jq '.changes[2].pct | . > 20 and . < 30')" true
equals "solve significant" "$(printf '%s' "$out" | jq '.changes[2].p < 0.001')" true
# the typical values are the medians of the runs' totals before and after
t_before=$($S history solve --format csv | awk -F, 'NR > 1 && NR <= 16 { print $6 }' | sort -g |
	awk '{ v[NR] = $1 } END { print v[(NR + 1) / 2] }')
equals "solve before = median" "$(printf '%s' "$out" | jq '.changes[2].before.value')" "$t_before"
pct=$(printf '%s' "$out" | jq '.changes[2] | (.after.value / .before.value - 1) * 100 | . * 1e6 | round')
equals "pct = after / before" "$pct" "$(printf '%s' "$out" | jq '.changes[2].pct * 1e6 | round')"
equals "halo runs (14, 15 lack it)" "$(printf '%s' "$out" | jq -c '.changes[0] | [.before.run, .after.run]')" '[13,16]'

expect 0 "changes table" $S changes
contains "table title" "$out" "Change points of total (seconds) over 32 runs and 4 regions, newest first:"
contains "table header" "$out" "region  runs      commits                     recorded"
contains "halo range" "$out" "halo    13 -> 16  c13000000000..c16000000000  2026-01-16T02:00:00Z"
contains "solve range of adjacent runs" "$out" "solve   15 -> 16  c15000000000..c16000000000  2026-01-16T02:00:00Z"
equals "io: the step, not the spike" "$(printf '%s\n' "$out" | grep -c '^io ')" 1
equals "main: steady" "$(printf '%s\n' "$out" | grep -c '^main')" 0

expect 0 "changes csv" $S changes --format csv
equals "csv header" "$(printf '%s\n' "$out" | head -1)" \
	"region,before_run,before_commit,before_recorded_at,before_value,after_run,after_commit,after_recorded_at,after_value,pct,p,runs_before,runs_after,at_run,provisional,confirm_runs"
equals "csv rows" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1,2,6,12,13 | tr '\n' ' ')" \
	"halo,13,16,13,17 io,15,16,15,17 solve,15,16,15,17 "
# p as JSON writes it (the shortest exact text), not 17 digits
csv_p=$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f11 | tr '\n' ' ')
expect 0 "changes json for p" $S changes --format json
equals "csv p = json p" "$csv_p" "$(printf '%s' "$out" | grep -o '"p": [^,]*' | cut -d' ' -f2 | tr '\n' ' ')"
expect 0 "changes markdown" $S changes --format markdown
contains "markdown row" "$out" "| solve | 15 -> 16 | c15000000000..c16000000000 |"

# --sort pct: the largest |change| first; --min-change above all: none
expect 0 "sort pct" $S changes --sort pct --format json
equals "sort pct order" "$(printf '%s' "$out" | jq '[.changes[].pct | fabs] | . == (sort | reverse)')" true
equals "sort pct all" "$(printf '%s' "$out" | jq '.changes | length')" 3
expect 0 "min-change 40" $S changes --min-change 40
contains "min-change none" "$out" "no change points"
expect 0 "include" $S changes --include so --format csv
equals "include solve" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1)" "solve"
expect 0 "exclude" $S changes --exclude so --format csv
equals "exclude solve" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1 | tr '\n' ' ')" "halo io "
# from run 11 on: 5 runs before the changes
expect 0 "since" $S changes --since 2026-01-11 --format csv
equals "since rows" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1 | tr '\n' ' ')" "halo io solve "
expect 0 "until" $S changes --until 2026-01-15 --format csv
equals "until none" "$(printf '%s\n' "$out" | tail -n +2 | wc -l)" 0
expect 0 "no runs" $S changes --since 2027-01-01
contains "no runs: empty table" "$out" "over 0 runs and 0 regions"
equals "no runs: said" "$err" "scopedb: no run matches the filters"
if tcase changes; then
expect 0 "no such branch" $S changes --branch mian
equals "no such branch: nearest" "$err" "scopedb: no run has branch 'mian'; did you mean 'main'?"
expect 0 "calls: steady" $S changes --metric calls --format csv
equals "calls none" "$(printf '%s\n' "$out" | tail -n +2 | wc -l)" 0

fi

# --- history marks ---------------------------------------------------------------
if tcase history-marks; then
expect 0 "history marks" env LC_ALL=C $S history solve
equals "history one mark" "$(printf '%s\n' "$out" | grep -c '<- change point')" 1
contains "history mark row" "$(printf '%s\n' "$out" | grep '<- change point')" " 16  2026-01-16T02:00:00Z"
expect 0 "history spike unmarked" $S history io --format csv
equals "history io: only the step" "$(printf '%s\n' "$out" | awk -F, '$9 == 1 { print $2 }')" "16"
expect 0 "history csv change_point" $S history solve --format csv
equals "history csv marked" "$(printf '%s\n' "$out" | awk -F, '$9 == 1 { print $2 }')" "16"
expect 0 "history changes-only" $S history solve --changes-only --format csv
equals "changes-only rows" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f2)" "16"
expect 0 "history changes-only none" $S history main --changes-only
contains "changes-only empty" "$out" "no change points"
expect 0 "history match changes-only" $S history --match '.' --changes-only --format json
equals "match changes-only regions" "$(printf '%s' "$out" | jq -c '[.regions[] | [.name, .runs[0].id]]')" \
	'[["halo",16],["io",16],["solve",16]]'
expect 0 "history markdown mark" $S history solve --format markdown
contains "markdown note" "$out" "(change point +"

fi

# --- issue 23: a step in the newest run is provisional; a small step is
# placed on the runs it may lie in; --same; the status in every format ---------
if tcase status; then
expect 0 "status: confirmed" $S changes
contains "status column" "$out" "status"
contains "solve confirmed" "$(printf '%s\n' "$out" | grep '^solve')" "confirmed"
expect 0 "json not provisional" $S changes --format json
equals "json provisional" "$(printf '%s' "$out" | jq -c '[.changes[] | [.provisional, .confirm_runs, .at_run]]')" \
	'[[false,null,16],[false,null,16],[false,null,16]]'
fi

# slow_io SEED TIME: run rSEED.h5 on main, io 40% slower than the first runs,
# recorded at TIME, ingested with commit SEED
slow_io() {
	"$MKPROFILE" --ranks 2 --regions main,solve,io,halo --calls 50 --seed "$1" --scale 1.25 \
		--slow main=0.8 --slow io=1.4 --timestamp "$2" "r$1.h5" >/dev/null
	"$S" ingest --quiet --branch main --commit "$(commit "$1")" "r$1.h5" >/dev/null || bad "ingest r$1"
}

if tcase provisional; then
# run 33: io 40% slower: one run after the step, two more would confirm it
# (run 32's timestamp, January 32nd, is no date: it sorts by its ingest
# time, so the runs that follow it are recorded far ahead)
slow_io 33 2099-01-01T02:00:00Z
expect 0 "provisional" $S changes --include io
contains "provisional row" "$(printf '%s\n' "$out" | grep '^io ' | head -1)" \
	"io      32 -> 33  c30000000000..c33000000000"
contains "provisional status" "$(printf '%s\n' "$out" | grep '^io ' | head -1)" \
	"provisional: 2 more runs"
expect 0 "provisional json" $S changes --include io --format json
equals "provisional json fields" \
	"$(printf '%s' "$out" | jq -c '.changes[0] | [.before.run, .after.run, .at_run, .provisional, .confirm_runs, .runs_after]')" \
	'[32,33,33,true,2,1]'
expect 0 "provisional csv" $S changes --include io --format csv
equals "provisional csv fields" "$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f1,14-16)" "io,33,1,2"
expect 0 "history provisional" env LC_ALL=C $S history io --changes-only
contains "history provisional mark" "$out" "<- provisional change +"
contains "history provisional runs" "$out" "(2 more runs)"
expect 0 "history provisional csv" $S history io --format csv
equals "history csv provisional" "$(printf '%s\n' "$out" | awk -F, '$10 == 1 { print $2 }')" "33"
# a second run at that level: one more would confirm it
slow_io 34 2099-01-02T02:00:00Z
expect 0 "provisional, one more" $S changes --include io --format json
equals "one more run" "$(printf '%s' "$out" | jq -c '.changes[0] | [.after.run, .provisional, .confirm_runs]')" \
	'[33,true,1]'
# and a third: confirmed
slow_io 35 2099-01-03T02:00:00Z
expect 0 "confirmed at last" $S changes --include io --format json
equals "confirmed" "$(printf '%s' "$out" | jq -c '.changes[0] | [.after.run, .provisional, .confirm_runs]')" \
	'[33,false,null]'

fi

if tcase same; then
# --same over a history of two machines: runs 36..59 alternate between
# hostname A and B (B 1.3x slower), solve 20% slower from run 48 on; the
# machines hide it, --same hostname (the newest run's: B) finds it.  The
# run ids below are those after the provisional case (36..59); alone,
# this case's runs start at 33: runid() maps the loop's i to its run.
n0=$(sqlite3 "$SCOPEDB_DB" "SELECT max(id) FROM runs") || bad "sqlite3 max(id)"
runid() { echo $(($1 - 35 + n0)); }
for i in $(seq 36 59); do
	h=A
	args=(--scale 1.0)
	[ $((i % 2)) = 1 ] && h=B && args=(--scale 1.3)
	[ "$i" -ge 48 ] && args+=(--slow solve=1.2)
	"$MKPROFILE" --ranks 2 --regions main,solve,io,halo --calls 50 --seed "$i" "${args[@]}" \
		--timestamp "2026-03-$(printf %02d $((i - 35)))T02:00:00Z" "m$i.h5" >/dev/null
	"$S" ingest --quiet --branch alt --commit "$(commit "$i")" --meta "hostname=$h" "m$i.h5" \
		>/dev/null || bad "ingest m$i"
done
expect 0 "same: hidden by the machines" $S changes --branch alt
contains "same: nothing without" "$out" "no change points"
expect 0 "same: table" $S changes --branch alt --same hostname
# (12 runs of A: the oldest, run 36, too; it was 11, counting only the
# runs between the kept ones)
contains "same: line" "$out" "Like with like: hostname = B (12 runs of another value left out)"
contains "same: solve" "$(printf '%s\n' "$out" | grep '^solve')" "confirmed"
expect 0 "same: json" $S changes --branch alt --same hostname --format json
equals "same: json same" "$(printf '%s' "$out" | jq -c '.same')" \
	'{"keys":{"hostname":"B"},"skipped":[],"left_out":12}'
equals "same: the solve step" \
	"$(printf '%s' "$out" | jq -c --argjson b "$(runid 49)" '[.changes[] | select(.region == "solve") | .before.run < $b and .after.run >= $b]')" \
	'[true]'
SCOPEDB_SAME=hostname expect 0 "same: from the environment" $S changes --branch alt --format csv
equals "same: env rows" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1 | tr '\n' ' ')" "solve "
expect 0 "same: history" $S history solve --branch alt --same hostname --format csv
equals "same: history runs" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f2 | tr '\n' ' ')" \
	"$(for i in $(seq 37 2 59); do printf '%s ' "$(runid "$i")"; done)"
expect 0 "same: history json" $S history solve --branch alt --same hostname --format json
equals "same: history json same" "$(printf '%s' "$out" | jq -c '.same.left_out')" 12
expect 0 "same: history --limit" $S history solve --branch alt --same hostname --limit 3 --format json
equals "same: within the runs read (4: one more for the first delta)" \
	"$(printf '%s' "$out" | jq -c '.same.left_out')" 3
expect_err 2 "same: no such key" \
	"scopedb: --same 'hostnam': run $(runid 59) has no metadata key 'hostnam'; did you mean 'hostname'?" \
	$S changes --branch alt --same hostnam

fi

if tcase branches; then
# a history of two branches (a store of its own): the table says their
# levels mix and names them (escaped), not with --branch; none in JSON
b=$E2E_DIR/b.sqlite
for i in $(seq 1 8); do
	br=main
	[ $((i % 2)) = 0 ] && br=$'dev\e[2J'
	"$MKPROFILE" --ranks 2 --regions main,solve --calls 20 --seed "$i" \
		--timestamp "2026-01-0${i}T02:00:00Z" "b$i.h5" >/dev/null
	"$S" ingest --db "$b" --quiet --branch "$br" --commit "$(commit "$i")" "b$i.h5" >/dev/null ||
		bad "ingest b$i"
done
expect 0 "branches: table" $S changes --db "$b"
contains "branches: note" "$out" \
	"Note: these runs are of 2 branches (dev?[2J, main), whose levels mix: --branch NAME follows one."
expect 0 "branches: one branch" $S changes --db "$b" --branch main
not_contains "branches: no note with --branch" "$out" "Note:"
expect 0 "branches: json" $S changes --db "$b" --format json
not_contains "branches: not in json" "$out" "Note:"
expect 0 "one branch: no note" $S changes --branch main
not_contains "one branch: no note" "$out" "Note:"
fi

finish
