#!/usr/bin/env bash
# Quick start: install what building and running scopedb needs (through
# sudo when not root; never the test packages), build scopedb, ingest the
# bundled example profiles into the default store (./scopedb.sqlite, or
# $SCOPEDB_DB) and compare the baseline with the candidate run.
# SCOPEDB_BUILD names the build tree (default build).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/deps
build=${SCOPEDB_BUILD:-build}
cmake -S . -B "$build" >/dev/null
# (the man pages and completion too: cmake --install takes them)
cmake --build "$build" -j2 --target scopedb scopedb_docs >/dev/null
S=$build/scopedb
$S ingest --tag example --commit 1a2b3c4 --branch main examples/baseline.h5
$S ingest --tag example --commit 5d6e7f8 --branch main examples/candidate.h5
$S runs
echo
$S diff label:baseline label:candidate --metric total
echo
$S check label:baseline label:candidate --metric p95 --max-regression 5 || true
