#!/usr/bin/env bash
# e2e_storage.sh - storage failures (issue 5, part 5).
#
#  1. A full disk, simulated with RLIMIT_FSIZE (works unprivileged; SIGXFSZ
#     ignored so write() fails with EFBIG): ingest fails with exit 2 and one
#     "cannot update store" line; the earlier run is intact, integrity_check
#     is ok, and the same ingest works once there is room.  A pull the full
#     disk stops keeps what it committed and counts the rest as not copied.
#  2. When mounts are possible (root, unshare -m; skipped with a note
#     otherwise): a store on a 1 MB tmpfs filled up by another file, then the
#     same tmpfs
#     remounted read-only: ingest fails with one clear line, `runs` still
#     lists the run, nothing is damaged.
#  3. Store creation and migration are atomic: `scopedb ingest` into a new
#     store is killed at 20 moments during creation; afterwards the store is
#     either untouched (no file, or user_version 0 and no tables) or the
#     complete current schema, never in between, and the next ingest works.
#     An empty file (an SQLite database of version 0) is migrated too.
# (A store of a newer scopedb is covered by e2e_ingest.sh.)
source "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?set MKPROFILE to the mkprofile binary}"

now_ms() { echo $(($(date +%s%N) / 1000000)); }

"$MKPROFILE" --ranks 2 --calls 50 --seed 1 --label first small.h5 >/dev/null || exit 1
"$MKPROFILE" --ranks 16 --calls 2000 --seed 2 --label big big.h5 >/dev/null || exit 1
runs_sig() { sqlite3 "$1" "select group_concat(id || ':' || num_calls || ':' || label, ' ') from runs"; }

if tcase full-disk; then
# 1. full disk via RLIMIT_FSIZE
db=fsize.sqlite
expect 0 "fsize: first ingest" "$SCOPEDB" ingest --db $db small.h5
before=$(runs_sig $db)
size_kb=$((($(stat -c %s $db) + 1023) / 1024))
limited() { (trap '' XFSZ; ulimit -f $((size_kb + 16)); "$@"); }
expect_error "fsize: ingest on a full disk" "^scopedb: ('big.h5' not stored: )?cannot (update|open) store 'fsize.sqlite': " \
	limited "$SCOPEDB" ingest --db $db big.h5
equals "fsize: integrity_check" "$(sqlite3 $db 'pragma integrity_check')" ok
equals "fsize: earlier run intact" "$(runs_sig $db)" "$before"
equals "fsize: no trace of the failed run" "$(sqlite3 $db "select count(*) from timings
	where run_id not in (select id from runs)")" 0
expect 0 "fsize: ingest once there is room" "$SCOPEDB" ingest --db $db big.h5
equals "fsize: both runs" "$(sqlite3 $db 'select count(*) from runs')" 2

fi

if tcase full-disk-pull; then
# a pull the full disk stops: the runs it committed stay, the summary
# counts the runs left as not copied (it counted only those done), and
# pulling again copies them.  The destination exists (its schema alone
# needs more room than half the source).
for i in $(seq 1 80); do
	"$MKPROFILE" --ranks 4 --calls 300 --regions main,a --seed "$i" "p$i.h5" >/dev/null || exit 1
done
"$SCOPEDB" ingest -q --db many.sqlite --commit abc1234 p*.h5 >/dev/null 2>&1 || exit 1
expect 0 "fsize pull: the first run" "$SCOPEDB" pull --db part.sqlite --from many.sqlite 1
kb=$((($(stat -c %s part.sqlite) + $(stat -c %s many.sqlite) / 2) / 1024))
run bash -c "trap '' XFSZ; ulimit -f $kb; exec \"\$0\" pull --db part.sqlite --from many.sqlite" "$SCOPEDB"
equals "fsize pull: exit" "$rc" 2
contains "fsize pull: the cause" "$err" "scopedb: cannot update store 'part.sqlite': "
copied=$(grep -c '^copied run' <<<"$out")
case "$(tail -1 <<<"$out")" in
"pull of 80 runs from 'many.sqlite' stopped: $copied copied, 1 already there, $((79 - copied)) left untried") ok ;;
*) bad "fsize pull: the summary counts every run: $(tail -1 <<<"$out") ($copied copied)" ;;
esac
if [ "$copied" -lt 79 ]; then ok; else bad "fsize pull: the disk was not full ($copied copied)"; fi
equals "fsize pull: the copied runs stored" "$(sqlite3 part.sqlite 'select count(*) from runs')" "$((copied + 1))"
expect 0 "fsize pull: again once there is room" "$SCOPEDB" pull --db part.sqlite --from many.sqlite
contains "fsize pull: the rest copied" "$(tail -1 <<<"$out")" "$((79 - copied)) copied, $((copied + 1)) already there"
# the first batch failing: still a summary, nothing copied
expect 0 "fsize pull: another store" "$SCOPEDB" pull --db part2.sqlite --from many.sqlite 1
# (48 KiB: less than the three runs' pages in the write-ahead log)
run bash -c "trap '' XFSZ; ulimit -f 48; exec \"\$0\" pull --db part2.sqlite --from many.sqlite 2 3 4" "$SCOPEDB"
equals "fsize pull, first batch: exit" "$rc" 2
equals "fsize pull, first batch: the summary" "$out" "pull of 3 runs from 'many.sqlite' stopped: 0 copied, 0 already there, 3 left untried"
fi

if tcase tmpfs; then
# 2. tmpfs: full, then read-only
if unshare -m true 2>/dev/null && unshare -m sh -c 'mkdir -p mnt-probe &&
	mount -t tmpfs -o size=64k tmpfs mnt-probe' 2>/dev/null; then
	rmdir mnt-probe 2>/dev/null
	mkdir -p m
	# runs in a private mount namespace: the mount disappears with it
	unshare -m bash -s "$SCOPEDB" >mount.log 2>&1 <<-'EOF'
		S=$1
		mount -t tmpfs -o size=1m tmpfs m || exit 1
		step() { echo "== $1"; shift; "$@" 2>&1; echo "rc=$?"; }
		step first "$S" ingest --db m/s.sqlite small.h5
		"$S" ingest -q --db m/t.sqlite small.h5 >/dev/null 2>&1
		step runs-before sqlite3 m/s.sqlite "select count(*) from runs"
		dd if=/dev/zero of=m/filler bs=4k 2>/dev/null # the disk is now full
		step full "$S" ingest --db m/s.sqlite big.h5
		step integrity-full sqlite3 m/s.sqlite "pragma integrity_check"
		step runs-full sqlite3 m/s.sqlite "select count(*) from runs;
			select count(*) from timings where run_id not in (select id from runs)"
		mount -o remount,ro m || exit 1
		step readonly "$S" ingest --db m/s.sqlite ../small.h5 big.h5
		step runs-readonly "$S" runs --db m/s.sqlite --format json
		step readonly-closed "$S" ingest --db m/t.sqlite big.h5
		mount -o remount,rw m || exit 1
		step integrity-end sqlite3 m/s.sqlite "pragma integrity_check"
	EOF
	log=$(<mount.log)
	section() { awk -v s="== $1" '$0 == s {p = 1; next} /^== / {p = 0} p' mount.log; }
	contains "tmpfs: first ingest" "$(section first)" "rc=0"
	equals "tmpfs: disk full is one clear line, exit 2" "$(section full)" \
		"scopedb: 'big.h5' not stored: cannot update store 'm/s.sqlite': database or disk is full
rc=2"
	equals "tmpfs: integrity after disk full" "$(section integrity-full)" "ok
rc=0"
	equals "tmpfs: earlier run intact, no orphans" "$(section runs-full)" "1
0
rc=0"
	case "$(section readonly)" in
	"scopedb: cannot "*"store 'm/s.sqlite'"*"readonly"*"rc=2") ok ;;
	*) bad "tmpfs: read-only store: $(section readonly)" ;;
	esac
	equals "tmpfs: read-only error is one line per file" \
		"$(section readonly | grep -c '^scopedb: ')" 2
	contains "tmpfs: runs on a read-only store" "$(section runs-readonly)" '"label": "first"'
	contains "tmpfs: runs on a read-only store exits 0" "$(section runs-readonly)" "rc=0"
	# a store closed cleanly (no -wal, no -shm) on it: SQLite said only
	# "unable to open database file"
	equals "tmpfs: a closed store on a read-only file system" "$(section readonly-closed)" \
		"scopedb: cannot open store 'm/t.sqlite': read-only file system
rc=2"
	equals "tmpfs: integrity at the end" "$(section integrity-end)" "ok
rc=0"
	[ -n "$log" ] || bad "tmpfs: no log"
else
	note "cannot mount a tmpfs here (needs root and unshare -m); tmpfs checks skipped"
fi

fi

# 3. atomic creation/migration
if tcase setup-reference; then
ref=ref.sqlite
expect 0 "reference store" "$SCOPEDB" ingest --db $ref small.h5
want_objects=$(sqlite3 $ref "select count(*) from sqlite_master")
want_version=$(sqlite3 $ref "pragma user_version")
fi

if tcase atomic-creation; then
t0=$(now_ms)
"$SCOPEDB" runs --db timing.sqlite >/dev/null 2>&1
create_ms=$(($(now_ms) - t0 + 5))
for ((i = 0; i < 20; i++)); do
	new=new$i.sqlite
	delay_us=$((create_ms * 1000 * i / 19))
	"$SCOPEDB" ingest --db $new small.h5 >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '%d.%06d' $((delay_us / 1000000)) $((delay_us % 1000000)))"
	kill -KILL $pid 2>/dev/null
	{ wait $pid; } 2>/dev/null
	if [ ! -e $new ]; then
		ok
	else
		state=$(sqlite3 $new "select (select user_version from pragma_user_version) || ' ' ||
			(select count(*) from sqlite_master)" 2>&1)
		case "$state" in
		"0 0" | "$want_version $want_objects") ok ;;
		*) bad "creation killed after ${delay_us} us: store in state '$state'" ;;
		esac
		equals "creation kill $i: integrity" "$(sqlite3 $new 'pragma integrity_check')" ok
	fi
	run "$SCOPEDB" ingest --db $new small.h5
	if [ "$rc" -eq 0 ]; then ok; else bad "ingest after creation kill $i: exit $rc: $err"; fi
	equals "creation kill $i: one run" "$(sqlite3 $new 'select count(*) from runs')" 1
done

fi

if tcase empty-file; then
# an empty file is an SQLite database of version 0: migrated in place
: >empty.sqlite
expect 0 "empty file migrated" "$SCOPEDB" ingest --db empty.sqlite small.h5
equals "empty file: current schema" "$(sqlite3 empty.sqlite "select
	(select user_version from pragma_user_version) || ' ' || count(*) from sqlite_master")" \
	"$want_version $want_objects"
fi

finish
