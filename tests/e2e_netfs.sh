#!/usr/bin/env bash
# e2e_netfs.sh - the warning for an SQLite store on a network file system
# (issue 17): statfs() is made to report NFS, CIFS, Lustre ... by an
# LD_PRELOAD shim (tests/preload/fake_fstype.c).  Writing commands warn,
# once, naming the store, the file system and the PostgreSQL option;
# --allow-network-fs silences them; reads and local file systems do not
# warn.
source "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?set MKPROFILE to the mkprofile binary}"
: "${FAKE_FSTYPE_SO:?set FAKE_FSTYPE_SO to the statfs shim}"
S=$SCOPEDB
"$MKPROFILE" --ranks 2 --calls 20 --seed 1 r1.h5 >/dev/null || exit 1
"$MKPROFILE" --ranks 2 --calls 20 --seed 2 r2.h5 >/dev/null || exit 1
# the shim comes before the sanitizers' runtime in an ASan build
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
on() { FAKE_FSTYPE=$1 LD_PRELOAD=$FAKE_FSTYPE_SO "${@:2}"; }
warning() {
	echo "scopedb: warning: store '$1' is on a network file system ($2), where SQLite's locking is unreliable and concurrent writers can corrupt it: use a PostgreSQL store (--db postgresql://...) or pass --allow-network-fs"
}

if tcase writes; then
run on 0x6969 $S ingest --db nfs.sqlite r1.h5 --commit 0123456789abcdef0123456789abcdef01234567
equals "ingest on nfs: exit" "$rc" 0
equals "ingest on nfs: warning" "$err" "$(warning nfs.sqlite nfs)"
equals "ingest on nfs: stored" "$out" "run 1: r1.h5: 2 ranks, 5 regions, 200 calls"
for fs in 0xFF534D42:cifs 0xFE534D42:smb2 0x517B:smb 0x0BD00BD0:lustre 0x47504653:gpfs; do
	run on ${fs%%:*} $S tag --db nfs.sqlite 1 t
	equals "tag on ${fs#*:}" "$err" "$(warning nfs.sqlite ${fs#*:})"
done
for cmd in "pin base 1" "untag 1 t" "vacuum"; do
	# shellcheck disable=SC2086
	run on 0x6969 $S $cmd --db nfs.sqlite
	equals "$cmd on nfs: exit" "$rc" 0
	equals "$cmd on nfs: warning" "$err" "$(warning nfs.sqlite nfs)"
	# shellcheck disable=SC2086
	run on 0x6969 $S $cmd --db nfs.sqlite --allow-network-fs
	equals "$cmd --allow-network-fs: silent" "$err" ""
done
run on 0x6969 $S unpin base --db nfs.sqlite
equals "unpin on nfs: warning" "$err" "$(warning nfs.sqlite nfs)"
# the store's path is quoted escaped (it was printed raw)
esc=$'e\033[2J.sqlite'
run on 0x6969 $S ingest --db "$esc" r1.h5 --commit 0123456789abcdef0123456789abcdef01234567
equals "a store named with an ESC: warning escaped" "$err" "$(warning 'e\x1b[2J.sqlite' nfs)"
run on 0x6969 $S pin base 1 --db nfs.sqlite --allow-network-fs
run on 0x6969 $S unpin base --db nfs.sqlite --allow-network-fs
equals "unpin --allow-network-fs: silent" "$err|$rc" "|0"
run on 0x6969 $S ingest --db nfs.sqlite r2.h5 --commit 0123456789abcdef0123456789abcdef01234567 --allow-network-fs
equals "--allow-network-fs: no warning" "$err" ""
equals "--allow-network-fs: stored" "$rc" 0
fi

if tcase transfers; then
[ -f nfs.sqlite ] || $S ingest --db nfs.sqlite r1.h5 r2.h5 --commit 0123456789abcdef0123456789abcdef01234567 >/dev/null 2>&1
mkdir sub
run on 0x6969 $S push --db nfs.sqlite --to sub/team.sqlite
equals "push to nfs: the destination is named" "$err" "$(warning sub/team.sqlite nfs)"
run on 0x6969 $S pull --db pulled.sqlite --from nfs.sqlite 1
equals "pull into nfs" "$err" "$(warning pulled.sqlite nfs)"
run on 0x6969 $S rm --db nfs.sqlite 2
equals "rm on nfs" "$err" "$(warning nfs.sqlite nfs)"
fi

if tcase reads; then
[ -f nfs.sqlite ] || $S ingest --db nfs.sqlite r1.h5 --commit 0123456789abcdef0123456789abcdef01234567 >/dev/null 2>&1
# reads do not warn, and local file systems do not either
for cmd in "runs" "show 1" "diff 1 1" "history main" "pins"; do
	# shellcheck disable=SC2086
	run on 0x6969 $S $cmd --db nfs.sqlite
	equals "$cmd on nfs: no warning" "$(grep -c warning <<<"$err")" 0
done
run on 0xEF53 $S tag --db nfs.sqlite 1 local
equals "ext4: no warning" "$err" ""
run $S tag --db nfs.sqlite 1 local2
equals "no shim: no warning" "$err" ""
fi
finish
