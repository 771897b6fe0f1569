# zcomplete.zsh - type command lines into an interactive zsh and TAB, for
# the tests of the zsh completion (e2e_completion.sh, e2e_install.sh, through
# zsh_complete of e2e-lib.sh):
#   zsh -f zcomplete.zsh FPATH BINDIR LINE WANT [LINE WANT]...
# starts "zsh -f -i" on a pseudo-terminal (zsh/zpty) with FPATH first in
# its fpath (the directory of _scopedb) and BINDIR first in its path, runs
# compinit, then for each LINE types it and TAB, waits (at most 10 s) for
# WANT to appear, prints what the terminal showed and a line "=====", and
# clears the line (^U).
zmodload zsh/zpty || exit 3
zpty z "zsh -f -i"
zpty -w z "PS1='> '; unsetopt zle_bracketed_paste 2>/dev/null; fpath=($1 \$fpath); path=($2 \$path)"
zpty -w z "autoload -Uz compinit; compinit -u -D; print READY"
shift 2
out= chunk=
for ((i = 0; i < 100; i++)); do
	zpty -rt z chunk && out+=$chunk
	[[ $out == *READY*'> '* ]] && break
	sleep 0.1
done
while (($# >= 2)); do
	zpty -w -n z "$1"$'\t'
	out=
	for ((i = 0; i < 100; i++)); do
		zpty -rt z chunk && out+=$chunk
		[[ -n $out && $out == *$2* ]] && break
		sleep 0.1
	done
	print -r -- "${out//$'\a'/}"
	print -r -- "====="
	zpty -w -n z $'\C-u'
	shift 2
done
zpty -d z
