#!/usr/bin/env bash
# The README's examples stay true: every example marked with an HTML
# comment `<!-- readme-test: GROUP -->` (invisible on GitHub) right before
# its code block is run, and its shown output compared with the real one.
#
# The block (fenced, possibly indented as in a list item, or indented by
# four spaces) holds `$ COMMAND` lines, each followed by the output it
# shows: stdout and stderr of the command run on a pseudo-terminal, as a
# user sees them, with NO_COLOR set (blank lines before the next `$` and
# at the end are not compared).  The comment may span several lines: a
# line `$ COMMAND` in it is a command whose output is the block itself
# (for a block that shows output only, as the Quick start's), any other
# line a hidden set-up command run first (its output is not compared, but
# it must succeed).  Examples of one GROUP share one directory (holding
# the bundled examples/ profiles and a git work tree with one commit, so
# that ingest finds a commit as in a clone) and its store
# ./scopedb.sqlite, in README order.  The commands run in bash with
# `scopedb` the built binary and $MKPROFILE the profile generator, so the
# set-up of an example can generate the profiles it shows.  The Quick
# start's commands must be those of examples/quickstart.sh.  Only what
# must vary is normalised: today's timestamps.  Last, a copy of the README
# with one shown number changed must fail, so this test can fail.
src=$(cd "$(dirname "$0")/.." && pwd)
. "$src/tests/e2e-lib.sh"
README=${README:-$src/README.md}
mkdir -p "$E2E_DIR/bin"
ln -s "$SCOPEDB" "$E2E_DIR/bin/scopedb"
export PATH=$E2E_DIR/bin:$PATH LC_ALL=C.UTF-8
unset FORCE_COLOR CLICOLOR_FORCE

# readme_split FILE OUT: writes each marked example of FILE to OUT/NNN
# (line 1 the group, then the transcript: `#setup CMD`, `$ CMD` and output
# lines).
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

# readme_status BLOCK LINE STATUS: whether the exit status of the example
# command LINE ("$ ...") of BLOCK fits what the README shows of it: 0,
# unless its shown output has an error line ("scopedb: ...") or it is a
# check (exit 1 for a regression); says why not on stderr.
readme_status() {
	local shown
	shown=$(awk -v cmd="$2" '$0 == cmd { on = 1; next } /^\$ / { on = 0 } on' "$1")
	case $3 in
	0) return 0 ;;
	1 | 2) case "$2$shown" in *'scopedb: '* | '$ scopedb check '*) return 0 ;; esac ;;
	esac
	echo "README example $(basename "$1"): '$2' exited $3, but the README shows no error" >&2
	return 1
}

# readme_check FILE: runs FILE's marked examples; prints a diff for each
# that differs or exits as the README does not show; returns 1 when any
# does or is broken (a count would wrap at 256).
readme_check() {
	local file=$1 dir=$E2E_DIR/check.$RANDOM blocks fails=0 f group gdir line cmd
	mkdir -p "$dir/blocks"
	readme_split "$file" "$dir/blocks"
	blocks=$(ls "$dir/blocks" | wc -l)
	echo "$file: $blocks marked examples" >&2
	for f in "$dir/blocks"/*; do
		group=$(head -1 "$f")
		gdir=$dir/g-$group
		if [ ! -d "$gdir" ]; then
			mkdir -p "$gdir/examples"
			cp "$src/examples/baseline.h5" "$src/examples/candidate.h5" "$gdir/examples/" ||
				return 99
			(cd "$gdir" && git init -q && GIT_AUTHOR_DATE=2026-11-30T00:00:00Z \
				GIT_COMMITTER_DATE=2026-11-30T00:00:00Z git -c user.name=t \
				-c user.email=t@example.org commit -q --allow-empty -m readme) || return 99
		fi
		: >"$f.real"
		while IFS= read -r line; do
			case $line in
			'#error '*)
				echo "README example $(basename "$f") ($group): ${line#\#error }" >&2
				fails=$((fails + 1))
				;;
			'#setup '*)
				cmd=${line#\#setup }
				if [ "$group" = quickstart ] && ! grep -qxF -- "\$S ${cmd#scopedb }" \
					"$src/examples/quickstart.sh"; then
					echo "README quick start command not in examples/quickstart.sh: $cmd" >&2
					fails=$((fails + 1))
				fi
				(cd "$gdir" && bash -c "$cmd") >"$f.setup" 2>&1 || {
					echo "README example $(basename "$f") ($group): set-up '$cmd' failed:" >&2
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
				readme_status "$f" "$line" "$?" || fails=$((fails + 1))
				;;
			esac
		done < <(tail -n +2 "$f")
		grep -Ev '^#(setup|error) ' <(tail -n +2 "$f") | tidy >"$f.want"
		tidy <"$f.real" >"$f.got"
		if ! diff -u --label "README ($group, shown)" --label "real output" \
			"$f.want" "$f.got" >&2; then
			fails=$((fails + 1))
		fi
	done
	[ "$blocks" -gt 0 ] || fails=$((fails + 1))
	return $((fails > 0))
}

readme_check "$README"
equals "README examples that differ from the real output" "$?" 0

# Every group the brief names is covered.
for g in quickstart ingest runs diff check show history help; do
	if grep -q "<!-- readme-test: $g\b" "$README"; then ok; else bad "no README example of group $g"; fi
done

# The test can fail: one shown number of the Quick start changed.
sed 's/^solve      70\.8 ms    80\.2 ms  +9\.40 ms     +13\.3%$/solve      70.8 ms    80.2 ms  +9.40 ms     +13.4%/' \
	"$README" >"$E2E_DIR/README.changed"
if cmp -s "$README" "$E2E_DIR/README.changed"; then
	bad "the Quick start's solve row was not found to change"
else
	readme_check "$E2E_DIR/README.changed" 2>"$E2E_DIR/changed.err"
	rc=$?
	equals "a changed README example is one failure" "$rc" 1
	contains "the diff shows the changed line" "$(cat "$E2E_DIR/changed.err")" "-solve      70.8 ms    80.2 ms  +9.40 ms     +13.4%"
fi

finish
