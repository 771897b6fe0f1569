#!/usr/bin/env bash
# e2e_export.sh - scopedb export (issue 25, docs/export.md):
#  - csv: one row per (run, call path, rank) of a run with a call tree (per
#    region of one without), the numbers show --by path prints (per-rank
#    totals summed, extremes, calls, self), percentiles of a one-rank run
#    equal to show's;
#  - caliper: one JSON-split file per run with the structure Hatchet's
#    Caliper reader needs (data rows of as many cells as columns, a node
#    index in range for each, column_metadata beside columns, the column
#    names it renames: sum#time.duration, inclusive#sum#time.duration,
#    mpi.rank), the run's description and metadata as top-level keys, a
#    metadata key that would replace one of the document's keys written
#    as metadata.KEY;
#  - path-keys: a path escaped as show --by path writes it (the region
#    "a > b" is not b under a), an aggregate run's rank without calls has
#    no time in the csv and the Caliper file;
#  - scope-profiler-json: a stored run as upstream's JSON profile, which
#    ingested again gives the same numbers (real and random profiles of
#    every layout);
#  - selectors or filters choose the runs; errors leave nothing written;
#  - the PostgreSQL backend exports the same bytes (when it is built).
source "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?set MKPROFILE to the mkprofile binary}"
S=$SCOPEDB
real=$(cd "$(dirname "$0")" && pwd)/data/real
C=0123456789abcdef0123456789abcdef01234567

expect 0 "ingest real" $S ingest --db s.sqlite --commit $C --branch main --tag nightly \
	--meta data=evil --meta nodes=evil2 "$real/nested-base.h5" "$real/mpi2-base.h5" \
	"$real/fib-recursive.h5"
"$MKPROFILE" --seed 4 --ranks 3 --aggregate agg.h5 >/dev/null || exit 1
expect 0 "ingest aggregate" $S ingest --db s.sqlite --commit $C --branch dev agg.h5

if tcase csv; then
	# a name ending in .gz is compressed, as for scope-profiler-json
	expect 0 "csv.gz" $S export --db s.sqlite -o all.csv.gz
	expect 0 "csv.GZ" $S export --db s.sqlite -o ALL.CSV.GZ
	expect 0 "csv" $S export --db s.sqlite
	equals "csv.gz: the same table, compressed" "$(zcat all.csv.gz)" "$out"
	equals "csv.GZ: the same table, compressed" "$(zcat ALL.CSV.GZ)" "$out"
	equals "csv header" "$(head -1 <<<"$out")" \
		"run,commit,branch,label,recorded,path,rank,calls,total,self,min,max,p50,p95,p99"
	# the rows of run 2 (2 ranks, a call tree) are its call paths, and a
	# path's rows sum to show --by path's calls and total
	for r in "main" "main > timestep" "main > timestep > solve > precondition"; do
		want=$($S show 2 --db s.sqlite --by path --format csv --columns calls,total |
			awk -F, -v r="$r" '$1 == r { printf "%d,%.9f", $2, $3 }')
		got=$(awk -F, -v r="$r" '$1 == 2 && $6 == r { c += $8; t += $9 } END { printf "%d,%.9f", c, t }' <<<"$out")
		equals "csv run 2 '$r' calls,total" "$got" "$want"
	done
	# a one-rank run: a path's percentiles and extremes are show --by path's
	equals "csv run 1 main > solve" \
		"$(awk -F, '$1 == 1 && $6 == "main > solve" { print $8 "," $9 "," $11 "," $12 "," $13 "," $14 "," $15 }' <<<"$out")" \
		"$($S show 1 --db s.sqlite --by path --format csv --columns calls,total,min,max,p50,p95,p99 |
			awk -F, '$1 == "main > solve" { print $2 "," $3 "," $4 "," $5 "," $6 "," $7 "," $8 }')"
	# self time: the real recursive profile's numbers (issue 22)
	equals "csv run 3 self" \
		"$(awk -F, '$1 == 3 { print $6 ":" $8 ":" $9 ":" $10 }' <<<"$out" | tr '\n' ' ')" \
		"main:1:0.012030479:1.7233e-05 main > fibonacci:1:0.012013246:0.012013246 "
	# aggregate layout: no percentiles
	equals "csv aggregate p50 empty" \
		"$(awk -F, '$1 == 4 { print $13 }' <<<"$out" | sort -u)" ""
	equals "csv rows: a path's ranks, or a flat run's timings rows" "$(($(wc -l <<<"$out") - 1))" \
		"$(sqlite3 s.sqlite 'SELECT (SELECT count(*) FROM path_ranks) + (SELECT count(*) FROM timings WHERE run_id = 4)')"
	expect 0 "csv -o" $S export --db s.sqlite 2 -o two.csv
	equals "csv -o: run 2 only" "$(cut -d, -f1 two.csv | sort -u | tr '\n' ' ')" "2 run "
	expect 0 "csv --branch" $S export --db s.sqlite --branch dev
	equals "csv --branch dev" "$(tail -n +2 <<<"$out" | cut -d, -f1 | sort -u)" "4"
fi

if tcase caliper; then
	expect 0 "caliper" $S export --db s.sqlite --format caliper -o cal
	equals "caliper line" "$out" "exported 4 runs to 'cal'"
	equals "caliper files" "$(ls cal | tr '\n' ' ')" "run-1.json run-2.json run-3.json run-4.json "
	# (Hatchet's reader looks every column not marked a value, but its
	# hierarchy column, up in nodes: only path may be one, or the ranks
	# become node labels and the read fails)
	for f in cal/*.json; do
		equals "$f: Hatchet's structure" "$(jq -r '
			(.columns | length) as $nc | (.nodes | length) as $nn
			| [ (.columns[0:5] == ["path", "mpi.rank", "count", "sum#time.duration",
				"inclusive#sum#time.duration"]),
			    (.column_metadata | length) == $nc,
			    ([.column_metadata[] | .is_value] == [false, true, true, true, true, true, true]),
			    all(.data[]; length == $nc and (.[0] | type == "number" and . >= 0 and . < $nn)),
			    all(.nodes[]; .column == "path" and (.label | type == "string")
				and ((.parent // -1) < $nn)),
			    ($nn > 0) ] | all' "$f")" true
	done
	equals "caliper run 2 description" \
		"$(jq -c '[.["scopedb.run"], .commit, .branch, .tags, .num_ranks, .mpi_size]' cal/run-2.json)" \
		"[2,\"$C\",\"main\",[\"nightly\"],2,\"2\"]"
	equals "caliper: metadata keys cannot take the document's" \
		"$(jq -c '[.["metadata.data"], .["metadata.nodes"], (.nodes | type), (.data | type)]' cal/run-2.json)" \
		'["evil","evil2","array","array"]'
	equals "caliper run 3: the recursive profile's tree" \
		"$(jq -c '[.tree, [.nodes[] | [.label, .parent]]]' cal/run-3.json)" \
		'[true,[["main",null],["fibonacci",0]]]'
	equals "caliper run 4 (aggregate): flat" "$(jq -c '[.tree, ([.nodes[] | .parent] | unique)]' cal/run-4.json)" \
		'[false,[null]]'
	# the inclusive time of node main on rank 0 of run 1 is show's total
	equals "caliper run 1 main total" \
		"$(jq -r '(.nodes | map(.label) | index("main")) as $m | .data[] | select(.[0] == $m) | .[4]' cal/run-1.json)" \
		"$($S show 1 --db s.sqlite --format csv --columns total | awk -F, '$1 == "main" { print $2 }')"
	red=$'red\033[31m'
	expect 0 "caliper into a directory named with ESC" $S export --db s.sqlite 1 --format caliper \
		-o "$red"
	equals "the confirmation escaped" "$out" "exported 1 run to 'red?[31m'"
	expect 0 "caliper selectors" $S export --db s.sqlite 4 1 4 --format caliper -o sel
	equals "caliper selectors: each run once" "$(ls sel | tr '\n' ' ')" "run-1.json run-4.json "
fi

if tcase path-keys; then
	# a path is one node's key: the region "a > b" is not b called from a,
	# and a backslash is written doubled (as show --by path writes them)
	printf '%s' '{"format": "scope-profiler-profile", "format_version": 1, "time_unit": "nanoseconds",
 "num_ranks": 1, "metadata": {}, "regions": [
 {"name": "a", "rank": 0, "start_times_ns": [0], "end_times_ns": [1000]},
 {"name": "b", "rank": 0, "start_times_ns": [100], "end_times_ns": [200]},
 {"name": "a > b", "rank": 0, "start_times_ns": [2000], "end_times_ns": [2500]},
 {"name": "c\\d", "rank": 0, "start_times_ns": [3000], "end_times_ns": [3100]}]}' >keys.json
	expect 0 "ingest keys.json" $S ingest --db k.sqlite --commit $C keys.json
	run $S export --db k.sqlite
	equals "path keys" "$(cut -d, -f6-9 <<<"$out" | tail -n +2 | sort)" \
		"$(printf '%s\n' 'a > b,0,1,1e-07' 'a \> b,0,1,5e-07' 'a,0,1,1e-06' 'c\\d,0,1,1e-07' | sort)"
	equals "paths as show --by path has them" \
		"$(cut -d, -f6 <<<"$out" | tail -n +2 | sort)" \
		"$($S show 1 --db k.sqlite --by path --format csv --columns calls | cut -d, -f1 | tail -n +2 | sort)"
	# an aggregate run's rank without calls: no time (show has none), in
	# the csv and the Caliper file alike
	"$MKPROFILE" --aggregate --ranks 2 --idle io --regions main,io --calls 3 idle.h5 >/dev/null || exit 1
	expect 0 "ingest idle.h5" $S ingest --db i.sqlite --commit $C idle.h5
	run $S export --db i.sqlite
	equals "idle rank: calls 0, no time" "$(grep -c ',io,1,0,,,,,,,$' <<<"$out")" 1
	equals "no zero time made up" "$(awk -F, 'NR > 1 { for (i = 9; i <= 12; i++) if ($i == "0.0" || $i == "0") n++ } END { print n + 0 }' <<<"$out")" 0
	expect 0 "caliper of idle.h5" $S export --db i.sqlite --format caliper -o icap
	equals "idle rank in Caliper: null times" \
		"$(jq -c '[.data[] | select(.[2] == 0)]' icap/run-1.json)" '[[1,1,0,null,null,null,null]]'
	# a run of no call at all: a row per (region, rank), as show has them,
	# not an empty tree
	"$MKPROFILE" --ranks 2 --regions main,io --calls 0 zero.h5 >/dev/null || exit 1
	expect 0 "ingest zero.h5" $S ingest --db z.sqlite --commit $C zero.h5
	run $S export --db z.sqlite
	equals "no call: a row per region and rank" "$(cut -d, -f6-9 <<<"$out" | tail -n +2 | sort | tr '\n' ' ')" \
		"io,0,0, io,1,0, main,0,0, main,1,0, "
	expect 0 "caliper of zero.h5" $S export --db z.sqlite --format caliper -o zcap
	equals "no call in Caliper: not a tree" "$(jq -c '[(.nodes | length), (.data | length)]' zcap/run-1.json)" '[2,4]'
fi

if tcase scope-profiler-json; then
	# a stored run written back as upstream's JSON profile and ingested
	# again: show prints the same numbers (every layout of the random
	# profiles: aggregate rows, rows without calls, device times)
	COLS=ranks,calls,total,avg,min,max,std,p50,p95,p99,imbalance,gpu_total,gpu_avg
	for seed in 3 7 9 10 22 26 32 50; do
		"$MKPROFILE" --random $seed rnd$seed.h5 >/dev/null || exit 1
	done
	cp s.sqlite rt.sqlite
	expect 0 "ingest random" $S ingest --db rt.sqlite --quiet rnd*.h5
	ids=$($S runs --db rt.sqlite --format json | jq -r '.[].id' | sort -n | tr '\n' ' ')
	for id in $ids; do
		gz=
		[ $((id % 2)) = 0 ] && gz=.gz
		expect 0 "export run $id" $S export "$id" --db rt.sqlite --format scope-profiler-json \
			-o "sp$id.json$gz"
		expect 0 "ingest run $id back" $S ingest --db back.sqlite "sp$id.json$gz"
		back=$(sed -n 's/^run \([0-9]*\):.*/\1/p' <<<"$out")
		equals "run $id: the same numbers" \
			"$($S show "$back" --db back.sqlite --format json --columns $COLS | tail -n +2)" \
			"$($S show "$id" --db rt.sqlite --format json --columns $COLS | tail -n +2)"
	done
	# an aggregate run whose file gave no exclusive times: none invented
	# (not the total), so the file read back has no self time either
	expect 0 "ingest aggregate alone" $S ingest -q --db agx.sqlite --commit aaa1111 agg.h5
	expect 0 "export aggregate" $S export 1 --db agx.sqlite --format scope-profiler-json -o agx.json
	equals "aggregate: exclusive unknown" "$(jq -c '[.regions[].aggregate.exclusive] | unique' agx.json)" "[-1]"
	expect 0 "show aggregate back" $S show agx.json --format csv --columns self
	equals "aggregate: no self time" "$(tail -n +2 <<<"$out" | cut -d, -f2 | sort -u)" ""
	equals "a JSON profile" "$(zcat sp2.json.gz | jq -c '[.format, .format_version, .num_ranks, .metadata.mpi_size]')" \
		'["scope-profiler-profile",1,2,2]'
	# the run's label (--label at ingest) is the file's, over the profile's
	# own metadata label, and where the profile had none
	expect 0 "ingest with --label" $S ingest -q --db lab.sqlite --commit aaa1111 --label relabelled agg.h5
	echo '{"format": "scope-profiler-profile", "format_version": 1, "num_ranks": 1, "metadata": {},
		"regions": [{"name": "a", "rank": 0, "start_times_ns": [0], "end_times_ns": [5]}]}' >nolabel.json
	expect 0 "and a JSON profile without one" $S ingest -q --db lab.sqlite --commit aaa1111 --label mine nolabel.json
	for id in 1 2; do
		expect 0 "export labelled run $id" $S export $id --db lab.sqlite --format scope-profiler-json -o lab$id.json
		equals "run $id: the stored label" "$($S show lab$id.json --format json | jq -r .run.label)" \
			"$($S show $id --db lab.sqlite --format json | jq -r .run.label)"
	done
	equals "the label given" "$(jq -r .metadata.label lab1.json) $(jq -r .metadata.label lab2.json)" "relabelled mine"
	expect_err 2 "one run only" \
		"scopedb: export --format scope-profiler-json writes one run, not 2: give one selector" \
		$S export 1 2 --db rt.sqlite --format scope-profiler-json
	# a rank numbered 10^9 costs the writer one cursor, not 10^9 (8 GB);
	# under a 150 MB limit where the binary starts under it (not ASan)
	sp() { jq -n --argjson r "$1" '{format: "scope-profiler-profile", format_version: 1,
		num_ranks: 1, event_data_available: true, metadata: {mpi_size: 1}, regions: $r}'; }
	sp '[{"name": "main", "rank": 1000000000, "start_times_ns": [0], "end_times_ns": [10]}]' \
		>bigrank.json
	# the highest rank there can be: the export's num_ranks (2^32 - 1) is
	# read back
	sp '[{"name": "a", "rank": 4294967294, "start_times_ns": [0], "end_times_ns": [5]}]' \
		>toprank.json
	expect 0 "the highest rank" $S ingest -q --db top.sqlite --commit aaa1111 toprank.json
	expect 0 "export it" $S export 1 --db top.sqlite --format scope-profiler-json -o top-back.json
	equals "its num_ranks" "$(jq .num_ranks top-back.json)" 4294967295
	expect 0 "read back" $S show top-back.json --format csv --columns ranks,calls
	expect 0 "a rank numbered 10^9" $S ingest -q --db big.sqlite --commit aaa1111 bigrank.json
	limit=
	(ulimit -v 150000 && $S --version) >/dev/null 2>&1 && limit="ulimit -v 150000 &&"
	expect 0 "its export" bash -c "$limit exec $S export 1 --db big.sqlite \
		--format scope-profiler-json -o bigrank-out.json"
	equals "its rank" "$(jq -c '[.regions[].rank]' bigrank-out.json)" "[1000000000]"
	# calls whose durations end to end pass 2^63 ns: one line, no file
	# (written by hand: jq would round these integers to doubles)
	cat >long.json <<-'EOF'
	{"format": "scope-profiler-profile", "format_version": 1, "num_ranks": 1,
	 "event_data_available": true, "metadata": {"mpi_size": 1}, "regions": [
	  {"name": "a", "rank": 0, "start_times_ns": [0], "end_times_ns": [6000000000000000000]},
	  {"name": "b", "rank": 0, "start_times_ns": [1], "end_times_ns": [5999999999999999999]}]}
	EOF
	expect 0 "calls of 6e18 ns" $S ingest -q --db big.sqlite --commit aaa1111 long.json
	expect_err 2 "past the format's time line" \
		"scopedb: cannot write run 2 as a JSON profile: the calls of rank 0 last more than 2^63 ns end to end, past the time line of the format" \
		$S export 2 --db big.sqlite --format scope-profiler-json -o long-out.json
	[ ! -e long-out.json ] && ok || bad "past the time line: long-out.json written"
fi

if tcase errors; then
	expect_err 2 "caliper without -o" \
		"scopedb: export --format caliper needs -o DIR: it writes one file per run" \
		$S export --db s.sqlite --format caliper
	expect_err 2 "caliper to stdout" \
		"scopedb: export --format caliper writes one file per run into a directory, not to stdout (-o -): give -o DIR" \
		$S export --db s.sqlite --format caliper -o -
	[ ! -e ./- ] && ok || bad "caliper -o -: a directory '-' made"
	expect_err 2 "selectors and filters" \
		"scopedb: export takes run selectors or filters, not both" \
		$S export --db s.sqlite 1 --branch main
	expect_err 2 "unknown run: nothing written" "scopedb: no run with id 9" \
		$S export --db s.sqlite 1 9 --format caliper -o none
	[ ! -e none ] && ok || bad "a failed export left directory 'none'"
	mkdir keep
	expect_err 2 "unknown run into a directory" "scopedb: no run with id 9" \
		$S export --db s.sqlite 1 9 --format caliper -o keep
	equals "the directory as it was" "$(ls -A keep)" ""
	# filters that keep no run: an empty export and exit 0, as runs and
	# history (pandas reads the header as an empty table), the reason on
	# stderr; scope-profiler-json needs its one run
	header=run,commit,branch,label,recorded,path,rank,calls,total,self,min,max,p50,p95,p99
	expect_err 0 "no run has the tag" "scopedb: no run has tag 'nope'" \
		$S export --db s.sqlite --tag nope
	equals "no run has the tag: the header" "$out" "$header"
	expect_err 0 "no run matches" "scopedb: no run matches the filters" \
		$S export --db s.sqlite --since 2099-01-01
	equals "no run matches: the header" "$out" "$header"
	expect_err 0 "no run matches, caliper" "scopedb: no run matches the filters" \
		$S export --db s.sqlite --since 2099-01-01 --format caliper -o empty
	equals "no run matches, caliper: no file" "$(ls -A empty)" ""
	expect_err 2 "no run matches, scope-profiler-json" \
		"scopedb: no stored run matches the filters" \
		$S export --db s.sqlite --since 2099-01-01 --format scope-profiler-json
	expect_err 2 "over the store" "scopedb: cannot write --output 's.sqlite': it is the store; refused" \
		$S export --db s.sqlite -o s.sqlite
	expect_err 2 "a file as the directory" "scopedb: cannot write in directory 's.sqlite': not a directory" \
		$S export --db s.sqlite --format caliper -o s.sqlite
	# a damaged store: one line naming it, nothing written
	cp s.sqlite dmg.sqlite
	sqlite3 dmg.sqlite "UPDATE timings_durations SET data = x'ffff00'
		WHERE rowid = (SELECT min(rowid) FROM timings_durations)" || bad "damage the store"
	for f in csv caliper scope-profiler-json; do
		run $S export 1 --db dmg.sqlite --format $f -o "dmg-$f"
		equals "damaged store, $f: exit" "$rc" 2
		contains "damaged store, $f: message" "$err" "scopedb: store 'dmg.sqlite' is damaged:"
		[ ! -e "dmg-$f" ] && ok || bad "damaged store, $f: 'dmg-$f' written"
	done
	expect_err 2 "bad format" \
		"scopedb: invalid --format 'xml': choose from csv, caliper or scope-profiler-json" \
		$S export --db s.sqlite --format xml
fi

if tcase postgres; then
	if [ "${SCOPEDB_POSTGRES:-OFF}" != ON ]; then
		echo "e2e_export: the PostgreSQL backend is not built: its case is skipped" >&2
	else
		source "$(dirname "$0")/pg-server.sh"
		pg_e2e_start
		pgdb=$(pg_newdb export) || exit 1
		expect 0 "push to PostgreSQL" $S push --db s.sqlite --to "$pgdb"
		expect 0 "csv from PostgreSQL" $S export --db "$pgdb"
		pgcsv=$out
		expect 0 "csv from SQLite" $S export --db s.sqlite
		equals "csv: the same bytes on both backends" "$pgcsv" "$out"
		expect 0 "caliper from PostgreSQL" $S export --db "$pgdb" --format caliper -o pgcal
		expect 0 "caliper from SQLite" $S export --db s.sqlite --format caliper -o sqcal
		diff -r pgcal sqcal >/dev/null && ok || bad "caliper: the files differ between backends"
	fi
fi
finish
