#!/usr/bin/env bash
# The examples of README.md and of every page under docs/ stay true: every
# example marked with an HTML comment `<!-- readme-test: GROUP -->`
# (invisible on GitHub) right before its code block is run, and its shown
# output compared with the real one.  Each page is a case of its own
# (tests/e2e_readme.sh docs/commands/diff.md runs one page).
#
# The block (fenced, possibly indented as in a list item, or indented by
# four spaces) holds `$ COMMAND` lines, each followed by the output it
# shows: stdout and stderr of the command run on a pseudo-terminal, as a
# user sees them, with NO_COLOR set (blank lines before the next `$` and
# at the end are not compared).  The comment may span several lines: a
# line `$ COMMAND` in it is a command whose output is the block itself
# (for a block that shows output only, as the Quick start's), any other
# line a hidden set-up command run first (its output is not compared, but
# it must succeed).  Examples of one GROUP of one page share one
# directory (holding the bundled examples/ profiles and a git work tree
# with one commit, so that ingest finds a commit as in a clone) and its
# store ./scopedb.sqlite, in the page's order.  The commands run in bash
# with `scopedb` the built binary and $MKPROFILE the profile generator, so
# the set-up of an example can generate the profiles it shows.  The Quick
# start's commands must be those of examples/quickstart.sh.  Only what
# must vary is normalised: today's timestamps.  A code block holding
# `$ scopedb` lines must be marked: with a GROUP, or as
# `<!-- readme-test: none REASON -->` when it cannot run here (a server, a
# sanitizer's report); the REASON says where else it is tested.
#
# Besides the pages: every command's synopsis and options shown in docs/
# are its `scopedb help CMD`, run and compared like any example, and each
# command has one (help-pages); README.md shows the quick start and an
# example of ingest, diff and check (readme-groups); a copy of the README
# with one shown number changed must fail, so this test can fail
# (can-fail).
src=$(cd "$(dirname "$0")/.." && pwd)
# readme_pages: the pages with examples, README.md first
readme_pages() {
	(cd "$src" && echo README.md && find docs -name '*.md' | LC_ALL=C sort)
}
e2e_list_cases() {
	readme_pages
	printf '%s\n' help-pages readme-groups can-fail
}
. "$src/tests/e2e-lib.sh"
mkdir -p "$E2E_DIR/bin"
ln -s "$SCOPEDB" "$E2E_DIR/bin/scopedb"
export PATH=$E2E_DIR/bin:$PATH LC_ALL=C.UTF-8
unset FORCE_COLOR CLICOLOR_FORCE

# readme_split FILE OUT: writes each marked example of FILE to OUT/NNN
# (line 1 the group, then the transcript: `#setup CMD`, `$ CMD` and output
# lines), and the `$ scopedb` lines of unmarked code blocks to
# OUT/unmarked (LINE: TEXT).
readme_split() {
	awk -v out="$2" '
	function flush() { if (n) { close(f) } }
	/^[ \t]*<!-- readme-test: / && state == 0 {
		line = $0
		sub(/^[ \t]*<!-- readme-test: /, "", line)
		n++
		f = sprintf("%s/%03d", out, n)
		closed = sub(/[ \t]*-->[ \t]*$/, "", line)
		split(line, w, /[ \t]+/)
		print w[1] > f
		pending = ""
		state = closed ? 2 : 1
		next
	}
	state == 1 {	# inside a multi-line marker
		line = $0
		closed = sub(/[ \t]*-->[ \t]*$/, "", line)
		sub(/^[ \t]+/, "", line)
		if (line ~ /^\$ /)
			pending = pending line "\n"
		else if (line != "")
			print "#setup " line > f
		if (closed)
			state = 2
		next
	}
	state == 2 && /^[ \t]*$/ { next }
	state == 2 {	# the code block after the marker
		if (pending != "")
			printf "%s", pending > f
		if (match($0, /^[ \t]*```/)) {
			indent = RLENGTH - 3
			state = 3
		} else if ($0 ~ /^    /) {
			indent = 4
			state = 4
			print substr($0, 5) > f
		} else {
			print "#error no code block after the marker" > f
			state = 0
		}
		next
	}
	state == 3 {
		if ($0 ~ /^[ \t]*```[ \t]*$/) { state = 0; close(f); next }
		print substr($0, indent + 1) > f
		next
	}
	state == 4 {
		if ($0 ~ /^    / || $0 ~ /^[ \t]*$/) { print substr($0, 5) > f; next }
		state = 0
		close(f)
	}
	# an unmarked code block: its "$ scopedb" lines go to OUT/unmarked
	state == 0 && /^[ \t]*```/ { state = 5; next }
	state == 5 {
		if ($0 ~ /^[ \t]*```[ \t]*$/)
			state = 0
		else if ($0 ~ /^[ \t]*\$ scopedb /)
			print FNR ": " $0 > (out "/unmarked")
		next
	}
	state == 0 && /^    +\$ scopedb / { print FNR ": " $0 > (out "/unmarked") }
	' "$1"
}

# tidy: drop blank lines before a `$` line and at the end; mask today's
# timestamps.
tidy() {
	local today
	today=$(date -u +%Y-%m-%d)
	sed -e "s/${today}T[0-9:]*Z/<now>/g" | awk '
		/^$/ { blank++; next }
		{ if (!/^\$ / && blank) for (; blank; blank--) print ""; blank = 0; print }'
}

# readme_status BLOCK LINE STATUS PAGE: whether the exit status of the
# example command LINE ("$ ...") of BLOCK fits what PAGE shows of it: 0,
# unless its shown output has an error line ("scopedb: ...") or it is a
# check (exit 1 for a regression, 3 for an inconclusive one); says why
# not on stderr.
readme_status() {
	local shown
	shown=$(awk -v cmd="$2" '$0 == cmd { on = 1; next } /^\$ / { on = 0 } on' "$1")
	case $3 in
	0) return 0 ;;
	1 | 2) case "$2$shown" in *'scopedb: '* | '$ scopedb check '*) return 0 ;; esac ;;
	3) case $2 in '$ scopedb check '*) return 0 ;; esac ;; # INCONCLUSIVE
	esac
	echo "$4 example $(basename "$1"): '$2' exited $3, but the page shows no error" >&2
	return 1
}

# readme_check FILE [NAME]: runs FILE's marked examples; prints a diff for
# each that differs or exits as the page does not show; returns 1 when any
# does or is broken (a count would wrap at 256).  NAME names the page in
# the messages (default FILE).
readme_check() {
	local file=$1 page=${2:-$1} dir blocks fails=0 f group gdir line cmd
	local key cached snap
	# a directory of its own (check.$RANDOM once gave two pages the same
	# one: the second ran in the first's blocks and store)
	dir=$(mktemp -d "$E2E_DIR/check.XXXXXX") || return 99
	mkdir -p "$dir/blocks"
	readme_split "$file" "$dir/blocks"
	blocks=$(ls "$dir/blocks" | wc -l)
	note "$page: $blocks marked examples"
	for f in "$dir/blocks"/[0-9]*; do
		[ -e "$f" ] || continue # a page without examples
		group=$(head -1 "$f")
		# (a block marked "none REASON" shows what cannot run here)
		[ "$group" != none ] || continue
		gdir=$dir/g-$group
		cached=0 snap=
		if [ ! -d "$gdir" ]; then
			# Pages that show the same set-up (the nightly runs of runs,
			# show, meta and history) share its result: the group's
			# directory after its first set-up is kept by the set-up's
			# text and copied by the next page that has it.
			key=$(grep '^#setup ' "$f" | sha256sum | cut -c1-16)
			if [ -d "$E2E_DIR/setups/$key" ]; then
				cp -a "$E2E_DIR/setups/$key" "$gdir" || return 99
				cached=1
			else
				mkdir -p "$gdir/examples"
				cp "$src/examples/baseline.h5" "$src/examples/candidate.h5" \
					"$gdir/examples/" || return 99
				(cd "$gdir" && git init -q && GIT_AUTHOR_DATE=2026-11-30T00:00:00Z \
					GIT_COMMITTER_DATE=2026-11-30T00:00:00Z git -c user.name=t \
					-c user.email=t@example.org commit -q --allow-empty -m readme) ||
					return 99
				grep -q '^#setup ' "$f" && snap=$E2E_DIR/setups/$key
			fi
		fi
		: >"$f.real"
		while IFS= read -r line; do
			# the set-up is done: keep the directory for the next page
			if [ -n "$snap" ] && [ "${line#\#setup }" = "$line" ]; then
				mkdir -p "$E2E_DIR/setups"
				cp -a "$gdir" "$snap" || return 99
				snap=
			fi
			case $line in
			'#error '*)
				echo "$page example $(basename "$f") ($group): ${line#\#error }" >&2
				fails=$((fails + 1))
				;;
			'#setup '*)
				[ "$cached" = 0 ] || continue
				cmd=${line#\#setup }
				if [ "$group" = quickstart ] && ! grep -qxF -- "\$S ${cmd#scopedb }" \
					"$src/examples/quickstart.sh"; then
					echo "README quick start command not in examples/quickstart.sh: $cmd" >&2
					fails=$((fails + 1))
				fi
				(cd "$gdir" && bash -c "$cmd") >"$f.setup" 2>&1 || {
					echo "$page example $(basename "$f") ($group): set-up '$cmd' failed:" >&2
					cat "$f.setup" >&2
					fails=$((fails + 1))
				}
				;;
			'$ '*)
				cmd=${line#\$ }
				if [ "$group" = quickstart ] && ! grep -qxF -- "\$S ${cmd#scopedb }" \
					"$src/examples/quickstart.sh"; then
					echo "README quick start command not in examples/quickstart.sh: $cmd" >&2
					fails=$((fails + 1))
				fi
				printf '%s\n' "$line" >>"$f.real"
				# as the terminal shows it: what follows a line's last
				# carriage return (an ingest's progress line erases
				# itself with \r ESC[K)
				(cd "$gdir" && script -qec "bash -c $(printf %q "$cmd")" /dev/null \
					</dev/null | sed -e 's/\r$//' -e 's/.*\r//' -e 's/\x1b\[K//g'
				exit "${PIPESTATUS[0]}") >>"$f.real" 2>&1
				readme_status "$f" "$line" "$?" "$page" || fails=$((fails + 1))
				;;
			esac
		done < <(tail -n +2 "$f")
		grep -Ev '^#(setup|error) ' <(tail -n +2 "$f") | tidy >"$f.want"
		tidy <"$f.real" >"$f.got"
		if ! diff -u --label "$page ($group, shown)" --label "real output" \
			"$f.want" "$f.got" >&2; then
			fails=$((fails + 1))
		fi
	done
	# every example is run, or says why not
	if [ -s "$dir/blocks/unmarked" ]; then
		while IFS= read -r line; do
			echo "$page:$line: an example the tests do not run: mark it <!-- readme-test: GROUP --> (or <!-- readme-test: none REASON -->)" >&2
		done <"$dir/blocks/unmarked"
		fails=$((fails + 1))
	fi
	# (the README, the pages of the commands and the manual have examples)
	case $page in README* | docs/commands/* | docs/manual.md)
		[ "$blocks" -gt 0 ] || { echo "$page: no marked example" >&2; fails=$((fails + 1)); } ;;
	esac
	return $((fails > 0))
}

for page in $(readme_pages); do
	if tcase "$page"; then
		readme_check "$src/$page" "$page"
		equals "$page: examples that differ from the real output" "$?" 0
	fi
done

# Every command's synopsis and options in docs/ come from its declarations:
# a marked example `$ scopedb help CMD` (compared above), one per command.
if tcase help-pages; then
	for c in $(scopedb completion names command) completion; do
		if grep -rqx -- "\$ scopedb help $c" "$src/docs"; then ok; else
			bad "no page of docs/ shows 'scopedb help $c' (the synopsis and options of $c)"
		fi
	done
	# and no synopsis written by hand: a line "scopedb CMD [--option ..." in
	# a code block is one
	hand=$(grep -rnE '^ *scopedb [a-z]+ [^|]*\[--[a-z-]+[ =]' "$src/README.md" "$src/docs" || true)
	equals "synopses written by hand" "$hand" ""
fi

# README.md: the quick start and one example each of ingest, diff, check.
if tcase readme-groups; then
	for g in quickstart ingest diff check; do
		if grep -q "<!-- readme-test: $g\b" "$src/README.md"; then ok; else
			bad "README.md has no example of group $g"
		fi
	done
fi

# The test can fail: one shown number of the Quick start changed.
if tcase can-fail; then
	# (the Quick start's example alone: the rest ran as README.md)
	awk '/<!-- readme-test: quickstart/ { on = 1 } on { print } on && /^```$/ && ++fences == 2 { exit }' \
		"$src/README.md" >"$E2E_DIR/README.quickstart"
	sed 's/^solve      70\.8 ms    80\.2 ms  +9\.40 ms     +13\.3%$/solve      70.8 ms    80.2 ms  +9.40 ms     +13.4%/' \
		"$E2E_DIR/README.quickstart" >"$E2E_DIR/README.changed"
	if cmp -s "$E2E_DIR/README.quickstart" "$E2E_DIR/README.changed"; then
		bad "the Quick start's solve row was not found to change"
	else
		readme_check "$E2E_DIR/README.changed" README.changed >/dev/null 2>"$E2E_DIR/changed.err"
		rc=$?
		equals "a changed README example is one failure" "$rc" 1
		contains "the diff shows the changed line" "$(<"$E2E_DIR/changed.err")" "-solve      70.8 ms    80.2 ms  +9.40 ms     +13.4%"
	fi
fi

finish
