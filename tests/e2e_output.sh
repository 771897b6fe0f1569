#!/usr/bin/env bash
# --output FORMAT=FILE of diff and check, where FILE is not a plain new
# file: every FILE is checked before anything is written (a directory
# among them writes none of them), a FIFO or a device is written as it
# is (never replaced by a regular file), a symlink is written through to
# its target, "-" and the file stdout goes to are stdout, a replaced file
# keeps its mode, a new one gets the umask's, and a full device says so.
# An output never replaces the store, a file of it, any SQLite file or a
# profile the command reads, two outputs are not one file, and a full
# standard output names its cause, not --output (issue 29); a job writing
# the same FILE beside it does not make a write fail.
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?}"
S=$SCOPEDB
export SCOPEDB_DB=$E2E_DIR/o.sqlite

"$MKPROFILE" --seed 1 --timestamp 2024-01-01T00:00:00Z a.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 2 --timestamp 2024-01-02T00:00:00Z b.h5 >/dev/null || exit 1
$S ingest -q a.h5 b.h5 || exit 1
$S check 1 2 --format json >want.json
$S check 1 2 --format markdown >want.md
# the character devices written to: as root, nodes of our own (a regressed
# binary would replace /dev's)
null=/dev/null full=/dev/full
if [ "$(id -u)" -eq 0 ] && mknod -m 666 null c 1 3 && mknod -m 666 full c 1 7 &&
	(: >null) 2>/dev/null; then # (not on a nodev mount)
	null=null full=full
fi

if tcase checked-first; then
# a directory among the targets: nothing written, not even the first file
mkdir out out/dir
expect_err 2 "directory target" "scopedb: cannot write --output 'markdown=out/dir': is a directory" \
	$S check 1 2 --output json=out/c4.json --output markdown=out/dir
equals "directory: no stdout" "$out" ""
[ ! -e out/c4.json ] && ok || bad "directory: out/c4.json was written"
equals "directory: no temporary files" "$(ls out | grep -c '\.tmp\.')" "0"
echo old >out/keep.json
expect_err 2 "missing parent" \
	"scopedb: cannot write --output 'csv=nodir/c.csv': no such file or directory" \
	$S check 1 2 --output json=out/keep.json --output csv=nodir/c.csv
equals "missing parent: file untouched" "$(<out/keep.json)" "old"
# a store's connection string given as FILE (--db's value, misplaced):
# refused, and its password not printed (it was, in "no such file")
expect_err 2 "a connection string" \
	"scopedb: cannot write --output 'json=postgresql://...': a database's connection string, not a file (a store is --db's)" \
	$S check 1 2 --output 'json=postgresql://u:s3cret@localhost/db' --output json=out/keep.json
equals "a connection string: file untouched" "$(<out/keep.json)" "old"
# and in every other --output message (--db's value put in its place):
# each ARGUMENT|the message's quote of it|its cause
conn="a database's connection string, not a file (a store is --db's)"
while IFS='|' read -r arg shown cause; do
	expect_err 2 "a connection string: $shown" "scopedb: $shown': $cause" \
		$S check 1 2 --output "$arg"
done <<EOF
csv=host=db password=s3cret|cannot write --output 'csv=host=...|$conn
csv=sslcert=/x password=s3cret host=db|cannot write --output 'csv=sslcert=...|$conn
postgresql://u:s3cret@localhost/db|invalid --output 'postgresql://...|expected FORMAT=FILE
html=postgresql://u:s3cret@localhost/db|invalid --output 'html=postgresql://...|unknown format; choose from table, json, csv, markdown, junit, github, codequality
json=PostgreSQL://u:s3cret@localhost/db|cannot write --output 'json=PostgreSQL://...|no such file or directory
EOF
if [ "$(id -u)" -ne 0 ]; then
	mkdir ro && chmod 555 ro
	expect_err 2 "read-only parent" \
		"scopedb: cannot write --output 'json=ro/c.json': permission denied" \
		$S check 1 2 --output json=out/keep.json --output json=ro/c.json
	equals "read-only parent: file untouched" "$(<out/keep.json)" "old"
	chmod 755 ro
fi

fi

if tcase fifo; then
# (check exits 1 here: b regressed; the files are written all the same)
# a FIFO stays a FIFO and gets the document
mkfifo fifo
# (the reader gives up after a while if scopedb replaced the FIFO instead)
timeout 20 cat fifo >fifo.out &
reader=$!
expect 1 "fifo target" $S check 1 2 --output json=fifo
wait "$reader"
[ -p fifo ] && ok || bad "fifo was replaced"
cmp -s want.json fifo.out && ok || bad "fifo content differs"

fi

if tcase devices; then
# a character device is written, never replaced; a full one says so
expect 1 "device target" $S check 1 2 --output json=$null
[ -c $null ] && ok || bad "$null is no longer a device"
if [ -c $full ]; then
	expect_err 2 "full device" \
		"scopedb: cannot write --output 'json=$full': no space left on device" \
		$S check 1 2 --output json=$full
	equals "full device: no stdout" "$out" ""
fi

fi

if tcase stdout; then
# "-" and /dev/fd/1 (like /dev/stdout, not used here: as root a regressed
# binary would replace it): stdout, after the --format document
$S check 1 2 --format json >want2.txt
cat want.md >>want2.txt
$S check 1 2 --format json --output markdown=- >got.txt
cmp -s want2.txt got.txt && ok || bad "--output markdown=- differs"
$S check 1 2 --format json --output markdown=/dev/fd/1 >got2.txt
cmp -s want2.txt got2.txt && ok || bad "--output markdown=/dev/fd/1 differs"
$S check 1 2 --format json --output markdown=/dev/fd/1 | cat >got3.txt
cmp -s want2.txt got3.txt && ok || bad "--output markdown=/dev/fd/1 to a pipe differs"

fi

if tcase symlink; then
# a symlink: the target is replaced, the link stays
echo old >real.json
ln -s real.json link.json
expect 1 "symlink target" $S check 1 2 --output json=link.json
[ -L link.json ] && ok || bad "symlink was replaced"
cmp -s want.json real.json && ok || bad "symlink target not written"
ln -s nowhere/x.json dangling.json
expect_err 2 "dangling symlink" \
	"scopedb: cannot write --output 'json=dangling.json': no such file or directory" \
	$S check 1 2 --output json=dangling.json

fi

if tcase modes; then
# modes: a replaced file keeps its own, a new one follows the umask
echo old >mode.json
chmod 640 mode.json
expect 1 "keep mode" $S check 1 2 --output json=mode.json
equals "replaced file keeps its mode" "$(stat -c %a mode.json)" "640"
(umask 027 && $S check 1 2 --output json=new.json >/dev/null)
equals "new file follows the umask" "$(stat -c %a new.json)" "640"
(umask 022 && $S check 1 2 --output json=new2.json >/dev/null)
equals "new file follows umask 022" "$(stat -c %a new2.json)" "644"
equals "no temporary files" "$(ls | grep -c '\.tmp\.')" "0"

fi

# --- never over the store or another SQLite file (issue 29) --------------------
if tcase store-files; then
db=$SCOPEDB_DB
sum() { sha256sum "$db" | cut -d' ' -f1; }
before=$(sum)
# refused DESC ARG MESSAGE CMD...: exit 2, MESSAGE, nothing written, the store intact
refused() {
	local desc=$1 msg=$2
	shift 2
	expect_err 2 "$desc" "$msg" "$@"
	equals "$desc: no stdout" "$out" ""
	equals "$desc: store unchanged" "$(sum)" "$before"
	equals "$desc: no temporary files" "$(ls "$E2E_DIR" | grep -c '\.tmp\.')" "0"
}
refused "--output over the store" "scopedb: cannot write --output 'json=$db': it is the store; refused" \
	$S diff 1 2 --output json="$db"
ln -s "$db" store-link.sqlite
refused "--output over a symlink to the store" \
	"scopedb: cannot write --output 'json=store-link.sqlite': it is the store; refused" \
	$S diff 1 2 --output json=store-link.sqlite
ln "$db" store-hardlink
refused "--output over a hard link to the store" \
	"scopedb: cannot write --output 'csv=store-hardlink': it is the store; refused" \
	$S check 1 2 --output csv=store-hardlink
for suffix in -wal -shm -journal; do
	refused "--output over the store's $suffix" \
		"scopedb: cannot write --output 'markdown=$db$suffix': it is a file of the store; refused" \
		$S diff 1 2 --output markdown="$db$suffix"
done
refused "a second --output over the store" \
	"scopedb: cannot write --output 'json=$db': it is the store; refused" \
	$S diff 1 2 --output json=ok.json --output json="$db"
[ ! -e ok.json ] && ok || bad "a refused --output wrote the other files"
refused "report -o over the store" "scopedb: cannot write --output '$db': it is the store; refused" \
	$S report 1 2 -o "$db"
refused "report -o over a symlink to the store" \
	"scopedb: cannot write --output 'store-link.sqlite': it is the store; refused" \
	$S report 1 2 -o store-link.sqlite
refused "/dev/stdout appended to the store" \
	"scopedb: cannot write --output 'json=/dev/stdout': it is the store; refused" \
	bash -c "$S diff 1 2 --output json=/dev/stdout >>'$db'"
# any SQLite database, its write-ahead log or journal, or its other files
cp "$db" other.db
refused "--output over another SQLite database" \
	"scopedb: cannot write --output 'json=other.db': it is an SQLite database; refused" \
	$S diff 1 2 --output json=other.db
refused "--output over another database's -shm" \
	"scopedb: cannot write --output 'json=other.db-shm': it is a file of an SQLite database; refused" \
	$S diff 1 2 --output json=other.db-shm
printf '\067\177\006\202rest of a log' >old-wal
refused "--output over a write-ahead log" \
	"scopedb: cannot write --output 'json=old-wal': it is an SQLite write-ahead log; refused" \
	$S diff 1 2 --output json=old-wal
printf '\331\325\005\371\040\241\143\327rest of a journal' >old-journal
refused "report -o over a rollback journal" \
	"scopedb: cannot write --output 'old-journal': it is an SQLite rollback journal; refused" \
	$S report 1 2 -o old-journal
expect 0 "the store still works" $S runs
# a file that merely starts like one is not refused
printf 'SQLite format 2\n' >not.db
expect 1 "--output over another file" $S check 1 2 --output json=not.db
cmp -s want.json not.db && ok || bad "not.db not written"

fi

if tcase inputs; then
# a profile the command reads is never written over (check in.h5 b.h5
# --output json=in.h5 replaced the profile), nor is one file given to two
# --output (the second document replaced the first)
cp a.h5 in.h5 && ln -s in.h5 in-link.h5 || exit 1
sum_in() { sha256sum in.h5 | cut -d' ' -f1; }
before_in=$(sum_in)
expect_err 2 "--output over a profile read" \
	"scopedb: cannot write --output 'json=in.h5': it is a file this command reads; refused" \
	$S check in.h5 b.h5 --output json=in.h5
expect_err 2 "--output over a symlink to a profile read" \
	"scopedb: cannot write --output 'json=in-link.h5': it is a file this command reads; refused" \
	$S diff b.h5 in.h5 --output json=in-link.h5
expect_err 2 "--output over a repetition read" \
	"scopedb: cannot write --output 'csv=in.h5': it is a file this command reads; refused" \
	$S check 1 b.h5 in.h5 --output csv=in.h5
expect_err 2 "report -o over a profile read" \
	"scopedb: cannot write --output 'in.h5': it is a file this command reads; refused" \
	$S report 1 in.h5 -o in.h5
equals "the profile read is intact" "$(sum_in)" "$before_in"
expect_err 2 "two --output to one file" \
	"scopedb: invalid --output 'github=./one.txt': --output 'json=one.txt' writes that file already; give each its own" \
	$S check 1 2 --output json=one.txt --output github=./one.txt
[ ! -e one.txt ] && ok || bad "two --output to one file: written"
expect 1 "two --output to stdout" $S check 1 2 --output json=- --output markdown=-
# what is written as it is takes several (a review: refused by inode, it
# broke a CI job whose stdout and stderr are one pipe)
run bash -c "$S check 1 2 --output json=/dev/stdout --output markdown=/dev/stderr 2>&1 | cat"
contains "/dev/stdout and /dev/stderr on one pipe" "$out" "Regression check"
expect 1 "two --output to $null" $S check 1 2 --output json="$null" --output markdown="$null"
touch existing.txt
expect_err 2 "two --output to one existing file" \
	"scopedb: invalid --output 'csv=./existing.txt': --output 'json=existing.txt' writes that file already; give each its own" \
	$S check 1 2 --output json=existing.txt --output csv=./existing.txt
# a selector is read from the store: its namesake file in the working
# directory is not an input
echo notes >latest
expect 1 "a selector's namesake file is not read" $S check 1 latest --output csv=latest
contains "the namesake written" "$(<latest)" "region,a,b,delta,pct"

fi

if tcase concurrent; then
# another job replacing and removing the same FILE all the time (two CI
# jobs in one workspace: each removes its old report, then renames its
# new one into place): each write still succeeds, whatever the file was
# when it looked (it told a file made or removed between two looks for a
# dangling symlink or a missing file: 10 and 11 of 150 writes in two runs)
python3 - 8 <<'PY' &
import os, sys, time
end = time.time() + float(sys.argv[1])
while time.time() < end:
    with open("race.tmp", "w") as f:
        f.write("{}")
    os.rename("race.tmp", "race.json")
    try:
        os.unlink("race.json")
    except FileNotFoundError:
        pass
PY
toggler=$!
failed=0
for i in $(seq 150); do
	$S check 1 2 --output json=race.json >/dev/null 2>race.err
	rc=$?
	[ $rc = 1 ] && [ ! -s race.err ] || { failed=$((failed + 1)); head -1 race.err >&2; }
done
kill $toggler 2>/dev/null
wait $toggler 2>/dev/null
equals "150 writes beside a job replacing and removing the file" "$failed" 0
equals "concurrent: no temporary files" "$(ls | grep -c '\.tmp\.')" "0"

fi

# --- a full disk: the real cause, and no --output when none was given ----------
if tcase full-stdout; then
if [ -c $full ]; then
	expect_err 2 "report to a full stdout" \
		"scopedb: cannot write to standard output: no space left on device" \
		bash -c "exec $S report 1 2 >$full"
	expect_err 2 "diff to a full stdout" \
		"scopedb: cannot write to standard output: no space left on device" \
		bash -c "exec $S diff 1 2 --format json >$full"
	expect_err 2 "report -o to a full device" \
		"scopedb: cannot write --output '$full': no space left on device" $S report 1 2 -o $full
	# the commands that print a text of their own, larger than stdio's
	# buffer (the cause was lost: "input/output error")
	for c in "completion bash" "history --match . --format json" "changes --format json" \
		"help --man diff" "ingest --format json a.h5" "runs --format json" "pins --format json"; do
		expect_err 2 "$c to a full stdout" \
			"scopedb: cannot write to standard output: no space left on device" \
			bash -c "exec $S $c >$full"
	done
fi

fi

finish
