#!/usr/bin/env bash
# End-to-end tests of issue 13, part A: a profile can make scopedb read
# nothing outside itself, load no code, and not outgrow what it holds.
# Hostile files come from mkhostile (tests/support/hostile_h5.c); a filter
# plugin that creates $SCOPEDB_MARKER when loaded sits in HDF5_PLUGIN_PATH
# (h5dump loading it proves it works); secrets lie in a file and in the
# environment.  Each file: exact error, exit 2, nothing stored, no marker,
# no secret in any output.  Then control bytes from files in CSV and
# diagnostics; the hostile name corpus (tests/support/hostile_names.c)
# through every output format, the report and completion (issue 29); and a
# file swapped (mv) again and again while it is ingested: every stored
# run's hash is the sha256sum of the content it holds.
. "$(dirname "$0")/e2e-lib.sh"
: "${MKHOSTILE:?}" "${H5MARKER_DIR:?}" "${MKPROFILE:?}"
S=$SCOPEDB
db=$E2E_DIR/h.sqlite

export SCOPEDB_E2E_TOKEN=tok_5ecr3t_e2e_ba7
printf 'SECRET_FILE_9f3a\nroot:x:0:0:root:/root:/bin/sh\n' >secret.txt
export SCOPEDB_MARKER=$E2E_DIR/marker
export HDF5_PLUGIN_PATH=$H5MARKER_DIR
export HDF5_EXTFILE_PREFIX=$E2E_DIR HDF5_EXT_PREFIX=$E2E_DIR HDF5_VDS_PREFIX=$E2E_DIR

# no_secret DESC TEXT: none of the secrets is in TEXT
no_secret() {
	case "$2" in
	*SECRET_FILE* | *tok_5ecr3t* | *root:x:0*) bad "$1: a secret leaked: $2" ;;
	*) ok ;;
	esac
}

nruns() { if [ -f "$db" ]; then sql "$db" 'select count(*) from runs'; else echo 0; fi; }

$MKPROFILE --ranks 2 --regions a,b --calls 5 other.h5 >/dev/null || bad "mkprofile other.h5"

if tcase setup-plugin; then
# the plugin is a working filter 32004: h5dump loads it and reads the file
$MKHOSTILE filter filter.h5 || bad "mkhostile filter"
if command -v h5dump >/dev/null; then
	h5dump -d /events/durations filter.h5 >/dev/null 2>&1
	[ -e "$SCOPEDB_MARKER" ] && ok || bad "h5dump did not load the marker plugin"
	rm -f "$SCOPEDB_MARKER"
fi

fi

SELF="; refused (a profile must be self-contained)"
# refused KIND AUX MESSAGE: ingest (table and json), show and diff of the
# file all exit 2 with "scopedb: cannot read 'KIND.h5': MESSAGE"
refused() {
	local kind=$1 aux=$2 msg="scopedb: cannot read '$1.h5': $3" before
	if [ "$kind" != filter ]; then
		$MKHOSTILE "$kind" "$kind.h5" $aux || bad "mkhostile $kind"
	fi
	before=$(nruns)
	expect_err 2 "ingest $kind" "$msg" $S ingest --db "$db" --commit abc1234 "$kind.h5"
	no_secret "ingest $kind" "$out$err"
	equals "$kind: nothing stored" "$(nruns)" "$before"
	run $S ingest --db "$db" --commit abc1234 --format json "$kind.h5"
	equals "ingest --format json $kind exit" "$rc" 2
	contains "ingest --format json $kind" "$out" '"status": "error"'
	no_secret "ingest --format json $kind" "$out$err"
	expect_err 2 "show $kind" "$msg" $S show --db "$db" "$kind.h5" --format markdown
	no_secret "show $kind" "$out$err"
	run $S check --db "$db" other.h5 "$kind.h5" --format markdown
	equals "check $kind exit" "$rc" 2
	no_secret "check $kind" "$out$err"
	[ -e "$SCOPEDB_MARKER" ] && bad "$kind: a plugin was loaded" || ok
}

if tcase refused; then
refused external-storage "$E2E_DIR/secret.txt" \
	"dataset 'region_table/names' uses external storage$SELF"
refused external-link "$E2E_DIR/other.h5" \
	"'region_table' is an external link to '/region_table' in '$E2E_DIR/other.h5'$SELF"
refused soft-missing "" \
	"'events/durations' is a soft link to the missing object '/nowhere/durations'$SELF"
refused soft-outside "$E2E_DIR/other.h5" \
	"'/elsewhere' is an external link to '/events' in '$E2E_DIR/other.h5'$SELF"
refused soft-loop "" \
	"'/events/durations' is a soft link in a chain of more than 16; refused (a loop?)"
refused vds-missing "" \
	"dataset 'events/durations' is a virtual dataset (its data lies in other datasets or files)$SELF"
refused vds-self "" \
	"dataset 'events/durations' is a virtual dataset (its data lies in other datasets or files)$SELF"
refused filter "" \
	"dataset 'events/durations' needs HDF5 filter 32004 ('lz4'), which is not built into libhdf5 or accepted by scopedb (filter plugins are never loaded); refused"
BOMB="dataset 'events/start_deltas' declares 200000000 values (1600000000 bytes) but the file stores only 0"
refused sparse "" "$BOMB bytes for it; refused (sparse or unallocated storage, or the file is damaged)"
refused sparse-gzip "" \
	"$BOMB compressed bytes for it (at most 1032:1); refused (sparse or unallocated storage, or the file is damaged)"
refused unwritten "" "$BOMB bytes for it; refused (sparse or unallocated storage, or the file is damaged)"
# external storage on the environment of the process itself
$MKHOSTILE external-storage environ.h5 /proc/self/environ || bad "mkhostile environ"
expect_err 2 "external storage on /proc/self/environ" \
	"scopedb: cannot read 'environ.h5': dataset 'region_table/names' uses external storage$SELF" \
	$S ingest --db "$db" environ.h5
no_secret "environ" "$out$err"
# a soft link inside the file is fine
$MKHOSTILE soft-inside soft-inside.h5 || bad "mkhostile soft-inside"
expect 0 "soft link inside the file" $S ingest --db "$db" --commit abc1234 soft-inside.h5
equals "soft-inside stored" "$(nruns)" 1

fi

# --- not a regular file ------------------------------------------------------
if tcase not-regular; then
mkdir adir
expect_err 2 "directory" "scopedb: cannot read 'adir': is a directory" $S ingest --db "$db" adir
mkfifo afifo
expect_err 2 "FIFO (no hang)" "scopedb: cannot read 'afifo': not a regular file" \
	timeout 20 $S ingest --db "$db" afifo

fi

# --- out of memory: the file named (not "truncated or damaged") ------------
# (skipped where the binary cannot start under the limit, e.g. ASan builds;
# where the file is read in a child process under its own memory limit,
# issue 13 part B, that limit's message is the right one too)
if tcase out-of-memory; then
# (8M calls: a row needs about 25 bytes a call at once, 200 MB, over the
# 150 MB; 4M calls fit since the row's GPU array is reserved only for a
# file with a GPU column)
$MKPROFILE --ranks 1 --regions a --calls 8000000 row.h5 >/dev/null || bad "mkprofile row.h5"
if (ulimit -v 150000 && $S --version) >/dev/null 2>&1; then
	before=$(nruns)
	# (the limit met is scopedb's own, not --file-memory's 4096 MiB: the
	# message says which)
	expect_error "out of memory" \
		"^scopedb: (cannot (read|ingest) 'row.h5'.*: out of memory|'row.h5': reading it needed more than the 146 MiB of address space scopedb may use \\(ulimit -v\\); nothing stored)\$" \
		bash -c "ulimit -v 150000 && exec $S ingest --db '$db' row.h5"
	equals "out of memory: nothing stored" "$(nruns)" "$before"
	# a soft limit alone, and --file-memory 0: the reader keeps it
	expect_err 2 "out of memory, a soft limit kept" \
		"scopedb: 'row.h5': reading it needed more than the 146 MiB of address space scopedb may use (ulimit -v); nothing stored" \
		bash -c "ulimit -S -v 150000 && exec $S ingest --db '$db' --file-memory 0 row.h5"
	# its own limit under a larger one of scopedb's: --file-memory's
	expect_err 2 "out of memory, --file-memory under a ulimit" \
		"scopedb: 'row.h5': reading it needed more than 64 MiB (--file-memory); nothing stored" \
		bash -c "ulimit -v 8000000 && exec $S ingest --db '$db' --file-memory 64 row.h5"
	equals "out of memory: still nothing stored" "$(nruns)" "$before"
fi
rm -f row.h5

fi

# --- control bytes from files --------------------------------------------------
if tcase control-bytes; then
ESC=$(printf '\033')
$MKPROFILE --ranks 1 --regions "$(printf 'aaaaaaaaaaaaaaaaaaaaaaaaaaaa\033[2J'),c" --calls 3 \
	esc.h5 >/dev/null || bad "mkprofile esc.h5"
expect 0 "ingest esc.h5" $S ingest --db "$db" --commit abc1234 esc.h5
id=$(sql "$db" "select id from runs where source_path like '%esc.h5'")
run $S show --db "$db" "$id" --format csv
case "$out" in *"$ESC"*) bad "CSV holds a raw ESC" ;; *) ok ;; esac
contains "CSV shows ? for ESC" "$out" 'aaaaaaaaaaaaaaaaaaaaaaaaaaaa?[2J'
expect_err 2 "match-limit error" \
	"scopedb: --include pattern '(a+)+\$' on region 'aaaaaaaaaaaaaaaaaaaaaaaaaaaa\\x1b[2J': match limit exceeded" \
	$S show --db "$db" "$id" --include '(a+)+$'
cp esc.h5 "$(printf 'e\033]0;x\007.h5')"
run $S ingest --db "$db" --commit abc1234 "$(printf 'e\033]0;x\007.h5')"
case "$err" in *"$ESC"*) bad "ingest diagnostics hold a raw ESC: $err" ;; *) ok ;; esac

fi

# --- the hostile name corpus through every surface (issue 29) -----------------
# The names of tests/support/hostile_names.c of valid UTF-8 (mkhostile
# list-utf8; the others a store refuses, below): one run per name, which is
# its label (/metadata label), branch, tag and, in the store, its commit;
# every run's regions and their tags are all the names.  Every
# output format of every command that prints them: the terminal gets no
# control character, CSV no cell a spreadsheet would compute and markdown no
# mention, autolink or issue reference (mkhostile check), JSON is valid
# (jq), JUnit is valid XML (xmllint), the report has no element of data;
# the completion of every name is a quoted word that gives the name back
# and runs nothing.
if tcase corpus; then
mapfile -d '' NAMES < <($MKHOSTILE list-utf8)
nall=$($MKHOSTILE list | tr -cd '\0' | wc -c)
[ "$nall" -ge 40 ] && [ "${#NAMES[@]}" -ge $((nall - 4)) ] && ok ||
	bad "mkhostile list: $nall names, list-utf8: ${#NAMES[@]}"
cdb=$E2E_DIR/corpus.sqlite
for i in "${!NAMES[@]}"; do
	$MKHOSTILE names-utf8 "c$i.h5" "$i" || bad "mkhostile names-utf8 c$i.h5"
	run $S ingest --db "$cdb" --commit "$(printf 'c0de%04x' "$i")" --branch="${NAMES[i]}" \
		--tag="${NAMES[i]}" "c$i.h5"
	[ "$rc" -eq 0 ] && ok || bad "ingest the corpus name $i: exit $rc: $err"
done
nc=${#NAMES[@]}
equals "one run per name" "$(sql "$cdb" 'select count(*) from runs')" "$nc"
# a name of no UTF-8, in a file or an option, is refused on one line that
# says so, and nothing is stored (docs/text.md)
mapfile -d '' ALL < <($MKHOSTILE list)
$MKHOSTILE names c-all.h5 || bad "mkhostile names c-all.h5"
nbad=0 j=0
for i in "${!ALL[@]}"; do
	# (list-utf8 is list without those names, in the same order)
	if [ "$j" -lt "$nc" ] && [ "${ALL[i]}" = "${NAMES[j]}" ]; then
		j=$((j + 1))
		continue
	fi
	nbad=$((nbad + 1))
	for opt in --branch --tag --label; do
		run $S ingest --db "$cdb" "$opt=${ALL[i]}" c0.h5
		equals "ingest $opt=(no UTF-8) $i: exit" "$rc" 2
		contains "ingest $opt=(no UTF-8) $i" "$err" "not valid UTF-8"
	done
done
[ "$nbad" -ge 1 ] && ok || bad "the corpus has no name of no UTF-8"
run $S ingest --db "$cdb" c-all.h5
equals "ingest of the whole corpus: exit" "$rc" 2
contains "ingest of the whole corpus" "$err" "is not valid UTF-8"
equals "ingest of the whole corpus: one line" "$(printf '%s\n' "$err" | wc -l)" 1
equals "nothing stored" "$(sql "$cdb" 'select count(*) from runs')" "$nc"
# the store may hold anything: hostile commits and times too
sqlite3 "$cdb" "update runs set commit_sha = '<img src=x>;=1+1@a' where id = 3;
	update runs set recorded_at = '<img src=x' where id = 2" || bad "sqlite3 update"
cd_ctl() { LC_ALL=C grep -c "$(printf '[\001-\011\013-\037\177]\\|\302[\200-\237]')" "$1"; }
# surface DESC FORMAT CMD...: the command's output in FORMAT passes its check
surface() {
	local desc=$1 fmt=$2
	shift 2
	run "$@"
	case "$rc" in 0 | 1 | 3) ok ;; *) bad "$desc: exit $rc: $err" ;; esac
	printf '%s\n' "$out" >surface.out
	case "$fmt" in
	table) equals "$desc: control characters" "$(cd_ctl surface.out)" 0 ;;
	csv | markdown)
		$MKHOSTILE check "$fmt" surface.out 2>check.err && ok ||
			bad "$desc: $(head -3 check.err)"
		;;
	json) jq empty surface.out 2>check.err && ok || bad "$desc: invalid JSON: $(<check.err)" ;;
	junit)
		if command -v xmllint >/dev/null; then
			xmllint --noout surface.out 2>check.err && ok || bad "$desc: $(head -3 check.err)"
		fi
		;;
	esac
	# no line a CI runner would run as a workflow command, in any format
	$MKHOSTILE check ci surface.out 2>check.err && ok || bad "$desc: $(head -3 check.err)"
	[ -e PWNED ] && bad "$desc: a name ran" || ok
}
for fmt in table markdown csv json; do
	surface "show $fmt" $fmt $S show --db "$cdb" 1 --format $fmt
	surface "history $fmt" $fmt $S history --db "$cdb" --match . --format $fmt --limit 50
	surface "changes $fmt" $fmt $S changes --db "$cdb" --format $fmt
done
for fmt in table markdown csv json junit; do
	surface "diff $fmt" $fmt $S diff --db "$cdb" 1 "$nc" --format $fmt
	surface "check $fmt" $fmt $S check --db "$cdb" 2 3 --format $fmt --metric avg
	surface "check --stat $fmt" $fmt $S check --db "$cdb" 2 3 --stat --format $fmt
done
for fmt in table json csv; do
	surface "runs $fmt" $fmt $S runs --db "$cdb" --format $fmt
done
surface "meta table" table $S meta --db "$cdb" 1 "$nc"
surface "meta json" json $S meta --db "$cdb" 1 "$nc" --format json
surface "ingest json" json $S ingest --db "$cdb" --format json c0.h5
# every name as a selector and a filter: found, or refused on one line
for i in "${!NAMES[@]}"; do
	run $S runs --db "$cdb" --branch="${NAMES[i]}" --format json
	equals "runs --branch name $i" "$(printf '%s' "$out" | jq -c '[.[].id]')" "[$((i + 1))]"
	run $S show --db "$cdb" "label:${NAMES[i]}" --format json
	equals "show label:name $i" "$(printf '%s' "$out" | jq -r .run.id)" "$((i + 1))"
done
# the report: no element of data (the browser's view of such a page is
# tested in e2e_report.sh)
expect 0 "report" $S report --db "$cdb" 2 3 -o corpus.html
equals "report: one script element" "$(grep -c '<script' corpus.html)" 1
equals "report: no img element" "$(grep -c '<img' corpus.html)" 0
equals "report: no infinite or NaN coordinate" "$(grep -Ec '="-?(inf|nan)"' corpus.html)" 0
# completion: every stored name a quoted word, nothing run
$S completion bash >completion.bash
comp_names() {
	bash -c '. ./completion.bash
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_scopedb; printf "%s\0" "${COMPREPLY[@]}"' _ "$S" "$@"
}
for opt in --branch --label --tag; do
	mapfile -d '' got < <(comp_names runs --db "$cdb" "$opt" '')
	equals "completion $opt: every name" "${#got[@]}" "$nc"
	back=$(for r in "${got[@]}"; do eval "set -- $r" && printf '%s\0' "$1"; done | sort -z | od -c)
	equals "completion $opt: the names back" "$back" "$(printf '%s\0' "${NAMES[@]}" | sort -z | od -c)"
	[ -e PWNED ] && bad "completion $opt: a name ran" || ok
done

fi

# --- a file swapped while it is ingested ------------------------------------
# Two contents (labels swap-a and swap-b); a background loop keeps replacing
# x.h5 with one or the other (cp to a temporary, mv over).  Whatever each
# ingest reads, a stored run must hold the hash of its own content.
if tcase swap; then
$MKPROFILE --ranks 4 --regions a,b,c,d --calls 20000 --label swap-a --seed 1 A.h5 >/dev/null
$MKPROFILE --ranks 4 --regions a,b,c,d --calls 20000 --label swap-b --seed 2 B.h5 >/dev/null
cp A.h5 x.h5
(
	while [ ! -e stop ]; do
		cp A.h5 t1.h5 && mv -f t1.h5 x.h5 && sleep 0.0$((RANDOM % 8))
		cp B.h5 t2.h5 && mv -f t2.h5 x.h5 && sleep 0.0$((RANDOM % 8))
	done
) &
swapper=$!
changed=0
for i in $(seq 1 30); do
	rm -f swap.sqlite
	run $S ingest --db swap.sqlite --commit abc1234 x.h5
	case "$rc:$err" in
	0:*) ;;
	2:*"the file changed while it was read; nothing stored") changed=$((changed + 1)) ;;
	*) bad "swap $i: exit $rc: $err" ;;
	esac
	if [ "$rc" -eq 0 ]; then
		row=$(sql swap.sqlite 'select label, sha256 from runs')
		case "$row" in
		swap-a\|*) want=$(sha256sum A.h5 | cut -d' ' -f1) ;;
		swap-b\|*) want=$(sha256sum B.h5 | cut -d' ' -f1) ;;
		*) want="?" ;;
		esac
		equals "swap $i: stored hash is that of the stored content" "${row#*|}" "$want"
	else
		# a refused first file leaves no store at all (issue 12)
		if [ -e swap.sqlite ]; then
			equals "swap $i: nothing stored" "$(sql swap.sqlite 'select count(*) from runs')" 0
		else
			ok
		fi
	fi
done
touch stop
wait "$swapper"
note "swap loop: $changed of 30 ingests refused as changed"
fi

# JSON profiles (issue 25): every hostile case of hostile_json.h, through
# ingest and show, exits 2 with one line naming the file and the cause,
# and stores nothing
if tcase json; then
jdb=$E2E_DIR/json.sqlite
$MKPROFILE --ranks 2 --regions a,b --calls 5 ok.json >/dev/null || bad "mkprofile ok.json"
$S ingest --db "$jdb" --commit abc1234 --quiet ok.json || bad "ingest ok.json"
while read -r kind gz expect; do
	f=$kind.json
	[ "$gz" = 1 ] && f=$kind.json.gz
	$MKHOSTILE "json-$kind" "$f" || bad "mkhostile json-$kind"
	expect_error "json $kind" "cannot read '$f': .*|'$f': " $S ingest --db "$jdb" --commit abc1234 "$f"
	contains "json $kind message" "$err" "$expect"
	no_secret "json $kind" "$out$err"
	expect_error "json $kind (show)" "'$f'" $S show "$f"
	rm -f "$f"
done < <($MKHOSTILE --json-cases)
equals "json: nothing stored but ok.json" "$(sql "$jdb" 'select count(*) from runs')" 1

fi

finish
