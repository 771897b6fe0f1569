#!/usr/bin/env bash
# e2e_concurrency.sh - concurrent writers and readers on one store (issue 5,
# part 2).
#
# 8 writer processes each ingest 25 distinct profiles (5 `scopedb ingest`
# invocations of 5 files, one transaction per file) into one store that does
# not exist yet, so they also race to create and migrate it.  Meanwhile two
# more processes ingest the same 10 profiles at the same time (with
# different tags), and readers loop over `scopedb runs --format json`,
# `scopedb diff latest latest~1`, `scopedb history` (when that command
# exists) and an sqlite3 query that, inside one read transaction, compares
# every run's num_calls and row counts with its timings.
# Proves: every command exits 0 (no "database is locked"), all 200 runs land
# exactly once with their tags, readers never see a half-stored run, the
# duplicated profiles are stored once each carrying both tags, and the store
# passes integrity_check.
#
# The profiles are 8 small mkprofile files (one per writer, different seeds
# and call counts) copied 25 times with the label patched in place
# ("conc-W-NNN", same length), so the contents differ at almost no cost.
source "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?set MKPROFILE to the mkprofile binary}"

writers=8
per_writer=25
batch=5
ndup=10
db=conc.sqlite
log=$E2E_DIR/log
mkdir -p "$log"

# calls per (rank, region) of writer w's files; 2 ranks x 3 regions
calls_of() { echo $((5 + $1)); }

# patch SRC DST LABEL: copy with the 10-byte label placeholder replaced
patch() { LC_ALL=C perl -0777 -pe "s/conc-0-000/$3/g" "$1" >"$2"; }

for ((w = 0; w < writers; w++)); do
	"$MKPROFILE" --ranks 2 --regions a,b,c --calls "$(calls_of $w)" --seed $((w + 1)) \
		--label conc-0-000 base$w.h5 >/dev/null || exit 1
	for ((k = 0; k < per_writer; k++)); do
		patch base$w.h5 "w$w-$k.h5" "$(printf 'conc-%d-%03d' $w $k)"
	done
done
for ((k = 0; k < ndup; k++)); do
	patch base0.h5 "dup-$k.h5" "$(printf 'dupl-0-%03d' $k)"
done
equals "the patched files are all different" \
	"$(sha256sum w*-*.h5 dup-*.h5 | cut -d' ' -f1 | sort -u | wc -l)" $((writers * per_writer + ndup))

history=0
if "$SCOPEDB" history --help >/dev/null 2>&1; then history=1; else
	note "no 'scopedb history' command yet; its reader is skipped"
fi

# A reader: runs its check in a loop until the writers are done; every
# failure is written to $log/fail-NAME.
reader() {
	local name=$1 n=0
	shift
	while [ ! -e "$log/done" ]; do
		"$@" || echo "iteration $n failed" >>"$log/fail-$name"
		n=$((n + 1))
	done
	echo "$n" >"$log/iterations-$name"
}

# `scopedb runs --format json`: exit 0 and every listed conc/dupl run has
# all its calls (the label says which writer's profile it is).
check_runs() {
	local out
	out=$("$SCOPEDB" runs --db "$db" --format json 2>"$log/runs.err") ||
		{ cat "$log/runs.err" >>"$log/fail-runs"; return 1; }
	# label "conc-W-NNN"/"dupl-W-NNN" -> the run must have 6 * (5 + W) calls
	awk '/"label": "(conc|dupl)-/ {
		l = $0; sub(/.*"label": "/, "", l); sub(/".*/, "", l)
		c = $0; sub(/.*"num_calls": /, "", c); sub(/,.*/, "", c)
		split(l, p, "-")
		if (c + 0 != 6 * (5 + p[2])) { print "run " l " listed with " c " calls"; bad = 1 }
	} END { exit bad }' <<<"$out" >>"$log/fail-runs"
}

check_diff() {
	"$SCOPEDB" diff --db "$db" latest latest~1 --format json >/dev/null 2>>"$log/fail-diff"
}

check_history() {
	"$SCOPEDB" history --db "$db" a >/dev/null 2>>"$log/fail-history"
}

# One read transaction: runs whose num_calls, ranks or rows disagree with
# their timings and durations (a half-stored run would).
check_sql() {
	local bad_runs
	bad_runs=$(sqlite3 -cmd '.timeout 30000' "$db" "
		select count(*) from runs r where r.num_calls !=
			(select coalesce(sum(calls), 0) from timings where run_id = r.id)
		or r.num_ranks * r.num_regions != (select count(*) from timings where run_id = r.id)
		or r.num_ranks * r.num_regions != (select count(*) from timings_durations d
			join timings t on t.id = d.timing_id where t.run_id = r.id)
		or r.num_calls = 0" 2>&1)
	[ "$bad_runs" = 0 ] || { echo "half-stored runs: $bad_runs" >>"$log/fail-sql"; return 1; }
}

# writer W: 5 ingest commands of 5 files each
writer() {
	local w=$1 g k files
	for ((g = 0; g < per_writer / batch; g++)); do
		files=()
		for ((k = g * batch; k < (g + 1) * batch; k++)); do files+=("w$w-$k.h5"); done
		"$SCOPEDB" ingest --db "$db" --commit "a1b2c3d$w" --tag "w$w" --tag "it's;--" "${files[@]}" \
			>>"$log/out-w$w" 2>>"$log/err-w$w" || echo "exit $?" >>"$log/err-w$w"
	done
}

# duplicate writer: each of the 10 shared files on its own, like a CI job
dup_writer() {
	local tag=$1 k
	for ((k = 0; k < ndup; k++)); do
		"$SCOPEDB" ingest --db "$db" --commit c1c1c1c --tag "$tag" "dup-$k.h5" \
			>>"$log/out-$tag" 2>>"$log/err-$tag" || echo "exit $?" >>"$log/err-$tag"
	done
}

if tcase writers-and-readers; then
start=$(date +%s)
pids=()
for ((w = 0; w < writers; w++)); do
	writer $w &
	pids+=($!)
done
dup_writer dupA &
pids+=($!)
dup_writer dupB &
pids+=($!)

# readers start once two runs are stored (diff needs latest~1)
for ((k = 0; k < 3000; k++)); do
	n=$(sqlite3 -cmd '.timeout 30000' "$db" "select count(*) from runs" 2>/dev/null)
	[ "${n:-0}" -ge 2 ] 2>/dev/null && break
	sleep 0.01
done
note "readers start after $(($(date +%s) - start)) s"
rpids=()
reader runs check_runs &
rpids+=($!)
reader diff check_diff &
rpids+=($!)
reader sql check_sql &
rpids+=($!)
if [ "$history" -eq 1 ]; then
	reader history check_history &
	rpids+=($!)
fi

for p in "${pids[@]}"; do wait "$p"; done
touch "$log/done"
for p in "${rpids[@]}"; do wait "$p"; done
note "writers and readers took $(($(date +%s) - start)) s"

# every command succeeded, none said "locked"
for f in "$log"/err-* "$log"/fail-*; do
	[ -e "$f" ] || continue
	if [ -s "$f" ]; then bad "$(basename "$f"): $(head -c 600 "$f")"; else ok; fi
done
if grep -rqi "locked" "$log"; then bad "some command reported a lock: $(grep -rhi locked "$log" | head -3)"; else ok; fi
for r in runs diff sql history; do
	[ "$r" = history ] && [ "$history" -eq 0 ] && continue
	n=$(cat "$log/iterations-$r" 2>/dev/null || echo 0)
	note "reader $r: $n iterations"
	if [ "$n" -ge 1 ]; then ok; else bad "reader $r never ran"; fi
done

# all 200 runs exactly once, with their writer's tags and all their calls
for ((w = 0; w < writers; w++)); do
	equals "writer $w: stored lines" "$(grep -c "^run [0-9]*: w$w-" "$log/out-w$w")" "$per_writer"
	equals "writer $w: runs in the store" "$(sqlite3 "$db" "select count(*), count(distinct label),
		sum(num_calls), min(num_calls) from runs r where label like 'conc-$w-%'
		and exists (select 1 from run_tags where run_id = r.id and tag = 'w$w')
		and exists (select 1 from run_tags where run_id = r.id and tag = 'it''s;--')")" \
		"$per_writer|$per_writer|$((per_writer * 6 * $(calls_of $w)))|$((6 * $(calls_of $w)))"
done
equals "runs in total" "$(sqlite3 "$db" "select count(*), count(distinct sha256) from runs")" \
	"$((writers * per_writer + ndup))|$((writers * per_writer + ndup))"

# the duplicated profiles: stored once, by one of the two jobs, both tags
equals "duplicates: stored once each with both tags" "$(sqlite3 "$db" "
	select count(*), sum((select count(*) from run_tags where run_id = r.id
		and tag in ('dupA', 'dupB'))) from runs r where label like 'dupl-%'")" "$ndup|$((2 * ndup))"
equals "duplicates: one 'stored' and one 'already stored' line per file" \
	"$(cat "$log/out-dupA" "$log/out-dupB" | grep -c '^run [0-9]*: dup-') $(cat "$log/out-dupA" \
		"$log/out-dupB" | grep -c 'already stored as run')" "$ndup $ndup"

check_sql && ok || bad "final store has half-stored runs: $(<"$log/fail-sql")"
equals "integrity_check" "$(sqlite3 "$db" 'pragma integrity_check')" ok
equals "foreign_key_check" "$(sqlite3 "$db" 'pragma foreign_key_check' | wc -l)" 0
fi

finish
