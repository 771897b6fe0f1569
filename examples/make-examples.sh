#!/usr/bin/env bash
# Regenerate the bundled example profiles with the project's own mkprofile
# tool (deterministic: same options, same bytes).  The candidate is the
# same code measured again (another seed: run-to-run noise) with one
# regression: region "solve" 12% slower.  Usage:
#   bash examples/make-examples.sh [path/to/mkprofile]
set -euo pipefail
cd "$(dirname "$0")"
mk=${1:-../build/mkprofile}
"$mk" --schema 3 --ranks 4 --regions setup,solve,exchange,io --calls 200 --seed 1 \
	--label baseline --timestamp 2026-11-30T02:00:00Z baseline.h5
"$mk" --schema 3 --ranks 4 --regions setup,solve,exchange,io --calls 200 --seed 2 \
	--slow solve=1.12 --label candidate --timestamp 2026-12-01T02:00:00Z candidate.h5
