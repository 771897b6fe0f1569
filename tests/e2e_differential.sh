#!/usr/bin/env bash
# e2e_differential.sh - the differential test (issue 24, docs/testing.md):
# random valid profiles through every path give the same answer.
#
# Profiles: `mkprofile --random SEED` for DIFF_SEEDS seeds from DIFF_FIRST
# (default 200 from 1), every fourth one replaced by the variant of the
# seed before it (the same structure, other durations), then the fixed
# regressions of tests/differential/ (seeds in its `seeds` file, profiles
# as its *.h5 files with their *.ref.json, and real scope-profiler files).
# They are ingested into an SQLite store and, when the PostgreSQL backend
# is built, into a database of a throwaway server (tests/pg-server.sh);
# consecutive profiles are pairs (an odd one out pairs with the first).
# Checked, for every profile:
#   - `show FILE` = `show RUN` of the stored run (JSON, every column), and
#     `show RUN` (all ranks, and the profile's rank set) prints the same
#     bytes on SQLite and PostgreSQL;
#   - by path (when every rank has a tree), each name's calls by name are
#     its paths' outermost plus nested calls, and SQLite and PostgreSQL
#     print the same bytes;
#   - those numbers = the reference the generator computes from its own
#     durations (exact sums, numpy's percentiles, docs/format.md section
#     8), to 1e-9 relative, for all ranks and for the rank set;
#   - its JSON twin (`mkprofile --random SEED OUT.json`, every third one
#     gzip-compressed; DIFF_JSON=0: none), ingested into a store of its
#     own, gives the same ingest line (ranks, regions, calls), the same
#     number of ranks, the same `show RUN` numbers and the same stored
#     metadata as the HDF5 file;
# for every pair (a metric each, in turn):
#   - `diff A A` is zero on every row;
#   - `diff A B` of the files = of the stored runs (JSON);
#   - SQLite and PostgreSQL print the same bytes for diff (table and
#     JSON), check (table and JUnit) and history;
#   - `report A B` renders in headless Chromium (DIFF_PAGE, default 120,
#     to a browser session, as iframes) with no console error and its
#     script run;
# and for the whole set: the same bytes for ingest and runs on both
# backends; a push to a fresh store and a pull back give the same runs,
# hashes, tags, metadata, rows, blobs and outputs; pushing again copies
# nothing; every JSON output parses (jq) and every JUnit report validates
# (xmllint, tests/data/junit.xsd).
#
# A failure names the seed and how to make its profile again, and copies
# the profile and its reference to DIFF_KEEP (default
# $SCOPEDB_BUILD_DIR/differential-failures): copy them into
# tests/differential/ to make it a fixed regression.  DIFF_JOBS shards
# (default 2) share the work.  The long tier: bench/differential.
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?set MKPROFILE to the mkprofile binary}"
S=$SCOPEDB
here=$(cd "$(dirname "$0")" && pwd)
first=${DIFF_FIRST:-1}
count=${DIFF_SEEDS:-200}
njobs=${DIFF_JOBS:-2}
keep=${DIFF_KEEP:-${SCOPEDB_BUILD_DIR:-$here/..}/differential-failures}
fixed=${DIFF_FIXED:-$here/differential}
METRICS=(total avg min max p50 p95 p99 imbalance calls gpu_total gpu_avg)
COLS=ranks,calls,total,avg,min,max,std,p50,p95,p99,imbalance,gpu_total,gpu_avg
# the pairs of unrelated profiles differ in mpi_size and platform
SAME="--allow-different mpi_size --allow-different platform"
start=$(date +%s)
mkdir -p p out fail
# phase NAME: the seconds since the last phase, for the summary line
phases=
last=$start
last_cpu=0
phase() {
	local now cpu
	now=$(date +%s)
	# the CPU seconds of the commands (the children's user + system time)
	times >"$E2E_DIR/.times" # (in this shell: a subshell's children are not ours)
	cpu=$(tail -1 "$E2E_DIR/.times" | awk '{ split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%.0f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
	phases="$phases $1 $((now - last)) s ($((cpu - last_cpu)) s CPU),"
	last=$now
	last_cpu=$cpu
}

# --- the profiles --------------------------------------------------------------
# label[i]: what a failure names; file[i], ref[i] (reference JSON or ""),
# remake[i]: the command that writes the profile again
label=()
file=()
ref=()
remake=()
# twin[i]: the JSON twin of random profile i ("" when none)
twin=()
json=${DIFF_JSON:-1}
add_random() { # SEED[/VARIANT]
	local i=${#file[@]}
	label+=("seed $1")
	file+=("p/$i.h5")
	twin[i]=
	[ "$json" != 0 ] && twin[i]=p/$i.json && [ $((i % 3)) = 1 ] && twin[i]=p/$i.json.gz
	ref+=("p/$i.ref.json")
	remake+=("mkprofile --random $1 --reference seed-${1//\//-}.ref.json seed-${1//\//-}.h5")
}
for ((k = 0; k < count; k++)); do
	seed=$((first + k))
	if [ $((k % 4)) = 3 ]; then add_random "$((seed - 1))/1"; else add_random "$seed"; fi
done
declare -A have
for l in "${label[@]}"; do have[$l]=1; done
if [ -f "$fixed/seeds" ]; then
	while read -r s _; do
		case $s in '' | '#'*) continue ;; esac
		[ -n "${have[seed $s]:-}" ] || add_random "$s" # once
		have[seed $s]=1
	done <"$fixed/seeds"
fi
nrand=${#file[@]}
for f in "$fixed"/*.h5; do
	[ -e "$f" ] || continue
	# a kept seed-N.h5 (or seed-N-V.h5) of a seed run already: once
	s=${f##*/}
	s=${s#seed-}
	s=${s%.h5}
	[ -n "${have[seed ${s/-//}]:-}" ] && continue
	i=${#file[@]}
	cp "$f" "p/$i.h5"
	label+=("fixed ${f##*/}")
	file+=("p/$i.h5")
	if [ -f "${f%.h5}.ref.json" ]; then
		cp "${f%.h5}.ref.json" "p/$i.ref.json"
		ref+=("p/$i.ref.json")
	else
		ref+=("")
	fi
	remake+=("cp $f .")
done
n=${#file[@]}
# the pairs: consecutive profiles, the random ones and the fixed files
# apart (an odd one out pairs with the first of its part); heads[] are
# the first profiles of the pairs, partner[a] the second
heads=()
partner=()
pair_up() {
	local i
	for ((i = $1; i + 1 < $2; i += 2)); do
		heads+=("$i")
		partner[i]=$((i + 1))
	done
	if [ $((($2 - $1) % 2)) = 1 ]; then
		heads+=($(($2 - 1)))
		partner[$2 - 1]=$1
	fi
}
pair_up 0 "$nrand"
pair_up "$nrand" "$n"
# write the random ones, in parallel shards
gen() {
	local i a
	for ((i = $1; i < n; i += njobs)); do
		[ "${label[i]%% *}" = seed ] || continue
		a=${label[i]#seed }
		"$MKPROFILE" --random "$a" --reference "${ref[i]}" "${file[i]}" >/dev/null \
			2>"out/gen.$i.err" || echo "$i	mkprofile --random $a failed: $(<"out/gen.$i.err")"
		[ -z "${twin[i]}" ] || "$MKPROFILE" --random "$a" "${twin[i]}" 2>"out/gen.$i.err" ||
			echo "$i	mkprofile --random $a ${twin[i]##*.json}: $(<"out/gen.$i.err")"
	done >"fail/gen.$1"
}
for ((j = 0; j < njobs; j++)); do gen "$j" & done
wait
phase generate
# fields FILTER I...: "NAME<TAB>VALUE" of the jq FILTER of the reference
# of each profile I that has one, in one jq (each one costs 25 ms)
fields() {
	local i filter=$1 refs=()
	shift
	for i in "$@"; do [ -n "${ref[i]}" ] && [ -s "${ref[i]}" ] && refs+=("${ref[i]}"); done
	[ ${#refs[@]} -eq 0 ] || jq -r "[input_filename, ($filter)] | @tsv" "${refs[@]}"
}
declare -A field
fields .ranks $(seq 0 $((n - 1))) >out/sels.tsv
while IFS=$'\t' read -r name s; do field[$name]=$s; done <out/sels.tsv
sels=()
for ((i = 0; i < n; i++)); do
	s=
	[ -n "${ref[i]}" ] && s=${field[${ref[i]}]:-}
	sels+=("${s:-0}")
done

# --- the stores ------------------------------------------------------------------
pg=0
if [ "${SCOPEDB_POSTGRES:-OFF}" = ON ]; then
	source "$here/pg-server.sh"
	trap '[ "$BASHPID" != "$$" ] || { pg_stop; rm -rf "$E2E_DIR" "${web:-}"; }' EXIT
	if pg_available && pg_start "$E2E_DIR/pg"; then
		pg=1
		PG1=$PG_URI
		PG2=$(pg_newdb fresh) || { bad "cannot create a second database"; finish; }
	elif [ "${CI:-}" = true ]; then
		bad "cannot start PostgreSQL (the backend is built)"
		finish
	else
		echo "e2e_differential: no PostgreSQL server: SQLite only" >&2
	fi
fi
DBS=(a.sqlite)
[ $pg = 1 ] && DBS+=("$PG1")
# ingest: the same lines from both backends; a pair's runs are tagged
# pair-J (J its first), the scope of its report's trends (a report's
# trends cover every region of their runs: of the whole store, hundreds of
# unrelated random profiles, each report took seconds)
# (each store in a process of its own, the JSON twins' store below too:
# the three are independent)
ingest_into() { # D
	local i t rc=0 batch
	for ((i = 0; i < n; i++)); do
		batch=("${file[i]}")
		t=$i
		[ "${partner[i]:-}" = $((i + 1)) ] && batch+=("${file[i + 1]}") && i=$((i + 1))
		$S ingest --db "${DBS[$1]}" --quiet --commit 0123456789abcdef0123456789abcdef01234567 \
			--branch main --tag diff --tag "pair-$t" "${batch[@]}" || rc=$?
	done >"out/ingest.$1.out" 2>"out/ingest.$1.err"
	echo $rc >"out/ingest.$1.rc"
}
for ((d = 0; d < ${#DBS[@]}; d++)); do ingest_into "$d" & done
# the JSON twins, into a store of their own (twin i is run i + 1 there
# too)
twins=()
for ((i = 0; i < nrand; i++)); do [ -n "${twin[i]}" ] && twins+=("${twin[i]}"); done
if [ ${#twins[@]} -gt 0 ]; then
	$S ingest --db j.sqlite --quiet --commit 0123456789abcdef0123456789abcdef01234567 \
		--branch main --tag diff "${twins[@]}" >out/ingest.j.out 2>out/ingest.j.err
	echo $? >out/ingest.j.rc
fi
wait
equals "ingest: exit" "$(<out/ingest.0.rc)" 0
if [ "$(<out/ingest.0.rc)" != 0 ]; then
	grep -m 20 . out/ingest.0.err >&2
fi
[ $pg = 1 ] && for f in out rc; do
	cmp -s "out/ingest.0.$f" "out/ingest.1.$f" && ok ||
		bad "ingest: SQLite and PostgreSQL print different $f: $(diff out/ingest.0.$f out/ingest.1.$f | head -5)"
done
cmp -s out/ingest.0.err out/ingest.1.err 2>/dev/null || [ $pg = 0 ] ||
	bad "ingest: SQLite and PostgreSQL print different stderr"
phase ingest
# run i is id i + 1 (files in order, each stored once)
mapfile -t lines <out/ingest.0.out
for ((i = 0; i < n; i++)); do
	[[ "${lines[i]:-}" == "run $((i + 1)): ${file[i]}: "* ]] ||
		echo "$i	not stored as run $((i + 1)): $(grep -F "${file[i]}:" out/ingest.0.* | head -2)"
done >fail/ingest
# the JSON twins: the same ingest line but the path
if [ ${#twins[@]} -gt 0 ]; then
	read -r jrc <out/ingest.j.rc
	equals "ingest of the JSON twins: exit" "$jrc" 0
	[ "$jrc" = 0 ] || grep -m 20 . out/ingest.j.err >&2
	mapfile -t jlines <out/ingest.j.out
	for ((i = 0; i < ${#twins[@]}; i++)); do
		[ "${jlines[i]#*.json*: }" = "${lines[i]#*.h5: }" ] ||
			echo "$i	JSON twin: ingest says '${jlines[i]:-nothing}', of the HDF5 file '${lines[i]:-}'"
	done >>fail/ingest
fi
# the region of each pair's history: the first of the reference (base64:
# a name may hold any character)
field=()
fields '[.all[].name | select(startswith("-") | not)][0] // "" | @base64' "${heads[@]}" >out/regions.tsv
while IFS=$'\t' read -r name r; do field[$name]=$r; done <out/regions.tsv
regions=()
for i in "${heads[@]}"; do
	r=
	[ -n "${ref[i]}" ] && r=${field[${ref[i]}]:-}
	regions[i]=$r
done

# --- per profile and per pair, in shards ----------------------------------------------
# x NAME CMD...: stdout to out/NAME, stderr to out/NAME.err, exit to out/NAME.rc
x() {
	local name=$1 t0
	shift
	[ -n "${DIFF_TIMES:-}" ] && t0=$(date +%s%N)
	"$@" >"out/$name" 2>"out/$name.err"
	echo $? >"out/$name.rc"
	[ -n "${DIFF_TIMES:-}" ] && echo "${name%%.*} $((($(date +%s%N) - t0) / 1000000))" >>"$DIFF_TIMES"
	return 0
}
# f I MESSAGE: a failure of profile I
f() { printf '%s\t%s\n' "$1" "$2"; }
# bytes FILE: the bytes of FILE in $bytes, and 0 when it is there (no
# process: the shards compare thousands of outputs, a cmp each; scopedb
# writes no NUL byte, where read would stop)
bytes() {
	bytes=
	[ -f "$1" ] || return 1
	IFS= read -r -d '' bytes <"$1"
	return 0
}
# same_bytes A B [SKIP]: files A and B hold the same bytes (after their
# first line with SKIP=1)
same_bytes() {
	local a b
	bytes "$1" || return 1
	a=$bytes
	bytes "$2" || return 1
	b=$bytes
	if [ "${3:-0}" = 1 ]; then
		[[ $a == *$'\n'* ]] && a=${a#*$'\n'} || a=
		[[ $b == *$'\n'* ]] && b=${b#*$'\n'} || b=
	fi
	[ "$a" = "$b" ]
}
# same I DESC A B: the two outputs (stdout, stderr and exit) are the same bytes
same() {
	local e r1 r2
	read -r r1 <"out/$3.rc"
	read -r r2 <"out/$4.rc"
	[ "$r1" = "$r2" ] || f "$1" "$2: exit $r1 and $r2"
	for e in "" .err; do
		same_bytes "out/$3$e" "out/$4$e" ||
			f "$1" "$2: '$3$e' and '$4$e' differ: $(diff "out/$3$e" "out/$4$e" | head -4 | tr '\n' ' ' | cut -c1-400)"
	done
}
# zero I NAME [RC]: exit 0 (or RC), nothing on stderr but that a metric
# has no value in either run, that neither run has a call (a profile
# of index rows without calls: "nothing to compare", exit 2 for check),
# or that the rank set selects no call (show)
zero() {
	local rc
	read -r rc <"out/$2.rc"
	if [ -s "out/$2.err" ]; then
		if grep -qv '^scopedb: \(warning: \)*\(nothing to compare: \(metric \|no call in \)\|--ranks selects no call of \)' "out/$2.err"; then
			f "$1" "$2: exit $rc: $(head -c 400 "out/$2.err")"
		elif [ "$rc" != 0 ] && [ "$rc" != 2 ]; then
			f "$1" "$2: exit $rc: $(head -c 400 "out/$2.err")"
		fi
	elif [ "$rc" != 0 ] && [ "$rc" != "${3:-0}" ]; then
		f "$1" "$2: exit $rc"
	fi
}
# today's times (of the ingests) as NOW: the two stores got their runs
# one after the other
today=$(date -u +%Y-%m-%d)
now() { sed -i "s/$today[T ][0-9:]*Z*/NOW/g" "$@"; }
# num_ranks FILE: the run's number of ranks of a `show --format json`
# (its first line; a string value would have its quotes escaped), or "none"
num_ranks() {
	local l
	read -r l <"$1"
	[[ $l =~ \"num_ranks\":\ ([0-9]+) ]] && echo "${BASH_REMATCH[1]}" || echo none
}
shard() {
	local h j i a b id m region d
	for ((i = $1; i < n; i += njobs)); do
		id=$((i + 1))
		x "show.f.$i.json" $S show "${file[i]}" --format json --columns $COLS
		zero "$i" "show.f.$i.json"
		for ((d = 0; d < ${#DBS[@]}; d++)); do
			x "show.$d.$i.json" $S show "$id" --db "${DBS[d]}" --format json --columns $COLS
			zero "$i" "show.$d.$i.json"
			# the rank set: on SQLite for every profile (the reference's
			# check), on PostgreSQL for every other one
			[ "$d" = 1 ] && [ $((i % 2)) = 1 ] && continue
			x "show.s$d.$i.json" $S show "$id" --db "${DBS[d]}" --format json --columns $COLS \
				--ranks "${sels[i]}"
			zero "$i" "show.s$d.$i.json"
		done
		# the file's numbers are the stored run's (the run line differs: its id)
		same_bytes "out/show.f.$i.json" "out/show.0.$i.json" 1 ||
			f "$i" "show FILE and show RUN differ: $(diff <(tail -n +2 "out/show.f.$i.json") <(tail -n +2 "out/show.0.$i.json") | head -4 | tr '\n' ' ' | cut -c1-400)"
		# the JSON twin's stored numbers and ranks are the HDF5 file's
		if [ -n "${twin[i]:-}" ]; then
			x "show.j.$i.json" $S show "$id" --db j.sqlite --format json --columns $COLS
			zero "$i" "show.j.$i.json"
			same_bytes "out/show.j.$i.json" "out/show.0.$i.json" 1 ||
				f "$i" "JSON twin: show RUN differs from the HDF5 file's: $(diff <(tail -n +2 "out/show.j.$i.json") <(tail -n +2 "out/show.0.$i.json") | head -4 | tr '\n' ' ' | cut -c1-400)"
			# (a run's num_ranks is always a number: "none" means the
			# output changed and the comparison would prove nothing)
			[ "$(num_ranks "out/show.0.$i.json")" != none ] &&
				[ "$(num_ranks "out/show.j.$i.json")" = "$(num_ranks "out/show.0.$i.json")" ] ||
				f "$i" "JSON twin: another number of ranks than the HDF5 file's (or none found)"
		fi
		# by path: both backends print the same bytes (and the calls, in
		# one jq for all the profiles below)
		for ((d = 0; d < ${#DBS[@]}; d++)); do
			x "path.$d.$i.json" $S show "$id" --db "${DBS[d]}" --by path --format json \
				--columns calls,nested
		done
		[ $pg = 1 ] && same "$i" "show --by path on SQLite and PostgreSQL" "path.0.$i.json" \
			"path.1.$i.json"
		if [ $pg = 1 ]; then
			same "$i" "show RUN on SQLite and PostgreSQL" "show.0.$i.json" "show.1.$i.json"
			[ $((i % 2)) = 1 ] ||
				same "$i" "show RUN --ranks on SQLite and PostgreSQL" "show.s0.$i.json" \
					"show.s1.$i.json"
		fi
	done
	for ((h = $1; h < ${#heads[@]}; h += njobs)); do
		j=${heads[h]}
		a=$j b=${partner[j]}
		m=${METRICS[h % ${#METRICS[@]}]}
		x "self.$j.json" $S diff $((a + 1)) $((a + 1)) --db a.sqlite --format json --metric "$m"
		zero "$a" "self.$j.json"
		x "diff.f.$j.json" $S diff "${file[a]}" "${file[b]}" --format json --metric "$m"
		zero "$a" "diff.f.$j.json"
		region=$(base64 -d <<<"${regions[a]}")
		for ((d = 0; d < ${#DBS[@]}; d++)); do
			x "diff.$d.$j" $S diff $((a + 1)) $((b + 1)) --db "${DBS[d]}" --metric "$m" \
				--output "json=out/diff.$d.$j.json"
			x "check.$d.$j" $S check $((a + 1)) $((b + 1)) --db "${DBS[d]}" --metric "$m" \
				--max-regression 5 --output "junit=out/check.$d.$j.xml" $SAME
			if [ -n "$region" ]; then
				x "history.$d.$j.json" $S history "$region" --db "${DBS[d]}" --format json \
					--metric "$m"
				now "out/history.$d.$j.json"
			else
				: >"out/history.$d.$j.json" >"out/history.$d.$j.json.err"
				echo 0 >"out/history.$d.$j.json.rc"
			fi
		done
		zero "$a" "diff.0.$j"
		zero "$a" "history.0.$j.json"
		zero "$a" "check.0.$j" 1
		if [ $pg = 1 ]; then
			same "$a" "diff on SQLite and PostgreSQL" "diff.0.$j" "diff.1.$j"
			cmp -s "out/diff.0.$j.json" "out/diff.1.$j.json" ||
				f "$a" "diff --output json differs between SQLite and PostgreSQL"
			same "$a" "check on SQLite and PostgreSQL" "check.0.$j" "check.1.$j"
			[ ! -e "out/check.0.$j.xml" ] && [ ! -e "out/check.1.$j.xml" ] ||
				cmp -s "out/check.0.$j.xml" "out/check.1.$j.xml" ||
				f "$a" "check --output junit differs between SQLite and PostgreSQL"
			same "$a" "history on SQLite and PostgreSQL" "history.0.$j.json" \
				"history.1.$j.json"
		fi
		x "report.$j" $S report $((a + 1)) $((b + 1)) --db a.sqlite --tag "pair-$j" \
			-o "out/report.$j.html" $SAME
		zero "$a" "report.$j"
	done
}
for ((j = 0; j < njobs; j++)); do shard "$j" >"fail/shard.$j" & done
wait
phase commands
# the JSON twins' stored metadata is the HDF5 files'
if [ ${#twins[@]} -gt 0 ]; then
	meta() { sqlite3 "$1" "SELECT run_id, key, value FROM run_metadata WHERE run_id <= $nrand ORDER BY 1, 2"; }
	meta a.sqlite >out/meta.h5.txt
	meta j.sqlite >out/meta.twin.txt
	diff out/meta.h5.txt out/meta.twin.txt | grep -o '^[<>] [0-9]*|' | tr -d '<>|' | sort -nu | while read -r id; do
		f $((id - 1)) "JSON twin: stored metadata differs: $(diff <(grep "^$id|" out/meta.h5.txt) <(grep "^$id|" out/meta.twin.txt) | head -4 | tr '\n' ' ' | cut -c1-300)"
	done >fail/twin-meta
fi

# --- the whole set ---------------------------------------------------------------------
for ((d = 0; d < ${#DBS[@]}; d++)); do
	x "runs.$d.json" $S runs --db "${DBS[d]}" --format json
	x "runs.$d" $S runs --db "${DBS[d]}"
done
zero 0 "runs.0.json"
if [ $pg = 1 ]; then
	# (each store got its runs at its own time)
	now out/runs.0.json out/runs.1.json out/runs.0 out/runs.1
	same 0 "runs on SQLite and PostgreSQL" runs.0.json runs.1.json
	same 0 "runs (table) on SQLite and PostgreSQL" runs.0 runs.1
fi >fail/runs

# push to a fresh store and pull back: the same runs and outputs
dump() {
	sqlite3 "$1" "SELECT id, sha256, source_path, ingested_at, recorded_at, label, commit_sha,
		branch, schema_version, layout, num_ranks, num_regions, num_calls FROM runs ORDER BY id;
	SELECT run_id, tag FROM run_tags ORDER BY 1, 2;
	SELECT run_id, key, value FROM run_metadata ORDER BY 1, 2;
	SELECT t.run_id, r.name, t.rank, t.has_events, t.calls, t.total_ns, t.min_ns, t.max_ns,
		t.first_ns, t.last_ns, t.start_min_ns, t.end_max_ns, t.mean_ns, t.m2, t.exclusive_ns,
		t.gpu_count, t.gpu_total_ns, t.source_file, t.source_line, t.source_text, t.tags,
		hex(d.data)
		FROM timings AS t JOIN regions AS r ON r.id = t.region_id
		LEFT JOIN timings_durations AS d ON d.timing_id = t.id ORDER BY 1, 2, 3;
	SELECT g.run_id, r.name, g.calls, g.total_ns, g.min_ns, g.max_ns, g.p50_ns, g.p95_ns,
		g.p99_ns FROM run_regions AS g JOIN regions AS r ON r.id = g.region_id ORDER BY 1, 2"
}
# the profile of the first run a message names ("run 12" or a row "12|"),
# else the first: a failure of the whole set names the run it is about
run_of() {
	local id
	id=$(grep -o -m1 'run [0-9]*\|^[<>] [0-9]*|' <<<"$1" | grep -o '[0-9]*' | head -1)
	[ -n "$id" ] && [ "$id" -ge 1 ] && [ "$id" -le "$n" ] && echo $((id - 1)) || echo 0
}
{
	to=b.sqlite
	[ $pg = 1 ] && to=$PG2
	x push $S push --db a.sqlite --to "$to"
	x pull $S pull --db back.sqlite --from "$to"
	x push2 $S push --db a.sqlite --to "$to"
	for c in push pull push2; do
		[ -s "out/$c.err" ] && f "$(run_of "$(<"out/$c.err")")" "$c: exit $(<"out/$c.rc"): $(head -c 400 "out/$c.err")"
	done
	grep -qx "pushed $n runs to '.*': $n copied, 0 already there" out/push ||
		f 0 "push to a fresh store: $(tail -1 out/push)"
	grep -qx "pulled $n runs from '.*': $n copied, 0 already there" out/pull ||
		f 0 "pull back: $(tail -1 out/pull)"
	grep -qx "pushed $n runs to '.*': 0 copied, $n already there" out/push2 ||
		f 0 "push again copied something: $(tail -1 out/push2)"
	dump a.sqlite >out/dump.a
	dump back.sqlite >out/dump.back
	if ! cmp -s out/dump.a out/dump.back; then
		d=$(diff out/dump.a out/dump.back | head -4)
		f "$(run_of "$d")" "push and pull back changed the stored rows: $(tr '\n' ' ' <<<"$d" | cut -c1-400)"
	fi
	for ((i = 0; i < n; i += 7)); do
		x "back.show.$i.json" $S show $((i + 1)) --db back.sqlite --format json --columns $COLS
		same "$i" "show after push and pull back" "show.0.$i.json" "back.show.$i.json"
	done
	x back.runs.json $S runs --db back.sqlite --format json
	x a.runs.json $S runs --db a.sqlite --format json
	cmp -s out/a.runs.json out/back.runs.json ||
		f "$(run_of "$(diff out/a.runs.json out/back.runs.json | grep -o '"id": [0-9]*' | sed 's/"id":/run/' | head -1)")" \
			"runs after push and pull back differ"
} >fail/transfer

phase transfer
# every JSON output parses (one jq for all, then each alone when one fails);
# every JUnit report validates
{
	jsons=()
	for j in out/*.json; do [ -s "$j" ] && jsons+=("$j"); done
	if ! jq empty "${jsons[@]}" >/dev/null 2>&1; then
		for j in "${jsons[@]}"; do
			jq empty "$j" >/dev/null 2>&1 && continue
			i=$(grep -o '[0-9]*\.json$' <<<"$j")
			f "${i%.json}" "output ${j#out/} is not JSON: $(jq empty "$j" 2>&1 | head -1)"
		done
	fi
} >fail/json
ls out/check.*.xml >/dev/null 2>&1 &&
	xmllint --noout --schema "$here/data/junit.xsd" out/check.*.xml 2>out/xmllint.err >/dev/null
grep -v ' validates$' out/xmllint.err | grep -o 'check\.[0-9]*\.[0-9]*\.xml' | sort -u |
	while read -r x; do
		j=${x%.xml}
		f "${j##*.}" "JUnit report $x does not validate: $(grep -m1 -F "$x" out/xmllint.err | cut -c1-300)"
	done >fail/junit

# jq_all NAME WHAT FILE...: the jq program out/NAME.jq over all the FILEs in
# one jq (a jq a profile cost 25 ms each), its "I<TAB>MESSAGE" lines to
# fail/NAME
jq_all() {
	local name=$1 what=$2
	shift 2
	[ $# -gt 0 ] || return 0
	jq -n -r -f "out/$name.jq" "$@" >"fail/$name" 2>"out/$name.err" ||
		bad "the $what comparison failed: $(head -3 "out/$name.err")"
}
# the numbers against the generator's own (1e-9 relative); diff RUN RUN is zero
cat >out/reference.jq <<'EOF'
def close($a; $b): if $a == null or $b == null then $a == $b
	else ($a - $b | fabs) <= 1e-9 * ([$a | fabs, $b | fabs] | max) + 1e-18 end;
def cmpregs($ref; $act; $what):
	($ref | map({key: .name, value: .}) | from_entries) as $r
	| ($act | map({key: .name, value: .}) | from_entries) as $a
	| ([$r | keys[]] - [$a | keys[]] | map("\($what): region \(tojson) missing"))
	+ ([$a | keys[]] - [$r | keys[]] | map("\($what): region \(tojson) not in the reference"))
	+ [$r | keys[] as $k | select($a[$k] != null) | $r[$k] | to_entries[]
		| select(.key != "name") | select(close(.value; $a[$k][.key]) | not)
		| "\($what): region \($k | tojson) \(.key): reference \(.value), scopedb \($a[$k][.key])"];
[inputs] as $x | range(0; $x | length; 4) as $i | $x[$i] as $idx
| (cmpregs($x[$i + 1].all; $x[$i + 2].regions; "show FILE")
	+ cmpregs($x[$i + 1].selected; $x[$i + 3].regions; "show RUN --ranks \($x[$i + 1].ranks)"))[]
| "\($idx)\t\(.)"
EOF
args=()
for ((i = 0; i < n; i++)); do
	[ -n "${ref[i]}" ] && [ -s "${ref[i]}" ] && [ -s "out/show.f.$i.json" ] &&
		[ -s "out/show.s0.$i.json" ] || continue
	echo "$i" >"out/idx.$i"
	args+=("out/idx.$i" "${ref[i]}" "out/show.f.$i.json" "out/show.s0.$i.json")
done
jq_all reference reference "${args[@]}"
# by path: each name's calls are its paths' outermost and nested calls
# (when every rank has a tree: no warning)
cat >out/path.jq <<'EOF'
[inputs] as $x | range(0; $x | length; 3) as $i
| ($x[$i + 1].regions | group_by(.path[-1])
	| map({key: .[0].path[-1], value: (map(.calls + .nested) | add)}) | from_entries) as $b
| [$x[$i + 2].regions[] | select(.calls > 0 and ($b[.name] // 0) != .calls) | .name]
| select(length > 0) | "\($x[$i])\tby path, calls + nested are not the calls by name of \(tojson)"
EOF
args=()
for ((i = 0; i < n; i++)); do
	[ -f "out/path.0.$i.json.rc" ] && [ "$(<"out/path.0.$i.json.rc")" = 0 ] &&
		[ ! -s "out/path.0.$i.json.err" ] || continue
	echo "$i" >"out/idx.$i"
	args+=("out/idx.$i" "out/path.0.$i.json" "out/show.0.$i.json")
done
jq_all path by-path "${args[@]}"
for i in "${heads[@]}"; do
	[ -s "out/self.$i.json" ] && echo "out/self.$i.json"
done | xargs -r jq -r 'select([.rows[] | select(.delta != 0)] | length > 0)
	| input_filename + "\t" + ([.rows[] | select(.delta != 0) | .name] | tostring)' 2>/dev/null |
	while IFS=$'\t' read -r fn what; do
		i=${fn%.json}
		f "${i##*.}" "diff RUN RUN is not zero: $what"
	done >fail/self
# the files' diff is the stored runs' (the run descriptions differ)
pairs=()
for j in "${heads[@]}"; do
	[ -s "out/diff.f.$j.json" ] && [ -s "out/diff.0.$j.json" ] && pairs+=("$j")
done
if [ ${#pairs[@]} -gt 0 ]; then
	jq -c 'del(.a, .b)' $(printf 'out/diff.f.%s.json ' "${pairs[@]}") >out/diff.f.all 2>/dev/null
	jq -c 'del(.a, .b)' $(printf 'out/diff.0.%s.json ' "${pairs[@]}") >out/diff.0.all 2>/dev/null
	sed -i 's/^/x/' out/diff.f.all out/diff.0.all
	paste -d '\n' out/diff.f.all out/diff.0.all | paste - - | awk -F'\t' '$1 != $2 { print NR }' |
		while read -r k; do
			f "${pairs[k - 1]}" "diff of the files and of the stored runs differ"
		done
fi >fail/diff

phase checks
# every report in headless Chromium, DIFF_PAGE (default 120) to a browser
# session, as iframes of one page (a session costs 1.4 s of CPU to start:
# 25 to a session, five sessions, took 6 s longer): no console error, the
# page's script ran.  Under
# the sanitizers the reports are written (their memory checked) but not
# rendered: what the browser sees does not depend on how scopedb was
# built, and the plain build's run renders them (as e2e_report's browser
# case).
browser=$(command -v chromium || command -v chromium-browser || true)
if [ "${SCOPEDB_SANITIZE:-OFF}" = ON ]; then
	note "reports not rendered under the sanitizers: the plain build renders them"
elif [ -z "$browser" ]; then
	[ "${CI:-}" = true ] && bad "chromium is not installed (bash .ci/deps test installs it)"
	echo "e2e_differential: chromium not installed: reports not rendered" >&2
else
	web=$(mktemp -d /tmp/scopedb-web-XXXXXX)
	chmod 777 "$web"
	per_page=${DIFF_PAGE:-120}
	[[ $per_page =~ ^[1-9][0-9]{0,5}$ ]] || {
		bad "DIFF_PAGE '$per_page': not a number of reports from 1"
		per_page=120
	}
	as_user=()
	[ "$(id -u)" = 0 ] && as_user=(runuser -u nobody --)
	reports=()
	for j in "${heads[@]}"; do
		[ -s "out/report.$j.html" ] && reports+=("$j")
	done
	for ((k = 0; k < ${#reports[@]}; k += per_page)); do
		page=$web/all$k.html
		{
			echo '<!DOCTYPE html><html><head><meta charset="utf-8"><title>reports</title></head><body>'
			for j in "${reports[@]:k:per_page}"; do
				cp "out/report.$j.html" "$web/r$j.html"
				echo "<iframe src=\"r$j.html\" data-pair=\"$j\"></iframe>"
			done
			cat <<-'EOF'
				<pre id="out"></pre><script>
				window.addEventListener('load', function () {
					var out = [];
					document.querySelectorAll('iframe').forEach(function (f) {
						var d = f.contentDocument;
						out.push(f.dataset.pair + ' ' + (d && d.getElementById('filter') ? 'ran' : 'dead'));
					});
					document.getElementById('out').textContent = out.join('\n');
				});
				</script></body></html>
			EOF
		} >"$page"
		chmod 644 "$web"/*.html
		"${as_user[@]}" env HOME="$web" timeout 240 "$browser" --headless --disable-gpu \
			--no-first-run --user-data-dir="$web/profile" --allow-file-access-from-files \
			--host-resolver-rules="MAP * ~NOTFOUND" --enable-logging=stderr --v=0 \
			--dump-dom "file://$page" >"$web/dom.html" 2>"$web/stderr.$k"
		sed -n '/<pre id="out">/,/<\/pre>/p' "$web/dom.html" | sed 's/<[^>]*>//g' >"$web/ran"
		for j in "${reports[@]:k:per_page}"; do
			grep -qx "$j ran" "$web/ran" ||
				f "$j" "report: the page did not render, or its script did not run ($(tail -1 "$web/stderr.$k" | cut -c1-200))"
		done
		# one failure per page: its first console line and how many there were
		grep -E 'CONSOLE|Uncaught|net::ERR' "$web/stderr.$k" >"$web/console"
		grep -o 'r[0-9]*\.html' "$web/console" | sort | uniq -c | while read -r c r; do
			j=${r#r}
			f "${j%.html}" "report: $c browser console line(s), the first: $(grep -m1 -F "/$r" "$web/console" | cut -c1-300)"
		done
		grep -v 'r[0-9]*\.html' "$web/console" | head -3 | while read -r line; do
			f "${reports[k]}" "browser console: $(cut -c1-300 <<<"$line")"
		done
	done >fail/report
	rm -rf "$web"
fi

phase chromium
[ -n "${DIFF_WORK:-}" ] && rm -rf "$DIFF_WORK" && cp -r "$E2E_DIR" "$DIFF_WORK"
# --- the verdict: each failure with its seed, its profile kept -------------------------
cat fail/* >out/failures 2>/dev/null
nfail=0
declare -A told
while IFS=$'\t' read -r i msg; do
	[ -n "$i" ] || continue
	nfail=$((nfail + 1))
	bad "${label[i]:-profile $i}: $msg"
	[ -n "${told[$i]:-}" ] && continue
	told[$i]=1
	[ "${label[i]%% *}" = seed ] && {
		mkdir -p "$keep"
		name=seed-${label[i]#seed }
		name=${name//\//-}
		cp "${file[i]}" "$keep/$name.h5" 2>/dev/null
		[ -n "${ref[i]}" ] && cp "${ref[i]}" "$keep/$name.ref.json" 2>/dev/null
		[ -n "${twin[i]:-}" ] && cp "${twin[i]}" "$keep/$name${twin[i]#p/"$i"}" 2>/dev/null
		echo "  ${label[i]}: $(jq -r .describe "${ref[i]}" 2>/dev/null); again: ${remake[i]}; kept: $keep/$name.h5 (add it to tests/differential/)" >&2
	}
done <out/failures
[ "$nfail" = 0 ] && ok
nseeds=$(printf '%s\n' "${label[@]}" | grep -c '^seed')
echo "e2e_differential: $n profiles ($nseeds random, seeds $first-$((first + count - 1))), ${#heads[@]} pairs, $([ $pg = 1 ] && echo "SQLite and PostgreSQL" || echo SQLite), $(($(date +%s) - start)) s:${phases%,}"
finish
