#!/usr/bin/env bash
# End-to-end tests of readable output (issue 12): durations with a unit per
# column aligned on the decimal point (µs, or us off UTF-8), --units,
# signed three-digit percentages, grouped counts (also the ranks and
# regions of runs, ingest and a run's description), CSV and JSON in raw
# seconds; history bars (min..max scale, ASCII fallback, terminal only);
# --color and NO_COLOR / FORCE_COLOR / CLICOLOR_FORCE, red and green only
# beyond the threshold or budget; the markdown column titles; and the
# "did you mean" suggestions, case-insensitive names, md, "5%".
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?}"
S=$SCOPEDB
export SCOPEDB_DB=$E2E_DIR/r.sqlite
utf8=C.UTF-8
locale -a 2>/dev/null | grep -qi '^c\.utf-\?8$' || utf8=

mk() { "$MKPROFILE" "$@" >/dev/null || { bad "mkprofile $*"; finish; }; }
mk --seed 1 --gpu --timestamp 2024-01-01T00:00:00Z base.h5
mk --seed 2 --gpu --slow solve=1.3 --label nightly-2 --timestamp 2024-01-02T00:00:00Z slow.h5
mk --seed 1 --gpu --scale 0.9 --slow solve=1.2 --label fast --timestamp 2024-01-03T00:00:00Z fast.h5
# solve 5% and 10% slower than h1: the history of a small step
mk --seed 1 --label r1 --timestamp 2024-01-04T00:00:00Z h1.h5
mk --seed 1 --label r2 --slow solve=1.05 --timestamp 2024-01-05T00:00:00Z h2.h5
mk --seed 1 --label r3 --slow solve=1.10 --timestamp 2024-01-06T00:00:00Z h3.h5

if tcase durations; then
# --- durations: a unit per column, decimal points aligned --------------------
if [ -n "$utf8" ]; then
	expect 0 "diff utf8" env LC_ALL=$utf8 $S diff base.h5 slow.h5 --metric gpu_avg
	equals "diff µs" "$out" "a: base.h5 (file, label example, recorded 2024-01-01T00:00:00Z, 4 ranks)
b: slow.h5 (file, label nightly-2, recorded 2024-01-02T00:00:00Z, 4 ranks)
Metric: gpu_avg (seconds)

region          example  nightly-2       delta  delta %
assemble       226 µs     237 µs    +10.8 µs     +4.79%
halo_exchange  431 µs     423 µs     -7.87 µs    -1.83%
main            34.0 µs    33.8 µs   -0.269 µs  -0.791%"
else
	ok
fi
expect 0 "diff C locale" env LC_ALL=C $S diff base.h5 slow.h5 --metric gpu_avg
equals "diff us" "$out" "a: base.h5 (file, label example, recorded 2024-01-01T00:00:00Z, 4 ranks)
b: slow.h5 (file, label nightly-2, recorded 2024-01-02T00:00:00Z, 4 ranks)
Metric: gpu_avg (seconds)

region          example  nightly-2       delta  delta %
assemble       226 us     237 us    +10.8 us     +4.79%
halo_exchange  431 us     423 us     -7.87 us    -1.83%
main            34.0 us    33.8 us   -0.269 us  -0.791%"
# a UTF-8 locale that is not installed: the variables decide
expect 0 "diff missing utf8 locale" env -u LC_ALL LC_CTYPE=xx_XX.UTF-8 $S diff base.h5 slow.h5 --metric gpu_avg
contains "µs from LC_CTYPE" "$out" "main            34.0 µs    33.8 µs   -0.269 µs  -0.791%"
expect 0 "diff LANG utf8" env -u LC_ALL -u LC_CTYPE LANG=xx_XX.utf8 $S diff base.h5 slow.h5 --metric gpu_avg
contains "µs from LANG" "$out" "34.0 µs"
expect 0 "diff LC_ALL wins" env LC_ALL=C LANG=xx_XX.UTF-8 $S diff base.h5 slow.h5 --metric gpu_avg
contains "us from LC_ALL" "$out" "34.0 us"
expect 0 "diff ms" env LC_ALL=C $S diff base.h5 slow.h5
equals "diff ms rows" "$(printf '%s\n' "$out" | tail -n 6)" "region          example  nightly-2       delta  delta %
solve           34.8 ms    47.0 ms  +12.2 ms       +35%
assemble       151 ms     158 ms     +7.22 ms    +4.79%
halo_exchange  287 ms     282 ms     -5.24 ms    -1.83%
io              91.2 ms    89.7 ms   -1.47 ms    -1.61%
main            22.7 ms    22.5 ms   -0.180 ms  -0.791%"
# --units forces one unit; any case; µs too
expect 0 "diff --units us" env LC_ALL=C $S diff base.h5 slow.h5 --units US --include solve main
equals "diff --units us rows" "$(printf '%s\n' "$out" | tail -n 3)" "region   example  nightly-2      delta  delta %
solve   34794 us   46967 us  +12173 us     +35%
main    22683 us   22503 us    -180 us  -0.791%"
expect 0 "diff --units s" env LC_ALL=C $S diff base.h5 slow.h5 --units s --include solve --format markdown
contains "markdown --units s" "$out" "| solve | 0.0348 s | 0.0470 s | +0.0122 s | +35% |"
expect_err 2 "bad --units" "scopedb: invalid --units 'msec': choose from auto, s, ms, us, ns" \
	$S diff base.h5 slow.h5 --units msec
expect_err 2 "--units suggestion" \
	"scopedb: invalid --units 'sm': choose from auto, s, ms, us, ns; did you mean 'ms'?" \
	$S diff base.h5 slow.h5 --units sm
# CSV and JSON keep raw seconds whatever --units says
for f in csv json; do
	run $S diff base.h5 slow.h5 --format $f
	plain=$out
	expect 0 "$f --units ns" $S diff base.h5 slow.h5 --format $f --units ns
	equals "$f keeps seconds" "$out" "$plain"
done
contains "json raw seconds" "$plain" '{"name": "solve", "a": 0.03479421, "b": 0.046966946,'
# show: durations per column, counts grouped, imbalance a plain percent
expect 0 "show" env LC_ALL=C $S show base.h5 --columns calls,total,avg,p99,imbalance
equals "show table" "$out" "Run: base.h5 (file, label example, recorded 2024-01-01T00:00:00Z, 4 ranks, columnar)

region         calls     total       avg       p99  imbalance
halo_exchange    400  287 ms    718 us    1.54 ms     3.26888
assemble         400  151 ms    377 us    0.780 ms    2.51562
io               400   91.2 ms  228 us    0.436 ms    4.95001
solve            400   34.8 ms   87.0 us  0.192 ms    4.85268
main             400   22.7 ms   56.7 us  0.121 ms    7.24812"
# counts: thousands separators in tables and ingest lines
expect 0 "diff calls" $S diff base.h5 slow.h5 --metric calls --include solve --format markdown
contains "calls plain" "$out" "| solve | 400 | 400 | +0 | +0% |"
mk --seed 1 --calls 1500 --regions solve big.h5
expect 0 "show big" $S show big.h5 --columns calls
contains "calls grouped" "$out" "solve   6,000"
expect 0 "ingest line" $S ingest base.h5
equals "ingest grouped" "$out" "run 1: base.h5: 4 ranks, 5 regions, 2,000 calls"
expect 0 "ingest json" $S ingest base.h5 --format json
contains "ingest json raw" "$out" '"calls": 2000'

fi

if tcase titles; then
# --- column titles: baseline/candidate in check, labels in diff -------------
expect 1 "check markdown" $S check base.h5 slow.h5 --format md --max-regression 5%
contains "check titles" "$out" "| region | baseline | candidate | delta | delta % |"
contains "budget with %" "$out" "Budget: +5% (total); budget violations: solve"
expect 0 "diff markdown labels" $S diff base.h5 slow.h5 --format MarkDown
contains "diff titles" "$out" "| region | example | nightly-2 | delta | delta % |"
expect 0 "diff same labels" $S diff base.h5 base.h5 --format md
contains "diff a b" "$out" "| region | a | b | delta | delta % |"
expect 0 "diff json keys" $S diff base.h5 slow.h5 --format json
contains "json keys a b" "$out" '{"name": "solve", "a": '

fi

if tcase colour; then
# --- colour -------------------------------------------------------------------
red=$'\033[31m' green=$'\033[32m'
# red only beyond the threshold (default 2%), green only for improvements
# beyond it: solve +8% red, the others -10% green
expect 0 "diff --color always" env LC_ALL=C $S diff base.h5 fast.h5 --color always
equals "colours" "$(printf '%s\n' "$out" | tail -n 5)" "halo_exchange  287 ms    258 ms    ${green}-28.7 ms"$'\033[0m'"   ${green}   -10%"$'\033[0m'"
assemble       151 ms    136 ms    ${green}-15.1 ms"$'\033[0m'"   ${green}   -10%"$'\033[0m'"
io              91.2 ms   82.1 ms  ${green} -9.12 ms"$'\033[0m'"  ${green}   -10%"$'\033[0m'"
solve           34.8 ms   37.6 ms  ${red} +2.78 ms"$'\033[0m'"  ${red}    +8%"$'\033[0m'"
main            22.7 ms   20.4 ms  ${green} -2.27 ms"$'\033[0m'"  ${green}   -10%"$'\033[0m'
expect 0 "diff within threshold" $S diff base.h5 fast.h5 --color always --threshold 9
equals "threshold 9: solve uncoloured" "$(printf '%s\n' "$out" | grep '^solve' | grep -c $'\033')" 0
equals "threshold 9: improvements green" "$(printf '%s\n' "$out" | grep -cF "$green")" 4
# check: red only over the budget, green only under -budget
expect 1 "check --color always" $S check base.h5 slow.h5 --max-regression 5 --color always
equals "check: only solve red" "$(printf '%s\n' "$out" | grep -F "$red" | sed 's/\x1b\[[0-9;]*m//g' | awk '{print $1}')" \
	"solve"
equals "assemble +4.79% not red" "$(printf '%s\n' "$out" | grep '^assemble' | grep -c $'\033')" 0
# where colour comes from: --color, then NO_COLOR, then FORCE_COLOR and
# CLICOLOR_FORCE, then a terminal
colored() { # DESC WANT(0|1) ENV... -- ARGS...
	local desc=$1 want=$2
	shift 2
	run env -u NO_COLOR -u FORCE_COLOR -u CLICOLOR_FORCE "$@"
	equals "$desc" "$(printf '%s\n' "$out" | grep -c $'\033\\[')" "$want"
}
colored "pipe: no colour" 0 $S diff base.h5 fast.h5
colored "FORCE_COLOR=1" 5 FORCE_COLOR=1 $S diff base.h5 fast.h5
colored "FORCE_COLOR=0" 0 FORCE_COLOR=0 $S diff base.h5 fast.h5
colored "FORCE_COLOR empty" 0 FORCE_COLOR= $S diff base.h5 fast.h5
colored "CLICOLOR_FORCE=1" 5 CLICOLOR_FORCE=1 $S diff base.h5 fast.h5
colored "NO_COLOR beats FORCE_COLOR" 0 NO_COLOR=1 FORCE_COLOR=1 $S diff base.h5 fast.h5
colored "--color always beats NO_COLOR" 5 NO_COLOR=1 $S diff base.h5 fast.h5 --color always
colored "--color never beats FORCE_COLOR" 0 FORCE_COLOR=1 $S diff base.h5 fast.h5 --color never
colored "--color auto: FORCE_COLOR" 5 FORCE_COLOR=1 $S diff base.h5 fast.h5 --color auto
colored "no colour in csv" 0 FORCE_COLOR=1 $S diff base.h5 fast.h5 --format csv
if command -v script >/dev/null; then
	on_tty env -u NO_COLOR -u FORCE_COLOR TERM=xterm $S diff base.h5 fast.h5
	contains "terminal: colour" "$out" "$green"
	on_tty env NO_COLOR=1 TERM=xterm $S diff base.h5 fast.h5
	equals "terminal with NO_COLOR" "$(printf '%s\n' "$out" | grep -c $'\033\\[')" 0
else
	bad "script(1) is needed to test the terminal output"
fi
expect_err 2 "--color suggestion" \
	"scopedb: invalid --color 'alway': choose from auto, always, never; did you mean 'always'?" \
	$S diff base.h5 fast.h5 --color alway

fi

if tcase setup-history; then
[ -f "$SCOPEDB_DB" ] || $S ingest base.h5 >/dev/null 2>&1 # run 1, as durations left it
# --- history bars: min..max, ASCII off UTF-8, terminal only -------------------
$S ingest h1.h5 h2.h5 h3.h5 --tag nightly --branch main >/dev/null 2>&1 || bad "ingest h"
fi

if tcase history-bars; then
# the mark column (issue 15) is left out of the comparisons
nomark() { printf '%s\n' "$out" | sed 's/ *<- .*$//'; }
if command -v script >/dev/null; then
	on_tty env LC_ALL=C $S history solve --tag nightly
	equals "history ascii bars" "$(nomark)" "Region: solve (total, seconds)

run  recorded              commit  label    total    change  change %
  2  2024-01-04T00:00:00Z  -       r1     34.8 ms   -               -  #
  3  2024-01-05T00:00:00Z  -       r2     36.5 ms  +1.74 ms       +5%  ###########
  4  2024-01-06T00:00:00Z  -       r3     38.3 ms  +1.74 ms    +4.76%  ####################"
	if [ -n "$utf8" ]; then
		on_tty env LC_ALL=$utf8 $S history solve --tag nightly
		equals "history block bars" "$(nomark | tail -n 3)" "  2  2024-01-04T00:00:00Z  -       r1     34.8 ms   -               -  █
  3  2024-01-05T00:00:00Z  -       r2     36.5 ms  +1.74 ms       +5%  ██████████▌
  4  2024-01-06T00:00:00Z  -       r3     38.3 ms  +1.74 ms    +4.76%  ████████████████████"
	else
		ok
	fi
else
	bad "script(1) is needed to test the terminal output"
fi
expect 0 "history pipe" env LC_ALL=$utf8 $S history solve --tag nightly
equals "history pipe: no bars" "$(nomark | tail -n 3)" "  2  2024-01-04T00:00:00Z  -       r1     34.8 ms   -               -
  3  2024-01-05T00:00:00Z  -       r2     36.5 ms  +1.74 ms       +5%
  4  2024-01-06T00:00:00Z  -       r3     38.3 ms  +1.74 ms    +4.76%"
expect 0 "history markdown units" env LC_ALL=C $S history solve --tag nightly --units us --format md
contains "history markdown us" "$out" "| 3 | 2024-01-05T00:00:00Z | - | r2 | 36534 us | +1740 us | +5% |"

fi

if tcase suggestions; then
# --- suggestions ------------------------------------------------------------------
expect_err 2 "command" "scopedb: 'chek' is not a scopedb command; did you mean 'check'?" $S chek
expect_err 2 "command prefix" "scopedb: 'hist' is not a scopedb command; did you mean 'history'?" $S hist
expect_err 2 "command far" "scopedb: 'frobnicate' is not a scopedb command; see 'scopedb --help'" \
	$S frobnicate
run $S diff --metrc total base.h5 slow.h5
equals "option exit" "$rc" 2
equals "option" "$(printf '%s\n' "$err" | head -1)" "scopedb: unknown option '--metrc'; did you mean '--metric'?"
run $S history --tga nightly solve
equals "option tga" "$(printf '%s\n' "$err" | head -1)" "scopedb: unknown option '--tga'; did you mean '--tag'?"
# a word that is a part of option names ("--window": asv's and Bencher's)
run $S check --window 5 base.h5 slow.h5
equals "option part" "$(printf '%s\n' "$err" | head -1)" \
	"scopedb: unknown option '--window'; did you mean '--baseline-window' or '--candidate-window'?"
run $S check --files a.h5 base.h5 slow.h5
equals "option part, one" "$(printf '%s\n' "$err" | head -1)" \
	"scopedb: unknown option '--files'; did you mean '--candidate-files'?"
expect_err 2 "metric" "scopedb: invalid --metric 'totl': choose from gpu_total, gpu_avg, total, self, avg, min, max, p50, p95, p99, imbalance, calls; did you mean 'total'?" \
	$S diff --metric totl base.h5 slow.h5
expect 0 "metric any case" $S diff --metric P95 base.h5 slow.h5 --format csv
equals "metric P95 = p95" "$out" "$($S diff --metric p95 base.h5 slow.h5 --format csv)"
expect_err 2 "format" "scopedb: invalid --format 'jsno': choose from table, json, csv, markdown, junit; did you mean 'json'?" \
	$S diff --format jsno base.h5 slow.h5
expect 0 "format any case" $S runs --format JSON
expect_err 2 "sort" "scopedb: invalid --sort 'dleta': choose from delta, pct, name; did you mean 'delta'?" \
	$S diff --sort dleta base.h5 slow.h5
expect_err 2 "show sort" "scopedb: invalid --sort 'totl': choose from name, region, ranks, calls, nested, total, self, avg, min, max, std, p50, p95, p99, imbalance, gpu_total, gpu_avg; did you mean 'total'?" \
	$S show --sort totl 1
expect_err 2 "region" "scopedb: no region 'slve' in store '$SCOPEDB_DB'; did you mean 'solve'?" \
	$S history slve
expect_err 2 "tag" "scopedb: no run has tag 'nigthly'; did you mean 'nightly'?" $S show tag:nigthly
expect_err 2 "branch" "scopedb: no run has branch 'mian'; did you mean 'main'?" $S show branch:mian
expect_err 2 "label" "scopedb: no run has label 'r9'; did you mean 'r1'?" $S show label:r9
$S pin release 2 >/dev/null || bad "pin"
expect_err 2 "pin" "scopedb: no pin named 'relaese'; did you mean 'release'?" $S diff pin:relaese 3
expect_err 2 "unpin" "scopedb: no pin named 'relase'; did you mean 'release'?" $S unpin relase
expect 0 "untag" $S untag 2 nigthly zzzzzz
equals "untag suggestion" "$out" "run 2: has no tag 'nigthly'; did you mean 'nightly'?
run 2: has no tag 'zzzzzz'"
expect_err 2 "far tag" "scopedb: no run has tag 'zzzzzzzz'" $S show tag:zzzzzzzz
# a filter that matches nothing: said on stderr, exit 0, an empty list
expect_err 0 "runs tag" "scopedb: no run has tag 'nigthly'; did you mean 'nightly'?" \
	$S runs --tag nigthly
equals "runs tag: nothing listed" "$out" ""
expect_err 0 "runs tag json" "scopedb: no run has tag 'nigthly'; did you mean 'nightly'?" \
	$S runs --tag nigthly --format json
equals "runs tag json: []" "$out" "[]"
expect_err 0 "runs branch csv" "scopedb: no run has branch 'mian'; did you mean 'main'?" \
	$S runs --branch mian --format csv
equals "runs branch csv: header" "$out" "id,recorded_at,ingested_at,label,commit,branch,tags,ranks,regions,calls,path"
expect_err 0 "history tag" "scopedb: no run has tag 'nigthly'; did you mean 'nightly'?" \
	$S history solve --tag nigthly
equals "history tag: nothing listed" "$out" ""
expect_err 0 "history tag json" "scopedb: no run has tag 'nigthly'; did you mean 'nightly'?" \
	$S history solve --tag nigthly --format json
equals "history tag json: no region" "$out" '{"metric": "total", "regions": []}'
expect_err 0 "runs filters" "scopedb: no run matches the filters" $S runs --tag nightly --label r1 --since 2030-01-01
fi

if tcase counts; then
# --- counts of runs, ingest and show: grouped for people, plain in CSV/JSON ---
mk --ranks 1200 --calls 1 --aggregate --timestamp 2024-02-01T00:00:00Z wide.h5
B=$E2E_DIR/wide.sqlite
expect 0 "wide ingest" $S ingest --db "$B" --commit 0123456789abcdef0123456789abcdef01234567 wide.h5
equals "wide ingest line" "$out" "run 1: wide.h5: 1,200 ranks, 5 regions, 6,000 calls"
expect 0 "wide runs" $S runs --db "$B"
equals "wide runs table" "$out" \
"id  recorded              label    commit        branch  tags  ranks  regions  source
 1  2024-02-01T00:00:00Z  example  0123456789ab  -       -     1,200        5  wide.h5"
expect 0 "wide runs csv" $S runs --db "$B" --format csv
contains "wide runs csv: plain" "$out" ",,,1200,5,6000,wide.h5"
expect 0 "wide runs json" $S runs --db "$B" --format json
contains "wide runs json: plain" "$out" '"num_ranks": 1200, "num_regions": 5, "num_calls": 6000,'
expect 0 "wide show" $S show 1 --db "$B"
contains "wide show: description" "$out" "recorded 2024-02-01T00:00:00Z, 1,200 ranks, aggregate)"
expect 0 "wide diff" $S diff 1 wide.h5 --db "$B"
contains "wide diff: description" "$out" "recorded 2024-02-01T00:00:00Z, 1,200 ranks)"

fi

finish
