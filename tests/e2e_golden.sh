#!/usr/bin/env bash
# Golden output: runs a fixed battery of scopedb commands (every command,
# every output format, help, usage errors, selector errors) on profiles made
# by mkprofile and on the bundled examples, and compares stdout, stderr and
# the exit status of each, byte for byte, with tests/golden/battery.txt.
# This is what holds a refactor to "no user-visible change".
#
# After an intended change of output: GOLDEN_UPDATE=1 bash this-script
# (with SCOPEDB, MKPROFILE and EXAMPLES set as ctest sets them) rewrites
# the expected file; review its diff before committing it.
expected=$(cd "$(dirname "$0")" && pwd)/golden/battery.txt
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?}" "${EXAMPLES:?}" "${TESTDATA:?}"
S=$SCOPEDB
export SCOPEDB_DB=g.sqlite LC_ALL=C.UTF-8
golden_init battery.txt

mk() { "$MKPROFILE" "$@" >/dev/null || { bad "mkprofile $*"; finish; }; }
mk --seed 1 --gpu --timestamp 2024-01-01T00:00:00Z base.h5
mk --seed 2 --gpu --slow solve=1.3 --timestamp 2024-01-02T00:00:00Z slow.h5
mk --seed 3 --gpu --regions main,solve,assemble,fresh --timestamp 2024-01-03T00:00:00Z few.h5
mk --seed 4 --aggregate --timestamp 2024-01-04T00:00:00Z agg.h5
mk --seed 5 --ranks 8 --schema 1 --label eight --timestamp 2024-01-05T00:00:00Z s1.h5
mk --seed 6 --schema 2 --gzip --timestamp 2024-01-06T00:00:00Z s2.h5
mk --seed 7 --scale 0.9 --timestamp 2024-01-07T00:00:00Z fast.h5
cp "$EXAMPLES/baseline.h5" "$EXAMPLES/candidate.h5" .
cp "$TESTDATA"/schema-*.h5 .

if tcase battery; then
# help and usage
g $S
g $S --help
g $S --version
g $S -V
g $S version
g $S version extra
g $S -x
g $S nosuch
for c in check diff help history ingest meta pin pins prune rm runs show tag unpin untag vacuum \
	version; do
	g $S help $c
	g $S $c --bogus
done
g $S diff --metric
g $S diff a
g $S diff a b c
g $S check --max-regression abc base.h5 slow.h5
g $S diff --metric nope base.h5 slow.h5
g $S diff --sort nope base.h5 slow.h5
g $S diff --format xml base.h5 slow.h5
g $S diff --ranks 3-1 base.h5 slow.h5
g $S diff --include '(' base.h5 slow.h5
g $S diff base.h5 slow.h5 --include '('
g $S diff base.h5 slow.h5 --include solve io --exclude '^mpi' --ranks 0 1 2-3 --format csv
g $S diff --format csv --include solve io -- base.h5 slow.h5
g $S runs --since yesterday
g $S runs --limit -1
g $S runs --limit 0
g $S show --columns nope 1
g $S ingest
g $S pin
g $S tag 1

# files directly
for f in table markdown csv json; do
	g $S diff base.h5 slow.h5 --format $f
	g $S check base.h5 slow.h5 --max-regression 5 --format $f
	g $S check base.h5 few.h5 --fail-on-new --format $f
done
for m in $(metrics); do
	g $S diff base.h5 slow.h5 --metric $m
	g $S diff base.h5 agg.h5 --metric $m --format csv
done
g $S diff base.h5 slow.h5 --sort pct
g $S diff base.h5 slow.h5 --sort name --threshold 5
g $S diff base.h5 slow.h5 --include 'so|io' --exclude io --ranks 0-1 --ranks 3
g $S check base.h5 slow.h5 --max-regression 50
g $S diff nope.h5 base.h5

# store
g $S ingest --tag nightly --commit 1111aaaa --branch main base.h5
g $S ingest --tag nightly --commit 2222bbbb --branch main --meta node=n1 --meta mpi_size=4 slow.h5
g $S ingest --tag nightly --commit 3333cccc --branch dev few.h5 agg.h5 --format json
g $S ingest --label eight --branch main s1.h5 s2.h5 fast.h5 --quiet
g $S ingest base.h5 --tag again
g $S ingest --tag ex baseline.h5 candidate.h5 schema-1.h5 schema-2.h5 schema-3.h5
g $S ingest nope.h5
g $S runs
g $S runs --format csv
g $S runs --format json
g $S runs --tag nightly --branch main
g $S runs --commit 2222 --format csv
g $S runs --since 2024-01-02 --until 2024-01-05 --limit 2
g $S runs --meta node=n1
g $S runs --label nosuch
for f in table markdown csv json; do
	g $S diff 1 2 --format $f
	g $S check pin:none 2 --format $f
	g $S check 1 2 --max-regression 10 --format $f
	g $S show 2 --format $f
	g $S show 4 --format $f
	g $S history solve --format $f
	g $S history --match 'io|halo' --metric p95 --format $f
done
for m in $(metrics); do
	g $S diff 1 2 --metric $m --format csv
	g $S diff 1 2 --metric $m --ranks 1-2 --format csv
	g $S history main --metric $m --format csv
	g $S history main --metric $m --ranks 0 --format csv
done
g $S diff latest~1 latest
g $S diff tag:nightly~1 tag:nightly --format json
g $S diff commit:1111 commit:2222 --format markdown
g $S diff branch:main~1 label:eight
g $S diff commit:3 1
g $S diff tag:weekly 1
g $S diff latest~99 1
g $S diff 99 1
g $S diff yesterday 1
g $S diff 1 base.h5
g $S check 1 slow.h5 --include solve
g $S show 2 --ranks 0-1 --columns calls,total,p95,imbalance
g $S show 2 --sort name --include 'a'
g $S show 2 --sort p99
g $S show 5
g $S history solve --tag nightly --branch main --limit 2
g $S history solve --since 2024-01-03
g $S history nosuch
g $S history --match zzz
g $S meta 2
g $S meta 2 --format json
g $S meta 1 5
g $S meta 1 5 --all --format json
g $S meta 1 2
g $S pin baseline 1
g $S pin baseline tag:nightly
g $S pin old 1
g $S pins
g $S pins --format json
g $S check pin:baseline 2 --format markdown
g $S unpin old
g $S unpin old
g $S tag 3 rc1 rc2
g $S untag 3 rc1
g $S untag 3 zz
g $S rm 2
g $S rm 99 3
g $S rm --force 2
g $S runs --format csv
g $S diff --db absent.sqlite 1 2
g $S runs --db base.h5

golden_check "$expected"
fi

finish
