#!/usr/bin/env bash
# Option parsing, byte for byte: the corners of the command lines that
# getopt_long accepted before src/cli/opt.c replaced it (--opt=value and
# --opt value, unambiguous abbreviations, ambiguous ones, options after and
# between positionals, "--", "-" as an argument, clusters of short options,
# a value that looks like an option, the order in which errors are found,
# POSIXLY_CORRECT) compared with tests/golden/options.txt, which was
# recorded with the getopt_long binary.  Each error keeps its message and
# the first line of the usage (the whole usage text of every command is in
# tests/golden/battery.txt).
#
# After an intended change: GOLDEN_UPDATE=1 bash this-script (with SCOPEDB
# and MKPROFILE set as ctest sets them); review the diff before committing.
expected=$(cd "$(dirname "$0")" && pwd)/golden/options.txt
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?}"
S=$SCOPEDB
export SCOPEDB_DB=o.sqlite LC_ALL=C.UTF-8
# the command line, its stdout, the first two lines of its stderr, its status
golden_init options.txt 2

# gp CMD...: g with POSIXLY_CORRECT set (no permutation).
gp() {
	printf '(POSIXLY_CORRECT) ' >>"$golden_log"
	POSIXLY_CORRECT=1 g "$@"
}

mk() { "$MKPROFILE" "$@" >/dev/null || { bad "mkprofile $*"; finish; }; }
mk --seed 1 --timestamp 2024-01-01T00:00:00Z base.h5
mk --seed 2 --slow solve=1.3 --timestamp 2024-01-02T00:00:00Z slow.h5
mk --seed 3 --timestamp 2024-01-03T00:00:00Z third.h5

if tcase options; then
# top level and help
g $S -h
g $S --help diff
g $S --version extra
g $S --vers
g $S -
g $S ''
g $S --
g $S help -h
g $S help --help
g $S help diff extra
g $S help ''

# the store the rest uses
g $S ingest -q --tag=t1 --tag t2 --commit=aaaa1111 --bra main base.h5
g $S ingest slow.h5 --q --me node=n1 --meta=mpi=4 --la second -- third.h5
g $S ingest --l=x base.h5
g $S ingest -qh
g $S ingest -hq
g $S ingest -qx
g $S ingest -xq
g $S ingest --tag x -xq
g $S ingest f1 --tag x -xq
g $S ingest --tag=x -qxq
g $S ingest --quiet=1
g $S ingest --meta bad base.h5
g $S ingest --format csv base.h5
g $S ingest -- -q
g $S ingest base.h5 --commit
g $S ingest --db

# long forms, abbreviations and ambiguity
g $S diff --met=avg base.h5 slow.h5
g $S diff --m avg base.h5 slow.h5 --form csv
g $S check --m avg base.h5 slow.h5
g $S check --ma 5 base.h5 slow.h5 --format=csv
g $S check --f json base.h5 slow.h5
g $S check --fo json --fail-on-n 1 third.h5
g $S check --fail-on-new=1 1 2
g $S check --sort pct 1 2
g $S diff --max-regression 5 1 2
g $S diff --help=x
g $S diff --h
g $S diff --he 1
g $S diff --bogus=1
g $S diff --=x
g $S diff ---
g $S diff -=
g $S diff --
g $S diff - -
g $S diff -f json 1 2

# permutation and "--"
g $S diff 1 --format csv 2
g $S diff -- 1 2
g $S diff --format csv -- 1 --metric
g $S diff 1 -- --format csv
g $S diff 1 2 --threshold
g $S diff 1 2 --thr 5 --sort=pct
g $S diff --metric --format 1 2
g $S diff --metric= 1 2
g $S diff --db= 1 2
gp $S diff 1 2 --format csv
gp $S diff --format csv 1 2
gp $S diff -- 1 2
gp $S diff 1 -- 2

# short options and clusters
g $S diff -h
g $S diff -hx
g $S diff -xh
g $S diff 1 -xh
g $S diff --format json -xh
g $S diff --format=json -xh
g $S diff -x
g $S diff -xy
g $S diff 1 2 -q-x
g $S rm -f
g $S rm -fx 9
g $S rm -xf 9
g $S rm --f=1 9
g $S rm --fo 9

# the order in which errors are found
g $S diff --metric nope --bogus
g $S diff --bogus --metric nope
g $S diff --help --bogus
g $S diff --bogus --help
g $S diff --metric nope --help
g $S diff --help --metric nope
g $S diff a b c --metric nope
g $S check --max-regression -5 1 2
g $S diff --threshold -5 --format csv 1 2
g $S diff --threshold=abc 1 2

# repeated options
g $S diff --ranks 0 --ranks 1-2 --format csv 1 2
g $S diff --include so --include io --exclude s --format csv 1 2
g $S diff --sort=name --sort=pct --format csv 1 2
g $S diff --metric avg --metric p95 --format csv 1 2

# the other commands
g $S runs --lim=1
g $S runs --l x
g $S runs --li 1 --format=csv
g $S runs --la second
g $S runs --meta bad
g $S runs --meta node=n1 --meta=mpi=4
g $S runs --since=2024-01-01 --until 2030-01-01 --format csv
g $S runs --until x
g $S runs --limit=abc
g $S runs --limit 99999999999999999999
g $S runs extra
g $S runs --s 2024-01-02 --format csv
g $S runs --format markdown
g $S runs --tag t1 --t t2 --br main --co aaaa --format csv
g $S history solve --match x
g $S history --ma 'io|halo' --format csv
g $S history --m p95 solve
g $S history --me p95 solve --format csv
g $S history --until=2030-01-01 solve --lim 1 --format csv
g $S history --limit -1 solve
g $S history --r 0 solve --format csv
g $S history
g $S history a b
g $S show 1 --col total,calls --s name
g $S show --c total 1
g $S show --sort bogus 1
g $S show --columns total --columns calls 1
g $S show 1 2
g $S meta 1 2 --a
g $S meta --all=1
g $S meta 1 2 3
g $S meta --format csv 1
g $S pin base 1 extra
g $S pin -x
g $S pin --d=o.sqlite base 1
g $S pins --f json
g $S pins --db
g $S tag 1 ''
g $S tag --d o.sqlite 1 x y
g $S untag 1
g $S untag 1 y --db=o.sqlite
g $S unpin a b
g $S unpin
g $S unpin --he
g $S vacuum extra
g $S vacuum --d=o.sqlite
g $S rm --f 2

golden_check "$expected"
fi

finish
