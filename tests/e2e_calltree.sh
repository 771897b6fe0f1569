#!/usr/bin/env bash
# End-to-end tests of the call tree (issue 22, docs/format.md section 10)
# through the binary, on the profiles the real scope-profiler wrote
# (tests/data/real): the numbers of each path (show --by path), the self
# metric by name and by path, --include on the joined path text and on the
# last name, the JSON rows' "path" and "depth", the one warning for a rank
# whose calls overlap, what a run without paths says (an aggregate
# file; a run stored before scopedb kept call trees), and attribution by
# path and by name (the growth of a row explained by the paths whose self
# time grew).
. "$(dirname "$0")/e2e-lib.sh"
# (a memory bound the sanitizers cannot keep)
e2e_plain_only=deep-new-paths
: "${MKPROFILE:?}"
S=$SCOPEDB
db=$E2E_DIR/t.sqlite
REAL=${TESTDATA:?}/real
for f in fib-recursive nested-base nested-slow mpi2-base mpi2-slow; do
	cp "$REAL/$f.h5" . || exit 1
done
"$S" ingest -q --db "$db" --commit aaa1111 fib-recursive.h5 nested-base.h5 nested-slow.h5 \
	mpi2-base.h5 mpi2-slow.h5 >/dev/null 2>&1 || exit 1

if tcase paths; then
# fib-recursive.h5: the recursion is one node; main's self is what
# fibonacci leaves of it (docs/format.md section 10.5)
expect 0 "show fib by path" $S show --db "$db" 1 --by path --format csv --columns calls,total,self
equals "fib paths" "$out" "region,calls,total,self
main,1,0.012030479,1.7233e-05
main > fibonacci,1,0.012013246,0.012013246"
expect 0 "show nested-base by path" $S show --db "$db" 2 --by path --format csv --columns calls,total,self --sort name
equals "nested-base paths" "$out" "region,calls,total,self
main,1,0.133036491,0.000548151
main > io,30,0.059771125,0.059771125
main > solve,30,0.072717215,0.002894414
main > solve > assemble,30,0.027722455,0.027722455
main > solve > factorize,30,0.042100346,0.042100346"
# by name, show stays upstream's: no self column unless asked for
expect 0 "show by name" $S show --db "$db" 1 --format csv
equals "show by name header" "$(printf '%s\n' "$out" | head -1)" \
	"region,ranks,calls,total,avg,min,max,std,p50,p95,p99,imbalance"
contains "fibonacci by name counts every level" "$out" "fibonacci,1,41,0.066"
fi

if tcase recursion; then
# a path that recursed is marked, as upstream marks it: calls counts its
# outermost calls once, nested the calls inside a call of the same path
# (41 calls of fibonacci by name = 1 + 40); shown by default by path when
# a shown path recursed
expect 0 "fib nested" $S show --db "$db" 1 --by path --format csv
equals "fib nested header" "$(printf '%s\n' "$out" | head -1)" \
	"region,ranks,calls,nested,total,self,avg,min,max,std,p50,p95,p99,imbalance"
contains "fibonacci: 1 outermost call, 40 nested" "$out" "main > fibonacci,1,1,40,"
contains "main did not recurse" "$out" "main,1,1,0,"
# mpi2: refine recursed 3 deep on each rank; by rank, and in the tree
expect 0 "refine nested" $S show --db "$db" 4 --tree --format csv --columns calls,nested --include 'main > refine'
equals "refine on both ranks" "$out" "region,calls,nested
main > refine,2,6"
expect 0 "refine on rank 1" $S show --db "$db" 4 --by path --ranks 1 --format json --columns nested --include 'main > refine'
contains "rank 1 alone" "$out" '{"name": "main > refine", "nested": 3, "path"'
expect 0 "by name 8 calls" $S show --db "$db" 4 --format csv --columns calls,nested --include refine
equals "by name: nested is a path's" "$out" "region,calls,nested
refine,8,"
# no path recursed: no column unless asked for
expect 0 "nested-base" $S show --db "$db" 2 --by path --format csv
equals "no nested column" "$(printf '%s\n' "$out" | head -1)" \
	"region,ranks,calls,total,self,avg,min,max,std,p50,p95,p99,imbalance"
expect 0 "sort by nested" $S show --db "$db" 4 --by path --sort nested --format csv --columns nested
equals "refine first" "$(printf '%s\n' "$out" | sed -n 2p)" "main > refine,6"
fi

if tcase self; then
# the self metric by name is the sum of the name's paths
expect 0 "self by name" $S diff --db "$db" 1 1 --metric self --format csv
contains "fibonacci self by name" "$out" "fibonacci,0.012013246,0.012013246,0.0,0.0"
# nested-slow sleeps inside solve itself: its self time grew, not its children's
expect 0 "self of solve" $S diff --db "$db" 2 3 --by path --metric self --format csv
equals "solve's self grew most" "$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f1)" "main > solve"
# mpi2-slow: precondition sleeps longer, so its self time grew most
expect 0 "mpi2 self" $S diff --db "$db" 4 5 --by path --metric self --format csv
equals "precondition grew most" "$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f1)" \
	"main > timestep > solve > precondition"
# and a check budget on self
expect 1 "check self" $S check --db "$db" 4 5 --by path --metric self --max-regression 40
contains "check self names the path" "$out" "main > timestep > solve > precondition"
# files work as stored runs do
expect 0 "self of files" $S diff nested-base.h5 nested-slow.h5 --by path --metric self --format csv
equals "files: solve first" "$(printf '%s\n' "$out" | sed -n 2p | cut -d, -f1)" "main > solve"
fi

if tcase include; then
# a pattern matches the joined path (re.match: a prefix) or the last name
expect 0 "include joined" $S show --db "$db" 2 --by path --include 'main > solve' --format csv --columns calls --sort name
equals "joined prefix" "$(printf '%s\n' "$out" | cut -d, -f1 | tail -n +2)" "main > solve
main > solve > assemble
main > solve > factorize"
expect 0 "include last name" $S show --db "$db" 2 --by path --include 'assemble$' --format csv --columns calls
equals "last name" "$(printf '%s\n' "$out" | cut -d, -f1 | tail -n +2)" "main > solve > assemble"
expect 0 "exclude" $S diff --db "$db" 2 3 --by path --exclude 'main > solve' --format csv
equals "exclude the subtree" "$(printf '%s\n' "$out" | cut -d, -f1 | tail -n +2 | sort)" "main
main > io"
fi

if tcase json; then
expect 0 "show json" $S show --db "$db" 1 --by path --format json --columns calls
contains "show path array" "$out" '"name": "main > fibonacci", "calls": 1, "path": ["main","fibonacci"], "depth": 2}'
expect 0 "diff json" $S diff --db "$db" 2 3 --by path --format json --include 'main > io'
contains "diff path array" "$out" '"path": ["main","io"], "depth": 2}'
expect 0 "diff json by name" $S diff --db "$db" 2 3 --format json
case "$out" in *'"depth": '*) bad "by name: a path array" ;; *) ok ;; esac
fi

if tcase tree; then
expect 0 "show --tree" $S show --db "$db" 5 --tree --columns calls,total,self
equals "show tree" "$(printf '%s\n' "$out" | tail -n +3)" "region              calls      total       self
main                    2  99.0 ms     0.214 ms
  timestep             50  93.7 ms     0.382 ms
    solve              50  85.9 ms     3.53 ms
      precondition     50  43.5 ms    43.5 ms
      assemble         50  21.0 ms    21.0 ms
      factorize        50  17.8 ms    17.8 ms
    halo_exchange      50   7.42 ms    7.42 ms
  io                    2   4.18 ms    4.18 ms
  refine                2   0.905 ms   0.905 ms"
# markdown: GitHub trims the spaces around a cell's text, so the indent
# is no-break spaces (U+00A0), which it keeps
nb=$'\u00a0'
expect 0 "show --tree --by path" $S show --db "$db" 5 --tree --by path --columns calls --format csv
expect 0 "show --tree" $S show --db "$db" 5 --tree --columns calls --format csv
equals "--tree --by path is --tree" "$out" "$(
	$S show --db "$db" 5 --tree --by path --columns calls --format csv
)"
# --by name with --tree is refused, not ignored (the tree was printed by path)
for c in show:5 diff:"4 5"; do
	# shellcheck disable=SC2086
	expect 2 "${c%%:*} --tree --by name" $S ${c%%:*} --db "$db" ${c#*:} --tree --by name
	equals "${c%%:*} --tree --by name: why" "${err%%$'\n'*}" \
		"scopedb: --tree shows the call tree's paths: it cannot be given with --by name"
	equals "${c%%:*} --tree --by name: nothing out" "$out" ""
done
expect 0 "show --tree markdown" $S show --db "$db" 5 --tree --columns calls --format markdown
contains "markdown tree: depth 1" "$out" "| $nb${nb}timestep | 50 |"
contains "markdown tree: depth 2" "$out" "| $nb$nb$nb${nb}solve | 50 |"
expect 0 "diff --tree markdown" $S diff --db "$db" 4 5 --tree --format markdown
contains "markdown diff tree" "$out" "| $nb$nb$nb$nb$nb${nb}precondition | "
# no untitled blank column for the side marks when no row is of one side
contains "markdown diff tree: header" "$out" "
| region | a | b | delta | delta % |
"
# machines get the joined names, in tree order
expect 0 "show --tree csv" $S show --db "$db" 2 --tree --columns total --format csv
equals "tree csv" "$(printf '%s\n' "$out" | cut -d, -f1)" "region
main
main > solve
main > solve > factorize
main > solve > assemble
main > io"
# a row whose parent is filtered out is a root with its whole path
expect 0 "show --tree include" $S show --db "$db" 5 --tree --include 'main > timestep > solve' --columns total
contains "subtree root" "$out" "main > timestep > solve  85.9 ms"
contains "subtree child" "$out" "  precondition           43.5 ms"
expect 0 "diff --tree" $S diff --db "$db" 4 5 --tree --metric self
contains "diff tree child" "$out" "      precondition  28.5 ms    43.5 ms    +15.0 ms      +52.6%"
# JSON rows in the tree's order too, also when rows grew (attribution)
expect 0 "diff --tree json" $S diff --db "$db" 4 5 --tree --metric p95 --format json
equals "diff tree json order" "$(printf '%s\n' "$out" | grep -o '^  {"name": "[^"]*"' | cut -d'"' -f4)" \
	"main
main > timestep
main > timestep > solve
main > timestep > solve > precondition
main > timestep > solve > factorize
main > timestep > solve > assemble
main > timestep > halo_exchange
main > refine
main > io"
expect 0 "diff --tree marks" $S diff --db "$db" 2 4 --tree
contains "only in b" "$out" "  timestep            -       74.4 ms    +74.4 ms          -  only in b"
contains "only in a" "$out" "only in a"
expect 0 "diff --tree marks, markdown" $S diff --db "$db" 2 4 --tree --format markdown
contains "markdown marks: their column" "$out" "
| region | a | b | delta | delta % |  |
"
contains "markdown marks: only in b" "$out" " | - | only in b |"
fi

if tcase attribution; then
# nested-slow.h5 sleeps inside solve itself: main's and solve's growth is
# solve's own self time (more than 100%: io and factorize got faster)
expect 1 "check nested" $S check --db "$db" 2 3 --by path --max-regression 50
contains "solve itself" "$out" "main > solve +194%: 111% from main > solve (+157 ms self)"
contains "main from solve" "$out" "main +88.1%: 134% from main > solve (+157 ms self)"
# beside a budget it nearly equals, the line's percent tells its side as
# the row's does (+194% read as within +194.04%)
expect 1 "check nested, a budget of +194.04%" $S check --db "$db" 2 3 --by path \
	--max-regression 194.04 --include 'main > solve$'
contains "the line's digits" "$out" "main > solve +194.05%: 111% from main > solve"
# mpi2-slow.h5: precondition's self time
expect 1 "check mpi2" $S check --db "$db" 4 5 --by path --max-regression 20 --format markdown
contains "mpi2 main" "$out" "main +24.4%: 77.2% from main \> timestep \> solve \> precondition (+15.0 ms self)"
expect 0 "diff json" $S diff --db "$db" 4 5 --by path --format json --include 'main > timestep$'
contains "attribution object" "$out" '"attribution": {"region": "main > timestep", "metric": "total", "delta": '
contains "largest cause first" "$out" '"causes": [{"path": ["main","timestep","solve","precondition"], "delta_self": 0.01499331'
expect 1 "junit" $S check --db "$db" 4 5 --by path --max-regression 20 --format junit
contains "junit line" "$out" "attribution: main &gt; timestep &gt; halo_exchange +29.6%: 100% from main &gt; timestep &gt; halo_exchange (+1.70 ms self)"
# a pull request's annotations say the cause too (escaped as their data)
expect 1 "github" $S check --db "$db" 2 3 --max-regression 50 --format github
contains "github cause" "$out" \
	"::main: total 133 ms -> 250 ms (+88.1%25); over the budget of +50%25; 134%25 from main > solve (+157 ms self)"
# another time metric is explained through the path's total, and says so
expect 1 "check p95 by path" $S check --db "$db" 4 5 --by path --metric p95 --max-regression 60 --include 'halo'
contains "p95 line" "$out" "main > timestep > halo_exchange p95 +74.2%, total +1.70 ms: 100% from main > timestep > halo_exchange (+1.70 ms self)"
# calls: nothing to attribute
expect 0 "diff calls" $S diff --db "$db" 2 3 --by path --metric calls --format json
case "$out" in *attribution*) bad "attribution of calls" ;; *) ok ;; esac
fi

if tcase attribution-by-name; then
# by name (the default), over the name's paths: main and solve grew by
# main > solve's own self time
expect 0 "diff nested by name" $S diff --db "$db" 2 3 --format json
contains "main from solve" "$out" '"attribution": {"region": "main", "metric": "total", "delta": 0.117194926, "causes": [{"path": ["main","solve"], "delta_self": 0.157179946, "share": 1.3411838836776941}'
contains "solve from itself" "$out" '"attribution": {"region": "solve", "metric": "total", "delta": 0.141106883, "causes": [{"path": ["main","solve"], "delta_self": 0.157179946, "share": 1.1139070090578076}'
case "$out" in *'"region": "io"'*) bad "io shrank: no attribution" ;; *) ok ;; esac
expect 1 "check nested by name" $S check --db "$db" 2 3 --max-regression 50
contains "check line by name" "$out" "main +88.1%: 134% from main > solve (+157 ms self)"
# mpi2: the path whose self time grew most
expect 1 "check mpi2 by name" $S check --db "$db" 4 5 --max-regression 20 --format markdown
contains "mpi2 by name" "$out" "solve +25.7%: 85.5% from main \> timestep \> solve \> precondition (+15.0 ms self)"
# a finding of another metric says what the share is of, as the line does
expect 1 "github, avg" $S check --db "$db" 4 5 --max-regression 5 --metric avg --format github
contains "github, avg: of the total's growth" "$out" \
	"::timestep: avg 1.49 ms -> 1.87 ms (+25.9%25); over the budget of +5%25; total +19.3 ms: 77.9%25 from main > timestep > solve > precondition (+15.0 ms self)"
expect 1 "junit by name" $S check --db "$db" 4 5 --max-regression 20 --format junit
contains "junit line by name" "$out" "attribution: timestep +25.9%: 77.9% from main &gt; timestep &gt; solve &gt; precondition (+15.0 ms self)"
# refine calls itself: the row counts the nested calls again, the
# attribution explains its outermost calls and says so
expect 1 "check recursive" $S check --db "$db" 4 5 --max-regression 5 --include '^refine$'
contains "outermost calls" "$out" "refine total +11%, total of its outermost calls +91.9 µs: 100% from main > refine (+91.9 µs self)"
# several candidate files: the mean of their totals is explained
expect 1 "check files" $S check nested-base.h5 nested-slow.h5 nested-base.h5 --max-regression 10
contains "mean over the files" "$out" "main total +44%, mean total over the 2 files +58.6 ms: 134% from main > solve (+78.6 ms self)"
expect 1 "check files json" $S check nested-base.h5 nested-slow.h5 nested-base.h5 --max-regression 10 --format json
contains "files in json" "$out" '"metric": "total", "delta": 0.05859746299999999, "files": 2, "causes": ['
# self by name: the name's paths themselves
expect 1 "check self by name" $S check --db "$db" 4 5 --metric self --max-regression 40
contains "self line" "$out" "precondition +52.6%: 100% from main > timestep > solve > precondition (+15.0 ms self)"
# runs without nesting: by name nothing to attribute, output unchanged
"$MKPROFILE" --seed 1 flat1.h5 >/dev/null && "$MKPROFILE" --seed 2 --slow solve=1.3 flat2.h5 >/dev/null || exit 1
expect 0 "flat by name" $S diff flat1.h5 flat2.h5 --format json
case "$out" in *attribution*) bad "flat runs: attribution by name" ;; *) ok ;; esac
expect 1 "flat check" $S check flat1.h5 flat2.h5 --max-regression 10
case "$out" in *' from '*) bad "flat runs: an attribution line" ;; *) ok ;; esac
fi

if tcase no-paths; then
"$MKPROFILE" --aggregate --timestamp 2024-01-05T00:00:00Z agg.h5 >/dev/null || exit 1
expect 0 "ingest aggregate" $S ingest -q --db "$db" --commit aaa1111 agg.h5
expect_err 2 "aggregate by path" \
	"scopedb: run 6 has no paths: its file keeps no calls, only totals (aggregate layout); use --by name" \
	$S show --db "$db" 6 --by path
# a run stored before scopedb kept call trees (schema 2, made by hand)
old=$E2E_DIR/old.sqlite
expect 0 "ingest" $S ingest -q --db "$old" --commit aaa1111 nested-base.h5 nested-slow.h5
sqlite3 "$old" "DROP TABLE run_nesting; DROP TABLE paths; DROP TABLE path_ranks;
	ALTER TABLE run_regions DROP COLUMN self_ns; UPDATE timings SET exclusive_ns = NULL;
	PRAGMA user_version = 2" || bad "downgrade"
expect 0 "old run by name" $S show --db "$old" 1 --columns self --format csv --sort name
equals "old run: self unknown" "$out" "region,self
assemble,
factorize,
io,
main,
solve,"
expect_err 2 "old run by path" \
	"scopedb: run 1 was stored before scopedb kept call trees, so it has no paths; to add them, remove it and ingest its file again (scopedb rm 1; scopedb ingest 'nested-base.h5')" \
	$S show --db "$old" 1 --by path
# by name, runs without paths are checked as ever, without attribution
expect 1 "old runs: check by name" $S check --db "$old" 1 2 --max-regression 50
contains "old runs: the verdict" "$out" "Budget violations: solve, main"
case "$out" in *' from '*) bad "old runs: an attribution line" ;; *) ok ;; esac
fi

if tcase findings; then
# check --format github/codequality by path: a finding on a path points at
# the source of the path's last region (here solve's, not main's)
nest() {
	cat >"$1" <<EOF
{"format": "scope-profiler-profile", "format_version": 1, "time_unit": "nanoseconds",
 "num_ranks": 1, "event_data_available": true, "metadata": {"mpi_size": 1},
 "regions": [
  {"name": "main", "rank": 0, "source_file": "src/main.py", "source_lineno": 3,
   "start_times_ns": [0], "end_times_ns": [1000000]},
  {"name": "solve", "rank": 0, "source_file": "src/solver.py", "source_lineno": 17,
   "start_times_ns": [100], "end_times_ns": [$2]}]}
EOF
}
nest f1.json 500100
nest f2.json 900100
expect 1 "github by path" $S check f1.json f2.json --by path --format github
contains "the path's last region's line" "$out" \
	"::error file=src/solver.py,line=17,title=scopedb%3A main > solve +80%25::main > solve: total"
expect 1 "codequality by path" $S check f1.json f2.json --by path --format codequality
contains "codequality: solve's line" "$out" '"location": {"path": "src/solver.py", "lines": {"begin": 17}}}'
fi

if tcase report; then
# report --by path: the verdict's rows are paths with the attribution
# under it, and the call tree section shows each node under its parent
expect 0 "report by path" $S report --db "$db" 2 3 --by path -o r.html
page=$(<r.html)
contains "report: the tree section" "$page" '<section id="tree"><h2>Call tree</h2>'
contains "report: nav to the tree" "$page" '<a href="#tree">Call tree</a>'
contains "report: attribution under the verdict" "$page" \
	'<li>main +88.1%: 134% from main &gt; solve (+157 ms self)</li>'
contains "report: solve under main" "$page" \
	'<tr class="bad"><td class="txt lv1" title="main &gt; solve">solve</td>'
contains "report: assemble under solve" "$page" '<td class="txt lv2" title="main &gt; solve &gt; assemble">assemble</td>'
# siblings by the candidate's value: main > solve (214 ms) before main > io
case $page in
*'title="main &gt; solve"'*'title="main &gt; io"'*) ok ;;
*) bad "report: siblings by the candidate's value" ;;
esac
# by name, no tree
expect 0 "report by name" $S report --db "$db" 2 3 -o n.html
case $(<n.html) in
*'id="tree"'*) bad "report by name has no tree" ;;
*) ok ;;
esac
contains "report by name: attribution under the verdict" "$(<n.html)" \
	'<li>main +88.1%: 134% from main &gt; solve (+157 ms self)</li>'
# names from the profile are escaped in the tree
cat >h1.json <<'EOF'
{"format": "scope-profiler-profile", "format_version": 1, "time_unit": "nanoseconds",
 "num_ranks": 1, "event_data_available": true, "metadata": {"mpi_size": 1},
 "regions": [
  {"name": "<b>main</b>", "rank": 0, "start_times_ns": [0], "end_times_ns": [1000000]},
  {"name": "a&\"b'<script>", "rank": 0, "start_times_ns": [100], "end_times_ns": [500100]}]}
EOF
sed 's/500100/900100/' h1.json >h2.json
expect 0 "report of hostile names" $S report --db "$db" h1.json h2.json --by path -o h.html
page=$(<h.html)
contains "hostile: escaped in the tree" "$page" \
	"title=\"&lt;b&gt;main&lt;/b&gt; &gt; a&amp;&quot;b&apos;&lt;script&gt;\">a&amp;&quot;b&apos;&lt;script&gt;</td>"
case $page in
*'<b>main</b>'* | *"<script>\""* | *"'<script>"*) bad "hostile: a raw name in the page" ;;
*) ok ;;
esac
fi

if tcase history-note; then
# the note on runs of other rank counts looks at the runs shown: the
# path of mpi2 (2 ranks) is in runs 4 and 5 alone, though the newest
# run of the store (1 rank) lacks it
expect 0 "path history of the 2-rank runs" $S history --db "$db" 'main > timestep > solve' --by path
equals "no note: the runs shown are alike" "$err" ""
fi

if tcase history; then
# history and changes --by path: 30 nightly runs where main > solve gets
# slower at the 16th; its sibling io and main's self time stay
hs=$E2E_DIR/h.sqlite
for i in $(seq 1 30); do
	d=$((i <= 15 ? 500100 : 900100))
	d=$((d + (i * 7919 % 13) * 1000))
	cat >"n$i.json" <<EOF
{"format": "scope-profiler-profile", "format_version": 1, "time_unit": "nanoseconds",
 "num_ranks": 1, "event_data_available": true,
 "metadata": {"mpi_size": 1, "timestamp": "2024-01-$(printf %02d "$i")T00:00:00Z"},
 "regions": [
  {"name": "main", "rank": 0, "start_times_ns": [0], "end_times_ns": [2000000]},
  {"name": "solve", "rank": 0, "start_times_ns": [100, 1000000], "end_times_ns": [$d, 1000500]},
  {"name": "io", "rank": 0, "start_times_ns": [1500000], "end_times_ns": [1600000]}]}
EOF
done
"$S" ingest -q --db "$hs" $(seq -f 'n%g.json' 1 30) >/dev/null 2>&1 ||
	bad "ingest the nightly runs"
expect 0 "history by path" $S history --db "$hs" --by path 'main > solve' --limit 2 --format csv
equals "history by path rows" "$out" "region,run,recorded_at,commit,label,value,delta,pct,change_point,provisional
main > solve,29,2024-01-29T00:00:00Z,,,0.0009065,1.99999999999994e-06,0.22111663902708018,0,0
main > solve,30,2024-01-30T00:00:00Z,,,0.0009085,2.0000000000000486e-06,0.22062879205736885,0,0"
# a last name follows every path that ends in it; self by path
expect 0 "history by last name" $S history --db "$hs" --by path io --metric self --limit 1 --format csv
equals "history: io's one path" "$(printf '%s\n' "$out" | cut -d, -f1,2,6 | tail -n +2)" "main > io,30,0.0001"
# JSON: each path's block carries its names and depth, as diff's rows
expect 0 "history json by path" $S history --db "$hs" --by path 'main > solve' --limit 1 --format json
contains "history: path array" "$out" '{"name": "main > solve", "path": ["main","solve"], "depth": 2, "enough_history": false, "runs": ['
expect 0 "history json by name" $S history --db "$hs" solve --limit 1 --format json
case "$out" in *'"depth": '*) bad "history by name: a path array" ;; *) ok ;; esac
expect 0 "history p95 by path" $S history --db "$hs" --by path --match 'main > solve' --metric p95 --limit 1 --format json
# p95 of run 30's two calls of solve, 500 ns and 908,000 ns, interpolated
contains "history p95 by path" "$out" '"value": 0.000862625'
expect 0 "changes by path" $S changes --db "$hs" --by path --format csv
equals "changes: main > solve only" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1,4,8)" \
	"main > solve,2024-01-15T00:00:00Z,2024-01-16T00:00:00Z"
expect 0 "changes json by path" $S changes --db "$hs" --by path --format json
contains "changes: path array" "$out" '{"region": "main > solve", "path": ["main","solve"], "depth": 2, "before": '
expect 0 "changes json by name" $S changes --db "$hs" --format json
case "$out" in *'"depth": '*) bad "changes by name: a path array" ;; *) ok ;; esac
expect 0 "changes by path, io" $S changes --db "$hs" --by path --include io --format csv
equals "changes: none for io" "$(printf '%s\n' "$out" | wc -l)" 1
# p95 by path from each path's stored percentiles: the same change; a
# store of schema 3 (no stored percentiles: upgraded, its runs' durations
# decoded) gives the same change points
expect 0 "changes by path, p95" $S changes --db "$hs" --by path --metric p95 --format csv
equals "changes p95: main > solve only" "$(printf '%s\n' "$out" | tail -n +2 | cut -d, -f1,4,8)" \
	"main > solve,2024-01-15T00:00:00Z,2024-01-16T00:00:00Z"
want=$out
cp "$hs" hs3.sqlite
sqlite3 hs3.sqlite "ALTER TABLE paths DROP COLUMN p50_ns; ALTER TABLE paths DROP COLUMN p95_ns;
	ALTER TABLE paths DROP COLUMN p99_ns; PRAGMA user_version = 3" || bad "downgrade to 3"
expect 0 "changes by path, p95, schema 3" $S changes --db hs3.sqlite --by path --metric p95 --format csv
equals "schema 3: the same changes p95 by path" "$out" "$want"
expect_err 2 "changes by path, no match" "scopedb: no path matches 'zzz' in store '$hs'" \
	$S changes --db "$hs" --by path --include zzz
fi

if tcase too-deep; then
# rank 1's calls nest 1,025 deep (a and b alternating: no name repeats
# next to itself), past the 1,024 names a path may have: the rank keeps
# its self times but has no paths, and --by path says it leaves it out;
# export writes the run flat (it wrote rank 0's tree alone, unsaid)
python3 - >deep.json <<'EOF'
import json
n = 1025
starts = list(range(n))
ends = [2 * n - i for i in range(n)]
names = ["a" if i % 2 == 0 else "b" for i in range(n)]
regions = []
for nm in ("a", "b"):
    idx = [i for i in range(n) if names[i] == nm]
    regions.append({"name": nm, "rank": 1, "start_times_ns": [starts[i] for i in idx],
                    "end_times_ns": [ends[i] for i in idx]})
    regions.append({"name": nm, "rank": 0, "start_times_ns": [0 if nm == "a" else 10],
                    "end_times_ns": [100 if nm == "a" else 20]})
print(json.dumps({"format": "scope-profiler-profile", "format_version": 1, "num_ranks": 2,
                  "metadata": {"mpi_size": 2}, "regions": regions}))
EOF
expect 0 "deep: ingest" $S ingest -q --db "$E2E_DIR/deep.sqlite" --commit aaa1111 deep.json
equals "deep: ingest warns" "$err" "scopedb: warning: 'deep.json': rank 1: a path is more than 1024 names long, so rank 1 has no paths; its self times and flat numbers are kept"
expect 0 "deep: by path" $S show --db "$E2E_DIR/deep.sqlite" 1 --by path --format csv --columns calls
contains "deep: said" "$err" "scopedb: warning: run 1: 1 of its 2 ranks with calls has no call tree with paths"
equals "deep: rank 0's paths" "$out" "region,calls
a,1
a > b,1"
expect 0 "deep: self by name kept" $S show --db "$E2E_DIR/deep.sqlite" 1 --format csv --columns self --ranks 1
equals "deep: rank 1's self times" "$out" "region,self
a,1.026e-06
b,1.024e-06"
expect 0 "deep: export flat" $S export 1 --db "$E2E_DIR/deep.sqlite"
equals "deep: a row per region and rank" "$(tail -n +2 <<<"$out" | cut -d, -f6,7,8 | sort)" "a,0,1
a,1,513
b,0,1
b,1,512"
fi

if tcase overlap; then
# two calls of rank 0 overlap without nesting: one warning, no tree for
# that rank, the flat numbers kept
cat >overlap.json <<'EOF'
{"format": "scope-profiler-profile", "format_version": 1, "time_unit": "nanoseconds",
 "num_ranks": 1, "event_data_available": true, "metadata": {"mpi_size": 1},
 "regions": [
  {"name": "a", "rank": 0, "start_times_ns": [10, 100], "end_times_ns": [50, 200]},
  {"name": "b", "rank": 0, "start_times_ns": [40, 120], "end_times_ns": [60, 150]}]}
EOF
expect_err 0 "overlap warning" \
	"scopedb: warning: 'overlap.json': rank 0: a call of 'b' [40, 60] ns starts inside a call of 'a' [10, 50] ns and ends after it, so rank 0 has no call tree; the flat numbers are not affected, and --by path leaves it out" \
	$S ingest -q --db "$E2E_DIR/o.sqlite" --commit aaa1111 overlap.json
expect 0 "flat numbers" $S show --db "$E2E_DIR/o.sqlite" 1 --format csv --columns calls,total
equals "flat numbers kept" "$out" "region,calls,total
a,2,1.4e-07
b,2,5e-08"
expect_err 2 "no tree, no paths" \
	"scopedb: run 1 has no paths: no rank has a call tree with paths (calls that overlap without nesting, rows of totals only, or paths too deep or too many: see the warning of its ingest); use --by name" \
	$S show --db "$E2E_DIR/o.sqlite" 1 --by path
# the same file given as a file: named, with its read's own words (it sent
# the reader to 'scopedb ingest', which writes a store, to learn them)
expect_err 2 "a file without a tree" \
	"scopedb: 'overlap.json' has no paths: rank 0: a call of 'b' [40, 60] ns starts inside a call of 'a' [10, 50] ns and ends after it, so rank 0 has no call tree; the flat numbers are not affected, and --by path leaves it out; use --by name" \
	$S show overlap.json --by path
expect_err 2 "a file without a tree, diff" \
	"scopedb: 'overlap.json' has no paths: rank 0: a call of 'b' [40, 60] ns starts inside a call of 'a' [10, 50] ns and ends after it, so rank 0 has no call tree; the flat numbers are not affected, and --by path leaves it out; use --by name" \
	$S diff --db "$E2E_DIR/o.sqlite" overlap.json 1 --by path
# one rank of two without a tree: a check by path would see the other
# only (main +50% on both ranks; rank 1 alone says so, rank 0's
# overlapping x and y take its tree): check and report refuse, diff
# warns, --ranks chooses, and by name the check fails as it should
cat >pbase.json <<'EOF'
{"format":"scope-profiler-profile","format_version":1,"regions":[
 {"name":"main","rank":0,"start_times_ns":[0],"end_times_ns":[100]},
 {"name":"main","rank":1,"start_times_ns":[0],"end_times_ns":[100]},
 {"name":"solve","rank":0,"start_times_ns":[10],"end_times_ns":[50]},
 {"name":"solve","rank":1,"start_times_ns":[10],"end_times_ns":[50]}]}
EOF
cat >pcand.json <<'EOF'
{"format":"scope-profiler-profile","format_version":1,"regions":[
 {"name":"main","rank":0,"start_times_ns":[0],"end_times_ns":[150]},
 {"name":"main","rank":1,"start_times_ns":[0],"end_times_ns":[150]},
 {"name":"solve","rank":0,"start_times_ns":[10],"end_times_ns":[90]},
 {"name":"solve","rank":1,"start_times_ns":[10],"end_times_ns":[90]},
 {"name":"x","rank":0,"start_times_ns":[160],"end_times_ns":[180]},
 {"name":"y","rank":0,"start_times_ns":[170],"end_times_ns":[190]}]}
EOF
partial="'pcand.json': 1 of its 2 ranks with calls has no call tree with paths (calls that overlap without nesting, rows of totals only, too many calls to hold, or paths too deep or too many), so its paths leave that rank out"
expect_err 2 "check by path, a rank without a tree" \
	"scopedb: cannot check by path: $partial; check --by name, or choose ranks with a tree (--ranks)" \
	$S check pbase.json pcand.json --by path --max-regression 10
expect 1 "check by name fails" $S check pbase.json pcand.json --max-regression 10
expect 1 "check by path of the ranks with a tree fails" \
	$S check pbase.json pcand.json --by path --ranks 1 --max-regression 10
expect_err 2 "check by path, --ranks naming the rank without a tree" \
	"scopedb: cannot check by path: 'pcand.json': rank 0 has calls but no call tree with paths (calls that overlap without nesting, rows of totals only, too many calls to hold, or paths too deep or too many), so its paths leave it out; check --by name, or choose ranks with a tree (--ranks)" \
	$S check pbase.json pcand.json --by path --ranks 0,1 --max-regression 10
expect 0 "diff by path, a rank without a tree" $S diff pbase.json pcand.json --by path
equals "diff by path warns" "$err" "scopedb: warning: $partial"
expect 0 "show by path, a rank without a tree" $S show pcand.json --by path
equals "show by path warns" "$err" "scopedb: warning: $partial"
# --ranks of only that rank: no call by path, and the two warnings agree on
# why (the selection said "no call" beside "rank 0 has calls")
rank0="'pcand.json': rank 0 has calls but no call tree with paths (calls that overlap without nesting, rows of totals only, too many calls to hold, or paths too deep or too many), so its paths leave it out"
expect 0 "show by path, --ranks of the rank without a tree" $S show pcand.json --by path --ranks 0
equals "show: no call by path, and why" "$err" "scopedb: warning: --ranks selects no call of 'pcand.json' (of its 2 ranks) by path: ranks without a call tree are left out (--by name shows their calls)
scopedb: warning: $rank0"
expect 0 "diff by path, --ranks of the rank without a tree" \
	$S diff pbase.json pcand.json --by path --ranks 0
equals "diff: nothing by path, and why" "$err" "scopedb: warning: $rank0
scopedb: warning: nothing to compare: --ranks 0 selects no call of 'pcand.json' by path: ranks without a call tree are left out (--by name compares their calls)"
expect 0 "show by name, --ranks 0: its calls" $S show pcand.json --ranks 0 --format csv --columns calls
equals "show by name, --ranks 0: no warning" "$err" ""
# both runs lacking trees on some ranks: a warning for each
expect 0 "diff by path, both runs partial" $S diff pcand.json pcand.json --by path
equals "diff of the same partial run warns once" "$err" "scopedb: warning: $partial"
cp pcand.json pcand2.json
expect 0 "diff by path, two partial runs" $S diff pcand.json pcand2.json --by path
equals "diff by path warns of each" "$err" \
	"$(printf 'scopedb: warning: %s\nscopedb: warning: %s' "$partial" "${partial/pcand.json/pcand2.json}")"
expect 0 "ingest both" $S ingest -q --db "$E2E_DIR/p.sqlite" --commit bbb2222 pbase.json pcand.json
run $S check --db "$E2E_DIR/p.sqlite" 1 2 --by path
equals "check by path of stored runs: exit" "$rc" 2
contains "check by path of stored runs" "$err" \
	"scopedb: cannot check by path: run 2: 1 of its 2 ranks with calls has no call tree"
run $S report --db "$E2E_DIR/p.sqlite" 1 2 --by path -o "$E2E_DIR/p.html"
equals "report by path: exit" "$rc" 2
contains "report by path" "$err" "scopedb: cannot report by path: run 2: 1 of its 2 ranks"
[ -e "$E2E_DIR/p.html" ] && bad "a refused report wrote its page" || ok
# self times by name need the tree as paths do: a candidate with a rank
# without one has no self time for that rank's regions (not 0: once -100%
# and a PASS of a run 10x slower): check and report refuse, diff warns;
# --ranks with ranks that have a tree compares those
selfp="'pcand.json': 4 regions with calls have no self time (a rank with their calls has no call tree: calls that overlap without nesting, or too many to hold)"
expect_err 2 "check self, a rank without a tree" \
	"scopedb: cannot check self times: $selfp; check another metric (--metric total)" \
	$S check pbase.json pcand.json --metric self --max-regression 10
expect 1 "check self of the ranks with a tree fails" \
	$S check pbase.json pcand.json --metric self --ranks 1 --max-regression 10
expect 0 "diff self, a rank without a tree" $S diff pbase.json pcand.json --metric self
equals "diff self warns" "$err" "scopedb: warning: $selfp"
expect_err 2 "check self, no tree at all" \
	"scopedb: cannot check self times: 'overlap.json': 2 regions with calls have no self time (a rank with their calls has no call tree: calls that overlap without nesting, or too many to hold); check another metric (--metric total)" \
	$S check overlap.json overlap.json --metric self
run $S report --db "$E2E_DIR/p.sqlite" 1 2 --metric self -o "$E2E_DIR/ps.html"
equals "report self: exit" "$rc" 2
equals "report self" "$err" "scopedb: cannot report self times: run 2: 4 regions with calls have no self time (a rank with their calls has no call tree: calls that overlap without nesting, or too many to hold); report another metric (--metric total)"
[ -e "$E2E_DIR/ps.html" ] && bad "a refused report wrote its page" || ok
"$MKPROFILE" --aggregate --seed 5 aggself.h5 >/dev/null || exit 1
expect_err 2 "check self of a file without calls or exclusive totals" \
	"scopedb: cannot check self times: 'aggself.h5': 5 regions with calls have no self time (the file keeps no calls to build a call tree from, and no exclusive totals); check another metric (--metric total)" \
	$S check pbase.json aggself.h5 --metric self --allow-different mpi_size
# GPU times are by name only: a diff by path of them says why it has none
cat >gpu.json <<'EOF'
{"format":"scope-profiler-profile","regions":[
 {"name":"main","rank":0,"start_times_ns":[0],"end_times_ns":[100],"gpu_durations_ns":[50]},
 {"name":"k","rank":0,"start_times_ns":[10,20],"end_times_ns":[15,25],"gpu_durations_ns":[3,4]}]}
EOF
expect 0 "diff by path of GPU times" $S diff gpu.json gpu.json --by path --metric gpu_total
equals "diff by path of GPU times: why none" "$err" \
	"scopedb: warning: nothing to compare: metric gpu_total has no value in either run (paths keep no GPU times; --by name compares the regions' GPU times, where the runs have any)"
"$MKPROFILE" --aggregate agg-file.h5 >/dev/null || exit 1
expect_err 2 "the aggregate side of a diff, named" \
	"scopedb: 'agg-file.h5' has no paths: it keeps no calls, only totals (aggregate layout); use --by name" \
	$S diff nested-base.h5 agg-file.h5 --by path
"$MKPROFILE" --calls 0 zero.h5 >/dev/null || exit 1
expect_err 2 "a run of no call, named" \
	"scopedb: 'zero.h5' has no paths: it made no call; use --by name" \
	$S show zero.h5 --by path
fi

if tcase ambiguous-names; then
# a region named "a > b" beside the path a > b: its joined name is
# written "a \> b", so diff, check and history keep the two apart; and a
# path no run has is an error, as an unknown region is
cat >amb1.json <<'EOF'
{"format": "scope-profiler-profile", "regions": [
 {"name": "a > b", "rank": 0, "start_times_ns": [0], "end_times_ns": [50]},
 {"name": "a", "rank": 0, "start_times_ns": [100], "end_times_ns": [200]},
 {"name": "b", "rank": 0, "start_times_ns": [110], "end_times_ns": [150]}]}
EOF
cat >amb2.json <<'EOF'
{"format": "scope-profiler-profile", "regions": [
 {"name": "a", "rank": 0, "start_times_ns": [100], "end_times_ns": [300]},
 {"name": "b", "rank": 0, "start_times_ns": [110], "end_times_ns": [250]}]}
EOF
amb=$E2E_DIR/amb.sqlite
expect 0 "ambiguous: ingest" $S ingest -q --db "$amb" --commit 1111111 amb1.json amb2.json
expect 0 "ambiguous: diff" $S diff 1 2 --by path --db "$amb" --format csv
equals "ambiguous: diff rows" "$out" 'region,a,b,delta,pct
a > b,4e-08,1.4e-07,1.0000000000000001e-07,250.0
a,1e-07,2e-07,1e-07,100.0
a \> b,5e-08,,-5e-08,-100.0'
expect 0 "ambiguous: json" $S show 1 --by path --db "$amb" --format json
equals "ambiguous: names and paths" "$(jq -c '[.regions[] | [.name, .path]]' <<<"$out")" \
	'[["a",["a"]],["a \\> b",["a > b"]],["a > b",["a","b"]]]'
expect 1 "ambiguous: check" $S check 1 2 --by path --db "$amb"
expect 0 "ambiguous: history" $S history --by path 'a > b' --db "$amb" --format csv
equals "ambiguous: history rows" "$(cut -d, -f1,2 <<<"$out")" 'region,run
a > b,1
a > b,2
a \> b,1'
expect_err 2 "history: a path no run has" \
	"scopedb: no path or region 'nosuch' in the call trees of the selected runs" \
	$S history --by path nosuch --db "$amb"
# a '>' at a name's end or start is escaped too: a root "x >" calling "y"
# and a root "x" calling "> y" are two paths (they read "x > > y" both,
# and diff stopped on a row "listed twice")
cat >edge.json <<'EOF'
{"format": "scope-profiler-profile", "regions": [
 {"name": "x >", "rank": 0, "start_times_ns": [0], "end_times_ns": [100]},
 {"name": "y", "rank": 0, "start_times_ns": [10], "end_times_ns": [20]},
 {"name": "x", "rank": 0, "start_times_ns": [200], "end_times_ns": [400]},
 {"name": "> y", "rank": 0, "start_times_ns": [210], "end_times_ns": [290]}]}
EOF
expect 0 "edges: ingest" $S ingest -q --db "$amb" --commit 2222222 edge.json
expect 0 "edges: show" $S show 3 --by path --db "$amb" --format csv --columns total --sort name
equals "edges: every path its name" "$out" 'region,total
x,2e-07
x > \> y,8e-08
x \>,1e-07
x \> > y,1e-08'
expect 0 "edges: diff" $S diff 3 3 --by path --db "$amb" --format csv --include 'x \\> > y'
equals "edges: diff rows" "$out" 'region,a,b,delta,pct
x \> > y,1e-08,1e-08,0.0,0.0'
expect_err 2 "edges: the path unescaped" \
	"scopedb: no path or region 'x > > y' in the call trees of the selected runs; a '>' that starts or ends a region's name is written '\>' in a path (vector<int> \>)" \
	$S history --by path 'x > > y' --db "$amb"
# a last name as the rows spell it: '\> y' is the name "> y", 'a \> b'
# the root "a > b" (not the path a > b)
expect 0 "edges: a last name as spelt" $S history --by path '\> y' --db "$amb" --format csv
equals "edges: its rows" "$(cut -d, -f1,2 <<<"$out")" 'region,run
x > \> y,3'
expect 0 "ambiguous: a root name as spelt" $S history --by path 'a \> b' --db "$amb" --format csv
equals "ambiguous: its rows" "$(cut -d, -f1,2 <<<"$out")" 'region,run
a \> b,1'
# only as spelt: '\y' is no name's spelling (it is not "y")
expect_err 2 "edges: a backslash that spells nothing" \
	"scopedb: no path or region '\y' in the call trees of the selected runs" \
	$S history --by path '\y' --db "$amb"
fi

if tcase percentiles; then
# each path's p50/p95/p99 over all ranks are stored at ingest; a store of
# schema 3 (made by hand: no stored percentiles) is upgraded and its runs
# answer from their durations, the same numbers; --ranks reads durations
expect 0 "p95 by path" $S diff --db "$db" 2 3 --by path --metric p95 --format json
stored=$out
equals "every path stored" "$(sqlite3 "$db" "select count(*) from paths where p95_ns is null")" 0
v3=$E2E_DIR/v3.sqlite
cp "$db" "$v3"
sqlite3 "$v3" "ALTER TABLE paths DROP COLUMN p50_ns; ALTER TABLE paths DROP COLUMN p95_ns;
	ALTER TABLE paths DROP COLUMN p99_ns; PRAGMA user_version = 3" || bad "downgrade to 3"
expect 0 "p95 by path, schema 3" $S diff --db "$v3" 2 3 --by path --metric p95 --format json
equals "schema 3: the same p95 by path" "$out" "$stored"
equals "upgraded to 4" "$(sqlite3 "$v3" "PRAGMA user_version")" 4
for m in p50 p99; do
	expect 0 "$m by path" $S check --db "$db" 4 5 --by path --metric $m --max-regression 1000 --format csv
	want=$out
	expect 0 "$m by path, schema 3" $S check --db "$v3" 4 5 --by path --metric $m --max-regression 1000 --format csv
	equals "schema 3: the same $m by path" "$out" "$want"
done
expect 0 "history p99 by path" $S history --db "$db" --by path solve --metric p99 --format csv
want=$out
expect 0 "history p99 by path, schema 3" $S history --db "$v3" --by path solve --metric p99 --format csv
equals "schema 3: the same history p99 by path" "$out" "$want"
expect 0 "p95 by path, --ranks 0,1" $S diff --db "$db" 4 5 --by path --metric p95 --ranks 0,1 --format csv
all=$out
expect 0 "p95 by path, all ranks" $S diff --db "$db" 4 5 --by path --metric p95 --format csv
equals "--ranks of every rank: the stored numbers" "$all" "$out"
# show without std reads the stored percentiles instead of the durations:
# the same numbers as the durations give (std in the columns decodes them),
# by name and by path, on the real files and on random ones of each layout
rdb=$E2E_DIR/rand.sqlite
for seed in 3 8 21; do
	"$MKPROFILE" --random $seed r$seed.h5 >/dev/null || exit 1
done
"$S" ingest -q --db "$rdb" --commit aaa2222 r3.h5 r8.h5 r21.h5 >/dev/null 2>&1 || bad "ingest random"
for st in "$db 1 2 3 4 5" "$rdb 1 2 3"; do
	set -- $st
	store=$1
	shift
	for run; do
		for by in name path; do
			expect 0 "show $run by $by, decoded" $S show --db "$store" $run --by $by --format json
			want=$(jq -c '[.regions[] | [.name, .p50, .p95, .p99]]' <<<"$out")
			expect 0 "show $run by $by, stored" $S show --db "$store" $run --by $by \
				--columns p50,p95,p99 --format json
			equals "show $run by $by: the stored percentiles" \
				"$(jq -c '[.regions[] | [.name, .p50, .p95, .p99]]' <<<"$out")" "$want"
		done
	done
done
fi

if tcase totals-only-ranks; then
# --- a JSON rank of totals only beside ranks with calls; ranks of no call --------
# A rank whose rows with calls are all "aggregate" rows has no tree: by
# path its calls are left out, so check --by path refuses and diff warns
# (they passed a +857% regression of that rank without a word).  Ranks
# that made no call are no "ranks with calls".  A row of no call whose
# exclusive total is -1 leaves the region's self known.
printf '%s' '{"format":"scope-profiler-profile","num_ranks":2,"regions":[{"name":"r","rank":0,"start_times_ns":[0,10],"end_times_ns":[5,20]},{"name":"r","rank":1,"aggregate":{"count":3,"total":300,"minimum":50,"maximum":200,"exclusive":300}}]}' >mixed.json
sed 's/"total":300/"total":3000/' mixed.json >mixed-slow.json
totals="1 of its 2 ranks with calls has no call tree with paths (calls that overlap without nesting, rows of totals only, too many calls to hold, or paths too deep or too many), so its paths leave that rank out"
expect_err 2 "totals only: check --by path refuses" \
	"scopedb: cannot check by path: 'mixed.json': $totals; check --by name, or choose ranks with a tree (--ranks)" \
	$S check mixed.json mixed-slow.json --by path
expect 0 "totals only: diff --by path" $S diff mixed.json mixed-slow.json --by path
contains "totals only: diff warns" "$err" "scopedb: warning: 'mixed.json': $totals"
expect 1 "totals only: check by name" $S check mixed.json mixed-slow.json
# the lowest rank is named (it was the first in a hash map's order)
jq -c '.num_ranks = 40 | .regions += [range(2; 40) as $r | {name: "r", rank: $r,
	aggregate: {count: 1, total: 9, minimum: 9, maximum: 9, exclusive: 9}}]' mixed.json >mixed40.json
expect 0 "totals only: forty ranks" $S ingest --db tot40.sqlite --commit abc1234 mixed40.json
contains "totals only: the lowest rank named" "$err" \
	"rank 1: its rows are totals only, with no events, so rank 1 has no call tree (nor have 38 other ranks)"
expect 0 "totals only: the ingest" $S ingest --db tot.sqlite --commit abc1234 mixed.json
contains "totals only: ingest says why" "$err" \
	"scopedb: warning: 'mixed.json': rank 1: its rows are totals only, with no events, so rank 1 has no call tree"
printf '%s' '{"format":"scope-profiler-profile","num_ranks":4,"regions":[{"name":"p","rank":0,"start_times_ns":[0],"end_times_ns":[10]},{"name":"q","rank":0,"start_times_ns":[5],"end_times_ns":[15]},{"name":"p","rank":1,"start_times_ns":[0],"end_times_ns":[10]},{"name":"q","rank":2,"start_times_ns":[],"end_times_ns":[]},{"name":"q","rank":3,"start_times_ns":[],"end_times_ns":[]}]}' >idle-ranks.json
expect 0 "no-call ranks: show --by path" $S show idle-ranks.json --by path
contains "no-call ranks: not ranks with calls" "$err" "'idle-ranks.json': 1 of its 2 ranks with calls has"
printf '%s' '{"format":"scope-profiler-profile","num_ranks":2,"regions":[{"name":"a","rank":0,"aggregate":{"count":3,"total":30,"minimum":5,"maximum":15,"exclusive":20}},{"name":"a","rank":1,"aggregate":{"count":0,"total":0,"minimum":0,"maximum":0,"exclusive":-1}}]}' >agg-idle.json
sed 's/"exclusive":20/"exclusive":25/' agg-idle.json >agg-idle2.json
expect 0 "no-call row: self" $S show agg-idle.json --columns calls,self --format csv
equals "no-call row: self is rank 0's" "$(sed -n 2p <<<"$out")" "a,3,2e-08"
expect 1 "no-call row: check --metric self" $S check agg-idle.json agg-idle2.json --metric self
fi

if tcase deep-new-paths; then
# --- a deep chain of new paths (mutual recursion a > b > a > ...) -----------
# Each row's attribution had a cause for every path under it, each with its
# names in JSON: 820 MB for 256 names, out of memory for 1,024.  A row
# keeps its ten largest causes and counts the rest; the run is read in
# 400 MB (the plain build: the sanitizers' address space is not bounded so)
jq -n --argjson D 256 '{format: "scope-profiler-profile", num_ranks: 1, regions: [
	{name: "A", rank: 0, start_times_ns: [range(0; $D; 2)], end_times_ns: [range(0; $D; 2) | 2 * $D - .]},
	{name: "B", rank: 0, start_times_ns: [range(1; $D; 2)], end_times_ns: [range(1; $D; 2) | 2 * $D - .]}]}' >deep256.json
printf '%s' '{"format":"scope-profiler-profile","num_ranks":1,"regions":[{"name":"A","rank":0,"start_times_ns":[0],"end_times_ns":[10]}]}' >flat1.json
run bash -c 'ulimit -v 400000; exec "$0" diff flat1.json deep256.json --by path --format json' "$S"
equals "deep new paths: diff in 400 MB" "$rc" 0
# (255 causes: every path under A, not A, whose self went from 10 to 2 ns)
equals "deep new paths: the root's ten causes and the rest counted" \
	"$(jq -c '.rows[] | select(.depth == 1) | [(.attribution.causes | length), .attribution.causes_left_out]' <<<"$out")" \
	'[10,245]'
equals "deep new paths: the largest first" \
	"$(jq -c '[.rows[] | select(.depth == 1) | .attribution.causes[].delta_self] | . == (sort | reverse)' <<<"$out")" true
fi

finish
