# Shared helpers for the end-to-end tests (sourced, not run by ctest).
# Each e2e test runs the built binary ($SCOPEDB) in a private directory and
# counts its checks, grouped in named cases, and reports them in TAP
# (docs/testing.md):
#
#     if tcase selectors; then      # a case: its checks up to the fi
#         expect 0 "diff ids" $S diff 1 2
#     fi
#
# prints "ok 3 - selectors" (or "not ok 3 - selectors", the failed checks on
# stderr), and the script ends with the plan "1..N" and "# N passed, N
# failed" (finish).  The arguments of the script, or E2E_CASES, are glob
# patterns choosing the cases to run ("tests/e2e_diff.sh 'pin*'",
# "E2E_CASES=pins ctest -R e2e_diff"); the others print "ok N - NAME #
# SKIP".  What a script does outside its cases, and every case named
# setup*, runs whatever is chosen: it makes what later cases use (a
# case may use what a setup case or the code before it made, never what
# another case did).  --list prints the names of the cases.
set -u
e2e_script=${0##*/}
# (a script whose cases are not literal names defines its own before
# sourcing this file: e2e_readme.sh, one case per page)
declare -F e2e_list_cases >/dev/null || e2e_list_cases() {
	grep -oE '^[[:space:]]*if tcase [A-Za-z0-9_.-]+' "$0" | sed -E 's/.* //'
}
e2e_sel=()
for e2e_arg in "$@"; do
	case $e2e_arg in
	--list)
		e2e_list_cases
		exit 0
		;;
	-*)
		echo "$e2e_script: unknown option '$e2e_arg' (usage: $e2e_script [--list] [CASE...])" >&2
		exit 2
		;;
	*) e2e_sel+=("$e2e_arg") ;;
	esac
done
# shellcheck disable=SC2206
[ ${#e2e_sel[@]} -eq 0 ] && [ -n "${E2E_CASES:-}" ] && e2e_sel=(${E2E_CASES})
# Every pattern must name a case: a typo runs nothing silently otherwise.
for e2e_arg in "${e2e_sel[@]}"; do
	e2e_found=0
	while IFS= read -r e2e_name; do
		# shellcheck disable=SC2053
		[[ $e2e_name == $e2e_arg ]] && e2e_found=1
	done < <(e2e_list_cases)
	if [ "$e2e_found" = 0 ]; then
		echo "$e2e_script: no case matches '$e2e_arg'; the cases are:" $(e2e_list_cases) >&2
		exit 2
	fi
done
: "${SCOPEDB:?set SCOPEDB to the scopedb binary}"
E2E_DIR=$(mktemp -d "${TMPDIR:-/tmp}/scopedb-e2e-XXXXXX")
# The EXIT traps of these scripts act only in the script's own shell: a
# subshell of it (a background command still expanding its arguments)
# killed by a signal runs the trap too, which would remove the directory
# (or stop the server) under the cases still to run.
trap '[ "$BASHPID" != "$$" ] || rm -rf "$E2E_DIR"' EXIT
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
e2e_ncases=0   # TAP test points so far
e2e_case=      # the case running, if any
e2e_case_fail0=0 e2e_case_pass0=0 e2e_outside_fail=0 e2e_outside_pass=0 e2e_case_t0=0

ok() { e2e_pass=$((e2e_pass + 1)); }
bad() { e2e_fail=$((e2e_fail + 1)); echo "FAIL: ${e2e_case:+[$e2e_case] }$*" >&2; }
# note TEXT: a line for people reading the output (a TAP comment).
note() { echo "# $*"; }
# A command bash cannot find fails the test: a helper's name mistyped in
# a check ("has" for "contains") printed "command not found" and the
# check it stood for passed unseen.  Bash runs this handler in a
# subshell of its own, so it writes the name down (its FAIL line names the
# case) and finish() counts it.
command_not_found_handle() {
	printf '%s\n' "$1" >>"$E2E_DIR/.command-not-found"
	echo "FAIL: ${e2e_case:+[$e2e_case] }command not found: $1" >&2
	return 127
}

# e2e_case_end: the TAP line of the case that ran since tcase.
e2e_case_end() {
	if [ -n "$e2e_case" ]; then
		e2e_ncases=$((e2e_ncases + 1))
		if [ "$e2e_fail" -eq "$e2e_case_fail0" ]; then
			echo "ok $e2e_ncases - $e2e_case"
		else
			echo "not ok $e2e_ncases - $e2e_case ($((e2e_fail - e2e_case_fail0)) failed)"
		fi
		# E2E_TIME=1: how long it took (what to make faster)
		[ -z "${E2E_TIME:-}" ] ||
			awk -v a="$e2e_case_t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "# %.2f s\n", b - a }'
	else
		e2e_outside_fail=$((e2e_outside_fail + e2e_fail - e2e_case_fail0))
		e2e_outside_pass=$((e2e_outside_pass + e2e_pass - e2e_case_pass0))
	fi
	e2e_case=
	e2e_case_fail0=$e2e_fail e2e_case_pass0=$e2e_pass
}

# tcase NAME: ends the case before and starts NAME when it is chosen (or
# is a setup case); returns 1, after its "# SKIP" line, when it is not.
# A case the script names in e2e_plain_only (a list) is skipped the same
# way under the sanitizers (SCOPEDB_SANITIZE=ON): what it checks does not
# depend on how scopedb was built, and the plain build runs it.
tcase() {
	local p run=0
	e2e_case_end
	if [ ${#e2e_sel[@]} -eq 0 ]; then
		run=1
	else
		case $1 in setup*) run=1 ;; esac
		for p in "${e2e_sel[@]}"; do
			# shellcheck disable=SC2053
			[[ $1 == $p ]] && run=1
		done
	fi
	if [ "$run" = 0 ]; then
		e2e_ncases=$((e2e_ncases + 1))
		echo "ok $e2e_ncases - $1 # SKIP not chosen"
		return 1
	fi
	if [ "${SCOPEDB_SANITIZE:-OFF}" = ON ] && [[ " ${e2e_plain_only:-} " == *" $1 "* ]]; then
		e2e_ncases=$((e2e_ncases + 1))
		echo "ok $e2e_ncases - $1 # SKIP the plain build runs it"
		return 1
	fi
	e2e_case=$1
	e2e_case_t0=$EPOCHREALTIME
	return 0
}

# run CMD...: runs it, leaving $out, $err and $rc.
run() {
	out=$("$@" 2>"$E2E_DIR/.stderr")
	rc=$?
	err=$(<"$E2E_DIR/.stderr")
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

# not_contains DESC HAYSTACK NEEDLE
not_contains() {
	case "$2" in *"$3"*) bad "$1: '$3' in output: $2" ;; *) ok ;; esac
}

# equals DESC GOT WANT
equals() {
	if [ "$2" = "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi
}

# metrics: the metrics --metric takes, in their order (from the binary, so
# that a loop over them covers a new one).
metrics() {
	"$SCOPEDB" diff a b --metric '?' 2>&1 | sed -n "s/.*choose from \([^;]*\).*/\1/p" | tr -d ,
}

# sql DB QUERY: one value from the store (sqlite3 CLI).
sql() { sqlite3 "$1" "$2"; }

# finish: the last case's line, the plan, the counts; exits 0 when no
# check failed (checks outside any case too: a failed one there is a
# test point of its own, "not ok N - outside the cases"; a script without
# cases is one test point).
finish() {
	[ ! -s "$E2E_DIR/.command-not-found" ] ||
		bad "commands not found: $(sort -u "$E2E_DIR/.command-not-found" | tr '\n' ' ')"
	e2e_case_end
	if [ "$e2e_outside_fail" -gt 0 ]; then
		e2e_ncases=$((e2e_ncases + 1))
		echo "not ok $e2e_ncases - outside the cases ($e2e_outside_fail failed)"
	elif [ "$e2e_ncases" -eq 0 ] && [ "$e2e_outside_pass" -gt 0 ]; then
		e2e_ncases=1
		echo "ok 1 - $e2e_script"
	fi
	echo "1..$e2e_ncases"
	echo "# $e2e_pass passed, $e2e_fail failed"
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
		note "wrote $expected"
	fi
	if diff -u "$expected" "$golden_log.norm" >"$E2E_DIR/golden.diff"; then
		ok
	else
		head -200 "$E2E_DIR/golden.diff" >&2
		bad "output differs from $expected"
	fi
}
