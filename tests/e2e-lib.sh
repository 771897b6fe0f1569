# Shared helpers for the end-to-end tests (sourced, not run by ctest).
# Each e2e test runs the built binary ($SCOPEDB) in a private directory and
# counts its checks; it ends with a "N passed, N failed" line.
set -u
: "${SCOPEDB:?set SCOPEDB to the scopedb binary}"
E2E_DIR=$(mktemp -d "${TMPDIR:-/tmp}/scopedb-e2e-XXXXXX")
trap 'rm -rf "$E2E_DIR"' EXIT
cd "$E2E_DIR" || exit 1
# No CI's variables, and no git repository above the private directory
# (ingest reads the commit from the work tree it runs in).
unset SCOPEDB_DB GITHUB_SHA GITHUB_REF_NAME GITHUB_HEAD_REF CI_COMMIT_SHA CI_COMMIT_REF_NAME \
	CI_MERGE_REQUEST_SOURCE_BRANCH_NAME BUILDKITE_COMMIT BUILDKITE_BRANCH GIT_COMMIT GIT_BRANCH \
	GIT_DIR GIT_WORK_TREE
export GIT_CEILING_DIRECTORIES=${E2E_DIR%/*}
export NO_COLOR=1
e2e_pass=0
e2e_fail=0

ok() { e2e_pass=$((e2e_pass + 1)); }
bad() { e2e_fail=$((e2e_fail + 1)); echo "FAIL: $*" >&2; }

# run CMD...: runs it, leaving $out, $err and $rc.
run() {
	out=$("$@" 2>"$E2E_DIR/.stderr")
	rc=$?
	err=$(cat "$E2E_DIR/.stderr")
}

# on_tty CMD...: runs CMD with its standard output on a pseudo-terminal
# (script(1)), leaving $out (carriage returns dropped; stderr mixed in)
# and $rc.
on_tty() {
	script -qec "$(printf '%q ' "$@")" /dev/null </dev/null >"$E2E_DIR/.tty" 2>&1
	rc=$?
	out=$(tr -d '\r' <"$E2E_DIR/.tty")
}

# zsh_complete FPATH BINDIR LINE WANT...: each LINE typed with a TAB into
# one interactive zsh (tests/support/zcomplete.zsh); zsh_line N: what the
# Nth line became on the terminal.
E2E_SUPPORT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/support
zsh_complete() { zsh_out=$(zsh -f "$E2E_SUPPORT/zcomplete.zsh" "$@" 2>&1 | tr -d '\r'); }
zsh_line() { printf '%s\n' "$zsh_out" | awk -v n="$1" '/^=====$/ { k++; next } k == n - 1'; }

# expect RC DESC CMD...: the command exits with RC.
expect() {
	local want=$1 desc=$2
	shift 2
	run "$@"
	if [ "$rc" -eq "$want" ]; then ok; else bad "$desc: exit $rc, expected $want (stderr: $err)"; fi
}

# expect_error DESC PATTERN CMD...: exit 2 with exactly one stderr line
# that starts with "scopedb: " and matches the grep -E PATTERN.
expect_error() {
	local desc=$1 pat=$2
	shift 2
	run "$@"
	if [ "$rc" -ne 2 ]; then bad "$desc: exit $rc, expected 2 (stderr: $err)"; return; fi
	if [ "$(printf '%s\n' "$err" | grep -c .)" -ne 1 ]; then
		bad "$desc: expected one stderr line, got: $err"
		return
	fi
	case "$err" in scopedb:\ *) ;; *) bad "$desc: message lacks 'scopedb: ': $err"; return ;; esac
	if printf '%s' "$err" | grep -Eq -- "$pat"; then ok; else bad "$desc: '$err' !~ /$pat/"; fi
}

# expect_err RC DESC MESSAGE CMD...: exit RC and exactly MESSAGE on stderr.
expect_err() {
	local want=$1 desc=$2 msg=$3
	shift 3
	run "$@"
	[ "$rc" -eq "$want" ] && ok || bad "$desc: exit $rc, expected $want (stderr: $err)"
	equals "$desc: stderr" "$err" "$msg"
}

# contains DESC HAYSTACK NEEDLE
contains() {
	case "$2" in *"$3"*) ok ;; *) bad "$1: '$3' not in output: $2" ;; esac
}

# equals DESC GOT WANT
equals() {
	if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi
}

# sql DB QUERY: one value from the store (sqlite3 CLI).
sql() { sqlite3 "$1" "$2"; }

finish() {
	echo "$e2e_pass passed, $e2e_fail failed"
	[ "$e2e_fail" -eq 0 ]
	exit $?
}

# --- golden outputs (e2e_golden.sh, e2e_options.sh) --------------------------
# golden_init NAME [STDERR_LINES]: record into $E2E_DIR/NAME; g CMD... then
# appends the command line, its stdout, its stderr (all of it, or a line
# count and the first STDERR_LINES lines) and its exit status.
golden_init() {
	golden_log=$E2E_DIR/$1
	golden_stderr_lines=${2:-}
	: >"$golden_log"
}

g() {
	local rc
	{
		printf '$ %s\n' "$*"
		"$@" 2>"$E2E_DIR/.err"
		rc=$?
		if [ -s "$E2E_DIR/.err" ] && [ -z "$golden_stderr_lines" ]; then
			echo "[stderr]"
			cat "$E2E_DIR/.err"
		elif [ -s "$E2E_DIR/.err" ]; then
			echo "[stderr, $(wc -l <"$E2E_DIR/.err") lines]"
			head -"$golden_stderr_lines" "$E2E_DIR/.err"
		fi
		echo "[exit $rc]"
	} >>"$golden_log"
}

# golden_check EXPECTED: compare the recording with the file EXPECTED, after
# masking what varies between runs: today's timestamps (ingest and pin
# times), the temporary directory, the binary's path, SHA-256 digests
# (libhdf5 stamps the files mkprofile writes) and store sizes.  With
# GOLDEN_UPDATE=1 the recording replaces EXPECTED first (review its diff
# before committing it).
golden_check() {
	local expected=$1 today
	today=$(date -u +%Y-%m-%d)
	sed -e "s/${today}T[0-9:]*Z/<now>/g" -e "s|$E2E_DIR|<dir>|g" -e "s|$SCOPEDB|scopedb|g" \
		-e 's/[0-9a-f]\{64\}/<sha256>/g' -e 's/[0-9.]* KiB/<size>/g' \
		"$golden_log" >"$golden_log.norm"
	if [ "${GOLDEN_UPDATE:-}" = 1 ]; then
		cp "$golden_log.norm" "$expected"
		echo "wrote $expected"
	fi
	if diff -u "$expected" "$golden_log.norm" >"$E2E_DIR/golden.diff"; then
		ok
	else
		head -200 "$E2E_DIR/golden.diff" >&2
		bad "output differs from $expected"
	fi
}
