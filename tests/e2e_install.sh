#!/usr/bin/env bash
# End-to-end test of the installation (issue 12): "cmake --install" of the
# build tree into a temporary prefix installs the binary, one man page per
# listed command plus scopedb(1), each of which man renders without a
# warning, and the bash and zsh completion scripts, which load and complete
# commands, options and the names stored in the store (pins, tags,
# branches); "cpack -G DEB" builds a .deb holding the same files whose
# Depends name the package of every shared library the binary links.
# Needs SCOPEDB_BUILD_DIR (the build tree, set by tests/CMakeLists.txt).
. "$(dirname "$0")/e2e-lib.sh"
: "${SCOPEDB_BUILD_DIR:?set SCOPEDB_BUILD_DIR to the build tree}"
: "${MKPROFILE:?}"
P=$E2E_DIR/prefix

if tcase setup-install; then
expect 0 "cmake --install" cmake --install "$SCOPEDB_BUILD_DIR" --prefix "$P"
S=$P/bin/scopedb
[ -x "$S" ] && ok || bad "no $S"
commands=$("$S" completion names command)
equals "commands" "$(echo $commands)" \
	"changes check completion diff export help history ingest meta pin pins prune pull push report rm runs show tag unpin untag vacuum version"
want="bin/scopedb
share/bash-completion/completions/scopedb
$(for c in $commands; do echo "share/man/man1/scopedb-$c.1"; done)
share/man/man1/scopedb.1
share/zsh/site-functions/_scopedb"
equals "installed files" "$(cd "$P" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)" \
	"$(printf '%s\n' "$want" | LC_ALL=C sort)"
equals "installed binary runs" "$("$S" --version)" "$("$SCOPEDB" --version)"

fi

# --- man pages --------------------------------------------------------------------
if tcase man; then
for page in "$P"/share/man/man1/*.1; do
	name=$(basename "$page" .1)
	cmp -s "$page" <(if [ "$name" = scopedb ]; then "$S" help --man; else
		"$S" help --man "${name#scopedb-}"; fi) && ok || bad "$name.1 is not 'help --man'"
	if command -v man >/dev/null; then
		text=$(MANWIDTH=80 man -l -Tutf8 "$page" 2>"$E2E_DIR/man.err")
		equals "man -l $name: warnings" "$(<"$E2E_DIR/man.err")" ""
		contains "man -l $name: title" "$(printf '%s\n' "$text" | head -1)" \
			"$(echo "$name" | tr a-z A-Z)(1)"
		# (man -l to a pipe overstrikes bold: drop "X\b")
		contains "man -l $name: NAME" \
			"$(printf '%s\n' "$text" | sed 's/.\x08//g' | sed -n '/^NAME/{n;p}' | tr -s ' ')" "$name - "
	elif command -v groff >/dev/null; then
		equals "groff $name" "$(groff -man -Tutf8 -ww -z "$page" 2>&1)" ""
	fi
done
command -v man >/dev/null || echo "note: man not found (Debian man-db): man -l not tried" >&2

fi

# --- a store with names to complete ----------------------------------------------------
if tcase setup-names; then
export PATH=$P/bin:$PATH
"$MKPROFILE" --seed 1 --timestamp 2026-01-01T00:00:00Z a.h5 >/dev/null || exit 1
"$MKPROFILE" --seed 2 --timestamp 2026-01-02T00:00:00Z b.h5 >/dev/null || exit 1
scopedb ingest -q --commit aaaa1 --branch main --tag nightly a.h5 >/dev/null || exit 1
scopedb ingest -q --commit bbbb1 --branch feature/gpu --tag nightly --tag gpu b.h5 >/dev/null || exit 1
scopedb pin baseline 1 >/dev/null && scopedb pin best 2 >/dev/null || exit 1
equals "names pin" "$(scopedb completion names pin)" "baseline
best"
equals "names tag" "$(scopedb completion names tag)" "gpu
nightly"
equals "names branch" "$(scopedb completion names branch)" "feature/gpu
main"
expect_err 2 "names of a missing store" "scopedb: cannot open store 'none.sqlite': no such file or directory" \
	scopedb completion names pin --db none.sqlite
equals "names never create a store" "$(ls none.sqlite* 2>/dev/null)" ""

fi

# --- bash ---------------------------------------------------------------------
if tcase bash; then
# complete WORD...: COMPREPLY for "scopedb WORD..." (the cursor at the end
# of the last word; bash splits words at ':' and '=' as COMP_WORDBREAKS
# does), with the installed script.
complete_words() {
	bash -c '. "$0"
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
		_scopedb; printf "%s\n" "${COMPREPLY[@]}"' \
		"$P/share/bash-completion/completions/scopedb" scopedb "$@"
}
run bash -c '. "$0" && complete -p scopedb' "$P/share/bash-completion/completions/scopedb"
equals "bash script loads" "$out" "complete -o default -F _scopedb scopedb"
equals "bash: scopedb che" "$(complete_words che)" "check"
equals "bash: scopedb pru" "$(complete_words pru)" "prune"
equals "bash: prune options" "$(complete_words prune --k)" "--keep-last"
equals "bash: pin:" "$(complete_words diff pin : '' | tr '\n' ' ')" "baseline best "
equals "bash: pin:ba" "$(complete_words diff 2 pin : ba)" "baseline"
equals "bash: word pin:" "$(complete_words check pin ':' | tr '\n' ' ')" ":baseline :best "
equals "bash: tag:" "$(complete_words show tag : g)" "gpu"
equals "bash: branch:" "$(complete_words show branch : f)" "feature/gpu"
equals "bash: --tag" "$(complete_words runs --tag '' | tr '\n' ' ')" "gpu nightly "
equals "bash: --branch=" "$(complete_words history solve --branch = m)" "main"
equals "bash: unpin" "$(complete_words unpin b | tr '\n' ' ')" "baseline best "
equals "bash: untag RUN" "$(complete_words untag 2 n)" "nightly"
equals "bash: --metric" "$(complete_words diff --metric p9 | tr '\n' ' ')" "p95 p99 "
mkdir other && (cd other && scopedb ingest -q --commit cccc1 --tag weekly ../a.h5 >/dev/null) || exit 1
equals "bash: --db of the command line" \
	"$(complete_words runs --db other/scopedb.sqlite --tag '')" "weekly"
equals "bash: --db= of the command line" \
	"$(complete_words runs --db = other/scopedb.sqlite --tag '')" "weekly"

fi

# --- zsh (when installed: Debian zsh) ---------------------------------------------------
if tcase zsh; then
if command -v zsh >/dev/null; then
	expect 0 "zsh -n _scopedb" zsh -n "$P/share/zsh/site-functions/_scopedb"
	# Type each line and TAB into an interactive zsh on a pseudo-terminal
	# (zsh_complete of e2e-lib.sh) with the installed completion
	zsh_complete "$P/share/zsh/site-functions" "$P/bin" 'scopedb che' check \
		'scopedb diff pin:bas' baseline 'scopedb runs --tag g' gpu \
		'scopedb diff --metric imb' imbalance
	contains "zsh: scopedb che" "$(zsh_line 1)" "scopedb check"
	contains "zsh: pin:" "$(zsh_line 2)" "scopedb diff pin:baseline"
	contains "zsh: --tag" "$(zsh_line 3)" "scopedb runs --tag gpu"
	contains "zsh: --metric" "$(zsh_line 4)" "--metric imbalance"
else
	echo "note: zsh not found: the zsh completion is not tried" >&2
fi

fi

# --- the .deb (when dpkg-shlibdeps is installed: Debian dpkg-dev) --------------------
if tcase deb; then
if command -v dpkg-shlibdeps >/dev/null && command -v cpack >/dev/null; then
	expect 0 "cpack -G DEB" cpack -G DEB --config "$SCOPEDB_BUILD_DIR/CPackConfig.cmake" -B "$E2E_DIR/deb"
	deb=$(ls "$E2E_DIR"/deb/scopedb_*.deb)
	equals "deb name" "$(basename "$deb")" \
		"scopedb_$("$S" --version | cut -d' ' -f2)_$(dpkg --print-architecture).deb"
	equals "deb files" "$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print $6}' | LC_ALL=C sort)" \
		"$(printf '%s\n' "$want" | sed 's|^|./usr/|; s|site-functions|vendor-completions|' | LC_ALL=C sort)"
	depends=$(dpkg-deb -f "$deb" Depends)
	# every shared library of the binary comes from a package the .deb depends on
	# (the libraries it needs itself, not theirs: readelf's NEEDED)
	for soname in $(readelf -d "$S" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		lib=$(ldd "$S" | awk -v n="$soname" '$1 == n {print $3}')
		real=$(readlink -f "$lib")
		pkg=
		# dpkg knows each file under one name: /lib or /usr/lib (merged /usr)
		for f in "$real" "${real#/usr}" "$lib" "/usr$lib"; do
			pkg=$(dpkg-query -S "$f" 2>/dev/null | head -1 | cut -d: -f1)
			[ -n "$pkg" ] && break
		done
		[ -n "$pkg" ] || { bad "deb: no package has $soname ($lib)"; continue; }
		case ", $depends" in *", $pkg "* | *", $pkg,"* | *", $pkg") ok ;; *) bad "deb: $lib ($pkg) not in Depends: $depends" ;; esac
	done
	contains "deb depends on sqlite" "$depends" "libsqlite3-0"
	contains "deb depends on pcre2" "$depends" "libpcre2-8-0"
else
	echo "note: dpkg-shlibdeps not found (Debian dpkg-dev): the .deb is not built" >&2
fi
fi

finish
