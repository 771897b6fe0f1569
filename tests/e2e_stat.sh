#!/usr/bin/env bash
# End-to-end tests of check's (and diff's) statistical verdicts (issue 14): run sets
# (--baseline-window on a branch and on a tag, the candidate's repetitions,
# --candidate-window), the per-region verdicts in every format, the gate's
# exit status 0/1/3 and --inconclusive, inconclusive without 3 runs of
# history, the errors, and that a check without them keeps its point
# semantics.  History: 12 nightly runs of branch main whose durations all
# move together by a known scale (CV about 1.4%), then candidates on
# branch feature, three runs per commit.
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?}"
S=$SCOPEDB
export SCOPEDB_DB=$E2E_DIR/s.sqlite

scales=(1.00 1.02 0.99 1.01 0.98 1.00 1.02 0.99 1.01 0.98 1.00 1.01)
for i in $(seq 1 12); do
	"$MKPROFILE" --seed 1 --scale "${scales[$((i - 1))]}" \
		--timestamp "2024-01-$(printf %02d "$i")T00:00:00Z" "h$i.h5" >/dev/null || exit 1
	"$S" ingest -q "h$i.h5" --commit "$(printf 'a%039d' "$i")" --branch main --tag nightly \
		>/dev/null || exit 1
done
# cand COMMIT_DIGIT DAY SLOW: three repetitions of one candidate commit
cand() {
	local k
	for k in 1 2 3; do
		"$MKPROFILE" --seed 1 --scale "${scales[$k]}" --slow "$3" \
			--timestamp "2024-02-$2T0$k:00:00Z" "c$1$k.h5" >/dev/null || exit 1
		"$S" ingest -q "c$1$k.h5" --commit "$(printf 'b%039d' "$1")" --branch feature \
			>/dev/null || exit 1
	done
}
cand 1 01 solve=1.5 # runs 13-15: solve 50% slower
cand 2 02 solve=1.0 # runs 16-18: nothing changed
"$MKPROFILE" --seed 1 --slow solve=1.04 --timestamp 2024-02-03T00:00:00Z one.h5 >/dev/null || exit 1
"$S" ingest -q one.h5 --commit "$(printf 'b%039d' 3)" --branch feature >/dev/null || exit 1 # run 19

if tcase regressed; then
# --- a regression: FAIL, exit 1 ----------------------------------------------------
expect 1 "regressed" $S check tag:nightly 15 --baseline-window 10 --max-regression 5
contains "baseline set" "$out" "Baseline runs: 10 (12, 11, 10, 9, 8, 7, 6, 5, 4, 3)"
contains "candidate repetitions" "$out" "Candidate runs: 3 (15, 14, 13)"
contains "noise source" "$out" \
	"Noise: between-run CV of each region from its history: 12 runs of branch 'main' ending at run 12 (at most 30); median CV"
contains "verdict counts" "$out" "Verdicts: 1 regressed, 0 improved, 4 unchanged, 0 inconclusive"
contains "gate" "$out" "Regression check: FAIL"
contains "solve row" "$out" "solve           34.8 ms    52.5 ms  +17.8 ms     +51.2%  regressed  1.51 [1.48, 1.54]  <0.001            -"
contains "violation" "$out" "Budget violations: solve"
expect 1 "regressed json" $S check tag:nightly 15 --baseline-window 10 --max-regression 5 \
	--format json
contains "json status" "$out" '"status": "FAIL"'
contains "json sets" "$out" '"baseline_runs": [12,11,10,9,8,7,6,5,4,3], "candidate_runs": [15,14,13]'
contains "json row" "$out" '"verdict": "regressed", "ratio": 1.5'
contains "json decided" "$out" '"runs_needed": null, "baseline_n": 10, "candidate_n": 3}'
contains "json noise" "$out" \
	"\"history_runs\": 12, \"from\": \"12 runs of branch 'main' ending at run 12 (at most 30)\"}"
expect 1 "regressed markdown" $S check tag:nightly 15 --baseline-window 10 --max-regression 5 \
	--format markdown
contains "md icon" "$out" "| **solve** |"
contains "md verdict" "$out" "| 🔴 regressed | 1.51 [1.48, 1.54] | <0.001 | - |"
contains "md unchanged" "$out" "⚪ unchanged"
expect 1 "regressed csv" $S check tag:nightly 15 --baseline-window 10 --max-regression 5 \
	--format csv
contains "csv header" "$out" "region,a,b,delta,pct,verdict,ratio,ci_low,ci_high,p,runs_needed"

fi

if tcase unchanged; then
# --- nothing changed: PASS, exit 0 ---------------------------------------------------
expect 0 "unchanged" $S check tag:nightly 18 --baseline-window 10 --max-regression 5
contains "all unchanged" "$out" "Verdicts: 0 regressed, 0 improved, 5 unchanged, 0 inconclusive"
contains "pass" "$out" "Regression check: PASS"
# the baseline's branch by default (main), the same runs here
expect 0 "branch window" $S check branch:main 18 --baseline-window 10 --max-regression 5
contains "branch set" "$out" "Baseline runs: 10 (12, 11, 10, 9, 8, 7, 6, 5, 4, 3)"
# --candidate-window takes the candidate's branch, across commits
expect 0 "candidate window" $S check 12 18 --candidate-window 2 --max-regression 5
contains "candidate window set" "$out" "Candidate runs: 2 (18, 17)"
contains "baseline alone" "$out" "Baseline runs: 1 (12)"

fi

if tcase inconclusive; then
# --- one run of a 4% change: INCONCLUSIVE, exit 3 ------------------------------------
expect 3 "inconclusive" $S check tag:nightly 19 --baseline-window 10 --max-regression 5
contains "inconclusive gate" "$out" "Regression check: INCONCLUSIVE"
contains "runs needed" "$out" "+4.11%  inconclusive  1.04 [1.01, 1.07]  0.018           21"
expect 0 "inconclusive pass" $S check tag:nightly 19 --baseline-window 10 --max-regression 5 \
	--inconclusive pass
expect 1 "inconclusive fail" $S check tag:nightly 19 --baseline-window 10 --max-regression 5 \
	--inconclusive fail
expect 3 "inconclusive json" $S check tag:nightly 19 --stat --max-regression 5 --format json
contains "json inconclusive" "$out" '"status": "INCONCLUSIVE"'
# a wider budget decides it
expect 0 "wide budget" $S check tag:nightly 19 --baseline-window 10 --max-regression 20

fi

if tcase short-history; then
# --- fewer than 3 runs of history: inconclusive, no interval ---------------------------
expect 3 "short history" $S check 13 14 --stat --max-regression 5
contains "short noise" "$out" "1 run of branch 'feature' ending at run 13 (at most 30)"
contains "ratio only" "$out" "-2.94%  inconclusive            0.97  -            -"
contains "repetitions on the baseline side" "$out" "Candidate runs: 1 (14)"

fi

if tcase point-check; then
# --- point semantics untouched without --stat or a window -----------------------------
expect 1 "point check" $S check 12 19 --max-regression 1
case "$out" in *verdict*) bad "point check shows verdicts: $out" ;; *) ok ;; esac

fi

if tcase diff; then
# --- diff: the same sets and verdicts against a zero budget, no gate ------------------
expect 0 "diff stat" $S diff tag:nightly 15 --baseline-window 10
contains "diff verdicts" "$out" "Verdicts: 1 regressed, 0 improved, 0 unchanged, 4 inconclusive"
case "$out" in *"Regression check"*) bad "diff shows a gate: $out" ;; *) ok ;; esac
expect 0 "diff stat json" $S diff tag:nightly 15 --baseline-window 10 --format json
case "$out" in *'"status"'*) bad "diff json has a status: $out" ;; *) ok ;; esac
contains "diff json verdict" "$out" '"verdict": "regressed"'
expect_err 2 "diff file baseline" \
	"scopedb: a statistical comparison needs a stored baseline, not the file 'h1.h5': the baseline's history gives the noise (ingest it first)" \
	$S diff h1.h5 12 --stat

fi

if tcase tag-set; then
# --- a tag set is not the branch's: an untagged main run (run 20) ---------------------
"$MKPROFILE" --seed 1 --timestamp 2024-01-13T00:00:00Z u.h5 >/dev/null || exit 1
"$S" ingest -q u.h5 --commit "$(printf 'c%039d' 1)" --branch main >/dev/null || exit 1
expect 0 "tag set" $S check tag:nightly 18 --baseline-window 3 --max-regression 5
contains "tag set runs" "$out" "Baseline runs: 3 (12, 11, 10)"
expect 0 "branch set" $S check branch:main 18 --baseline-window 3 --max-regression 5
contains "branch set runs" "$out" "Baseline runs: 3 (20, 12, 11)"
contains "branch history" "$out" "13 runs of branch 'main' ending at run 20 (at most 30)"

fi

if tcase errors; then
# --- errors ----------------------------------------------------------------------------
expect_err 2 "file baseline" \
	"scopedb: a statistical comparison needs a stored baseline, not the file 'h1.h5': the baseline's history gives the noise (ingest it first)" \
	$S check h1.h5 12 --stat
expect_err 2 "file candidate window" \
	"scopedb: --candidate-window needs a stored candidate, not the file 'one.h5' (ingest it first)" \
	$S check 12 one.h5 --candidate-window 3
expect 0 "file candidate" $S check tag:nightly one.h5 --baseline-window 10 --max-regression 20
contains "file candidate set" "$out" "Candidate runs: 1 (file)"
expect 0 "file candidate json" $S check tag:nightly one.h5 --baseline-window 10 \
	--max-regression 20 --format json
contains "file id null" "$out" '"candidate_runs": [null]'
expect_err 2 "window 0" \
	"scopedb: invalid --baseline-window '0': expected an integer from 1 to 1000 (runs)" \
	$S check 12 13 --baseline-window 0
expect_err 2 "window text" \
	"scopedb: invalid --candidate-window 'x': expected an integer from 1 to 1000 (runs)" \
	$S check 12 13 --candidate-window x
expect_err 2 "inconclusive value" "scopedb: invalid --inconclusive 'maybe': expected pass or fail" \
	$S check 12 13 --stat --inconclusive maybe
fi

finish
