#!/usr/bin/env bash
# Rewrites the help shown in the documentation from the binary: in each
# page (default: README.md and every docs/**/*.md), the lines after an
# example line "$ scopedb help CMD" inside a code block, up to the end of
# the block, become what "scopedb help CMD" prints.  Run it after changing
# a command's options or usage texts; tests/e2e_readme.sh compares those
# blocks with the binary, so a page that was not updated fails there.
# Usage: bash tools/docs-help.sh path/to/scopedb [PAGE...]
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: bash tools/docs-help.sh path/to/scopedb [PAGE...]" >&2; exit 2; }
scopedb=$(realpath "$1")
shift
cd "$(dirname "$0")/.."
pages=("$@")
[ ${#pages[@]} -gt 0 ] || mapfile -t pages < <(echo README.md; find docs -name '*.md' | LC_ALL=C sort)
for page in "${pages[@]}"; do
	awk -v bin="$scopedb" '
	/^[ \t]*```/ && !skip { fence = !fence; print; next }
	skip && /^[ \t]*```/ { skip = 0; fence = 0; print; next }
	skip { next }
	fence && /^\$ scopedb help [a-z]+$/ {
		print
		cmd = bin " help " $4 " 2>&1"
		while ((cmd | getline line) > 0)
			print line
		if (close(cmd) != 0) { print "docs-help: " cmd " failed" > "/dev/stderr"; exit 1 }
		skip = 1
		next
	}
	{ print }' "$page" >"$page.new"
	if cmp -s "$page" "$page.new"; then rm -f "$page.new"; else
		mv "$page.new" "$page"
		echo "updated $page"
	fi
done
