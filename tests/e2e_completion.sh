#!/usr/bin/env bash
# The generated bash completion script ("scopedb completion bash") and man
# pages ("scopedb help --man [CMD]"): the script is valid bash and, run as
# bash runs it, completes every command, every long option that "scopedb
# help CMD" lists, and the choices of --format and --metric; every man page
# names each of its command's options and, when groff is installed,
# formats without a warning.
. "$(dirname "$0")/e2e-lib.sh"
S=$SCOPEDB

# The commands of "scopedb --help" and the long options of "help CMD".
commands=$("$S" --help | sed -n 's/^   \([a-z]*\) .*/\1/p')
options() { "$S" help "$1" | grep -oE '^    (-[a-z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'; }
[ "$(echo "$commands" | wc -l)" -eq 21 ] && ok || bad "command list: $commands"

if tcase setup-script; then
"$S" completion bash >completion.bash
equals "completion exit" "$?" 0
if bash -n completion.bash; then ok; else bad "bash -n completion.bash"; fi

# complete WORD...: COMPREPLY for the command line "scopedb WORD..." with
# the cursor at the end of the last word.
complete_words() {
	bash -c '. ./completion.bash
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_scopedb; printf "%s\n" "${COMPREPLY[@]}"' _ scopedb "$@"
}

fi

if tcase bash; then
got=$(complete_words '')
for c in $commands; do contains "top-level completion has $c" "$got" "$c"; done
contains "top-level completion has --version" "$got" "--version"
case "$got" in *completion*) bad "hidden command offered: $got" ;; *) ok ;; esac
equals "prefix completion" "$(complete_words hi)" "history"
got=$(complete_words help '')
for c in $commands; do contains "help completes $c" "$got" "$c"; done

for c in $commands; do
	[ "$c" = help ] && continue
	got=$(complete_words "$c" --)
	for o in $(options "$c"); do
		contains "$c completes $o" "$got" "$o"
	done
	contains "$c completes --help" "$got" "--help"
	"$S" help --man "$c" >"man-$c.1"
	equals "help --man $c exit" "$?" 0
	contains "man page title of $c" "$(head -1 "man-$c.1")" ".TH SCOPEDB\\-$(echo "$c" | tr a-z A-Z) 1"
	for o in $(options "$c"); do
		contains "man page of $c has $o" "$(cat "man-$c.1")" "\\fB${o//-/\\-}\\fR"
	done
done

equals "--format values" "$(complete_words diff --format '' | tr '\n' ' ')" "table markdown csv json junit "
equals "--format= values" "$(complete_words runs --format = '' | tr '\n' ' ')" "table json csv "
equals "--format=j value" "$(complete_words ingest --format = j)" "json"
equals "--metric value" "$(complete_words history --metric p9 | tr '\n' ' ')" "p95 p99 "
equals "--sort value" "$(complete_words diff --sort p)" "pct"
equals "no option for a value" "$(complete_words diff --db '')" ""
equals "short option" "$(complete_words rm -f | tr '\n' ' ')" "-f "

fi

if tcase man; then
for c in $commands; do [ -f "man-$c.1" ] || "$S" help --man "$c" >"man-$c.1"; done
"$S" help --man >man-scopedb.1
equals "help --man exit" "$?" 0
for c in $commands; do
	contains "scopedb(1) lists $c" "$(cat man-scopedb.1)" "\\fBscopedb\\-$c\\fR(1)"
done
if command -v groff >/dev/null; then
	for f in man-*.1; do
		w=$(groff -man -Tutf8 -ww -z "$f" 2>&1)
		equals "groff warnings for $f" "$w" ""
	done
fi

fi

if tcase errors; then
expect_error "help --man of no command" "'nosuch' is not a scopedb command" "$S" help --man nosuch
expect 2 "help --man with two commands" "$S" help --man diff check
expect 2 "completion without a shell" "$S" completion
expect 2 "completion for an unknown shell" "$S" completion fish
run "$S" completion --help
equals "completion --help exit" "$rc" 0
contains "completion --help" "$out" "usage: scopedb completion bash"
fi
finish
