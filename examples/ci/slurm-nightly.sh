#!/usr/bin/env bash
#SBATCH --job-name=scopedb-nightly
#SBATCH --nodes=2
#SBATCH --time=01:00:00
#SBATCH --mail-type=FAIL
# A nightly performance check on a cluster, as an sbatch script (docs/ci.md):
#
#     sbatch --export=ALL,SCOPEDB_DB=postgresql://perf@db.example/scopedb,SRC=$HOME/code,PROFILE=$SCRATCH/nightly.h5 \
#         examples/ci/slurm-nightly.sh ./run-benchmark --profile-out "$SCRATCH/nightly.h5"
#
# runs the application (the script's arguments) under srun, which writes
# the profile PROFILE; ingests it into the team store with the job's
# identity: the commit and branch of the source tree SRC (scopedb asks
# git, safely), the tag nightly, and the Slurm job's id, partition and node
# count as metadata; pins the first night as the baseline; and checks the
# night against pin:baseline with statistics (--stat --baseline-window
# WINDOW: the runs of the branch up to the pin give the baseline set and
# the noise).  A night that passes moves the pin to itself (ADVANCE=1), so
# the baseline is the newest accepted night, and so does an INCONCLUSIVE
# one while the baseline set is shorter than WINDOW (the first nights
# build the history); a failing one leaves it, and every night fails until
# the slowdown is fixed or accepted (scopedb pin baseline RUN).  An
# INCONCLUSIVE night passes (INCONCLUSIVE=fail fails it).  The markdown report goes to REPORT_DIR/scopedb-DATE-runN.md
# and the HTML page beside it.  Exit status: check's (0 pass, 1 a
# regression, 2 an error), which Slurm records as the job's.
# tests/e2e_ci_recipes.sh runs it with Slurm's variables and a stand-in
# srun.
#
# Environment: SCOPEDB_DB (the team store; required), PROFILE (required),
# SRC (the source tree; default the submit directory), SCOPEDB (default
# scopedb), SRUN (default srun), BUDGET (percent; default 5), METRIC
# (default p95), WINDOW (default 10), ADVANCE (default 1), INCONCLUSIVE
# (pass or fail; default pass), REPORT_DIR (default ./scopedb-reports).
set -euo pipefail
: "${SCOPEDB_DB:?set SCOPEDB_DB to the team store}"
: "${PROFILE:?set PROFILE to the profile the application writes}"
[ $# -gt 0 ] || {
	echo "usage: sbatch slurm-nightly.sh COMMAND [ARGS...] (the application, profiled)" >&2
	exit 2
}
export SCOPEDB_DB
scopedb=${SCOPEDB:-scopedb}
src=${SRC:-${SLURM_SUBMIT_DIR:-$PWD}}
dir=${REPORT_DIR:-$PWD/scopedb-reports}
day=$(date -u +%Y-%m-%dT%H%M%SZ)
budget=${BUDGET:-5}
metric=${METRIC:-p95}
mkdir -p "$dir"
case $PROFILE in /*) ;; *) PROFILE=$PWD/$PROFILE ;; esac

rm -f "$PROFILE"
"${SRUN:-srun}" "$@"
[ -s "$PROFILE" ] || {
	echo "scopedb: the application wrote no profile at $PROFILE" >&2
	exit 2
}
# ingest from the source tree: its commit and branch (git, run by scopedb
# without any hook, alias or pager of the repository)
run=$(cd "$src" && "$scopedb" ingest --tag nightly --format json \
	--meta "SLURM_JOB_ID=${SLURM_JOB_ID:-}" \
	--meta "SLURM_JOB_PARTITION=${SLURM_JOB_PARTITION:-}" \
	--meta "SLURM_JOB_NUM_NODES=${SLURM_JOB_NUM_NODES:-}" "$PROFILE" | jq -r '.[0].run')
# the reports' name: two jobs in one second do not overwrite each other's
report=$dir/scopedb-$day-run$run
"$scopedb" pin baseline "$run" --if-missing >/dev/null
rc=0
"$scopedb" check pin:baseline "$run" --stat --baseline-window "${WINDOW:-10}" \
	--metric "$metric" --max-regression "$budget" --format markdown \
	>"$report.md" || rc=$?
"$scopedb" report pin:baseline "$run" --metric "$metric" --max-regression "$budget" \
	--baseline-window "${WINDOW:-10}" -o "$report.html" ||
	echo "scopedb: no HTML report (the check stands)" >&2
# a passing night is the new baseline; so is an undecided one while the
# baseline set is shorter than the window (the history is being built)
nbase=$(sed -n 's/^- \*\*Baseline runs:\*\* \([0-9]*\) .*/\1/p' "$report.md")
if [ "${ADVANCE:-1}" = 1 ] &&
	{ [ "$rc" -eq 0 ] || { [ "$rc" -eq 3 ] && [ "${nbase:-0}" -lt "${WINDOW:-10}" ]; }; }; then
	"$scopedb" pin baseline "$run" >/dev/null
fi
echo "scopedb: run $run: $(head -n 1 "$report.md" | sed 's/^#* *//'); report $report.md"
# INCONCLUSIVE (too short a history, too much noise) neither moves the pin
# nor, by default, fails the job
if [ "$rc" -eq 3 ]; then
	[ "${INCONCLUSIVE:-pass}" = pass ] && rc=0 || rc=1
fi
exit "$rc"
