#!/usr/bin/env bash
# The generated bash completion script ("scopedb completion bash") and man
# pages ("scopedb help --man [CMD]"): the script is valid bash and, run as
# bash runs it, completes every command, every long option that "scopedb
# help CMD" lists, and the choices of --format and --metric; every man page
# names each of its command's options and, when groff is installed,
# formats without a warning.  Stored names (a pull request's branch, a
# profile's label, tags) are completed as plain words in bash and zsh:
# never expanded, whatever they hold ($(...), backquotes, ';', glob
# characters, line breaks), inserted quoted so that the command line gives
# the name back byte for byte (issue 29).
. "$(dirname "$0")/e2e-lib.sh"
: "${MKPROFILE:?}"
S=$SCOPEDB

# The commands of "scopedb --help" and the long options of "help CMD".
commands=$("$S" --help | sed -n 's/^   \([a-z]*\) .*/\1/p')
options() { "$S" help "$1" | grep -oE '^    (-[a-z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+'; }
[ "$(echo "$commands" | wc -l)" -eq 23 ] && ok || bad "command list: $commands"

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
contains "top-level completion has completion" "$got" "completion"
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
		contains "man page of $c has $o" "$(<"man-$c.1")" "\\fB${o//-/\\-}\\fR"
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
	contains "scopedb(1) lists $c" "$(<man-scopedb.1)" "\\fBscopedb\\-$c\\fR(1)"
done
contains "check(1): exit status 3" "$(<man-check.1)" "3 when a statistical check is"
# an indented list of the description keeps its lines (no-fill)
equals "diff(1): the selector list in no-fill" \
	"$(grep -B1 -m1 '^    42  latest' man-diff.1 | head -1)" ".nf"
if command -v groff >/dev/null; then
	for f in man-*.1; do
		w=$(groff -man -Tutf8 -ww -z "$f" 2>&1)
		equals "groff warnings for $f" "$w" ""
	done
fi

fi

if tcase errors; then
expect_error "help --man of no command" "'nosuch' is not a scopedb command" "$S" help --man nosuch
expect_error "help of a mistyped command" "^scopedb: 'chek' is not a scopedb command; did you mean 'check'\?$" \
	"$S" help chek
expect 2 "help --man with two commands" "$S" help --man diff check
expect 2 "completion without a shell" "$S" completion
expect 2 "completion for an unknown shell" "$S" completion fish
run "$S" completion --help
equals "completion --help exit" "$rc" 0
contains "completion --help" "$out" "usage: scopedb completion bash"
fi

# --- stored names are plain words (issue 29) ------------------------------------
if tcase names; then
mkdir names
cd names || exit 1
"$MKPROFILE" --seed 1 a.h5 >/dev/null && "$MKPROFILE" --seed 2 --label '`touch PWNED`' b.h5 >/dev/null &&
	"$MKPROFILE" --seed 3 c.h5 >/dev/null || bad "mkprofile"
NL=$(printf 'new\nline')
# the branch of a pull request, as GitHub names it: a valid git branch name
GITHUB_SHA=1111111111111111111111111111111111111111 GITHUB_HEAD_REF='$(touch${IFS}PWNED)' \
	expect 0 "ingest a PR branch" "$S" ingest --db n.sqlite a.h5 --tag 'x;touch PWNED' --tag '*' \
	--tag "$(printf 'two\nlines')"
expect 0 "ingest b" "$S" ingest --db n.sqlite b.h5 --commit abcd123 --branch "$NL"
expect 0 "ingest c" "$S" ingest --db n.sqlite c.h5 --commit abcd124 --label '?' --tag '[a]' \
	--tag '$HOME' --branch main
cp ../completion.bash .
# names WORD...: COMPREPLY, one NUL-ended entry each
names() {
	bash -c '. ./completion.bash
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_scopedb; printf "%s\0" "${COMPREPLY[@]}"' _ "$S" "$@" | tr '\0' '\n' | LC_ALL=C sort
}
# quoted NAME...: printf %q of each, sorted, as the replies should be
quoted() { printf '%q\n' "$@" | LC_ALL=C sort; }
# typed REPLY: the word the shell gets from REPLY on the command line
typed() { eval "set -- $1" && printf '%s' "${1-}"; }
no_pwned() { if [ -e PWNED ]; then bad "$1: a stored name ran"; rm -f PWNED; else ok; fi; }

equals "bash: --branch" "$(names runs --db n.sqlite --branch '')" \
	"$(quoted main "$NL" '$(touch${IFS}PWNED)')"
no_pwned "bash: --branch"
equals "bash: --branch \$( (raw prefix)" "$(names runs --db n.sqlite --branch '$(')" \
	"$(quoted '$(touch${IFS}PWNED)')"
equals "bash: --branch \\\$\\( (quoted prefix)" "$(names runs --db n.sqlite --branch '\$\(')" \
	"$(quoted '$(touch${IFS}PWNED)')"
equals "bash: the inserted word is the name" \
	"$(typed "$(names runs --db n.sqlite --branch '$(')")" '$(touch${IFS}PWNED)'
equals "bash: a name with a line break" "$(typed "$(names runs --db n.sqlite --branch new)")" "$NL"
equals "bash: label:" "$(names show --db n.sqlite label : '')" "$(quoted '?' '`touch PWNED`' example)"
no_pwned "bash: label:"
equals "bash: word label:" "$(names show --db n.sqlite label:)" \
	"$(quoted 'label:?' 'label:`touch PWNED`' label:example)"
no_pwned "bash: word label:"
equals "bash: --label" "$(names runs --db n.sqlite --label '`')" "$(quoted '`touch PWNED`')"
equals "bash: --tag" "$(names runs --db n.sqlite --tag '')" \
	"$(quoted '*' 'x;touch PWNED' "$(printf 'two\nlines')" '[a]' '$HOME')"
no_pwned "bash: --tag"
equals "bash: a glob is not expanded" "$(names runs --db n.sqlite --tag '*')" "$(quoted '*')"
equals "bash: \$HOME is not expanded" "$(typed "$(names runs --db n.sqlite --tag '$H')")" '$HOME'
equals "bash: untag" "$(names untag --db n.sqlite 1 'x')" "$(quoted 'x;touch PWNED')"
equals "bash: tag:" "$(names diff --db n.sqlite tag : '[')" "$(quoted '[a]')"
# --db as the shell will read it: quoted, a blank escaped, a leading ~/
mkdir "s p" && cp n.sqlite "s p/n.sqlite"
equals "bash: --db quoted" "$(names diff --db "'s p/n.sqlite'" tag : '[')" "$(quoted '[a]')"
equals "bash: --db with an escaped blank" "$(names diff --db 's\ p/n.sqlite' tag : '[')" "$(quoted '[a]')"
equals "bash: --db ~/" "$(HOME="$PWD/s p" names diff --db '~/n.sqlite' tag : '[')" "$(quoted '[a]')"
# the other commands that take run selectors (not only files)
for c in report export push; do
	equals "bash: $c tag:" "$(names $c --db n.sqlite tag : '[')" "$(quoted '[a]')"
done
no_pwned "bash: selectors and tags"

if command -v zsh >/dev/null; then
	# one store per name, so that TAB inserts it; the line as zsh shows it
	# (typed into zsh on a pseudo-terminal: zsh_complete of e2e-lib.sh)
	mkdir zf
	"$S" completion zsh >zf/_scopedb
	B=$(basename "$S")
	GITHUB_SHA=1111111111111111111111111111111111111111 GITHUB_HEAD_REF='$(touch${IFS}PWNED)' \
		"$S" ingest -q --db z1.sqlite a.h5 --tag 'x;touch PWNED' >/dev/null
	"$S" ingest -q --db z2.sqlite b.h5 --commit abcd123 >/dev/null
	zsh_complete "$E2E_DIR/names/zf" "$(dirname "$S")" \
		"$B runs --db z1.sqlite --branch " PWNED "$B show --db z2.sqlite label:" PWNED \
		"$B runs --db z1.sqlite --tag " PWNED "$B runs --db n.sqlite --branch n" line
	contains "zsh: --branch" "$(zsh_line 1)" '--branch \$\(touch\$\{IFS\}PWNED\)'
	contains "zsh: label:" "$(zsh_line 2)" 'label:\`touch\ PWNED\`'
	contains "zsh: --tag" "$(zsh_line 3)" '--tag x\;touch\ PWNED'
	contains "zsh: a line break" "$(zsh_line 4)" "--branch new\$'\\n'line"
	no_pwned "zsh"
fi
cd "$E2E_DIR" || exit 1
fi
finish
