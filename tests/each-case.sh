#!/usr/bin/env bash
# Runs every case of the tests alone, one ctest run per case, to show that
# no case depends on another one's state (docs/testing.md): an end-to-end
# script's cases with what its setup cases and the code outside its cases
# make (E2E_CASES), a unit test's cases with its group's setup (UNIT_CASES).
# Not part of the suite: it repeats each test's setup once per case.
# Usage: bash tests/each-case.sh [--build DIR] [e2e_NAME|test_NAME...]
# (default: every test of both kinds that DIR has; a test named that DIR
# does not have, or that has no source, fails)
set -u
build=build
if [ "${1:-}" = --build ]; then
	if [ $# -lt 2 ]; then
		echo "each-case.sh: --build needs a build directory" >&2
		exit 2
	fi
	build=$2
	shift 2
fi
# the build directory as given from where the script was started
dir=$(cd "$build" 2>/dev/null && pwd) || {
	echo "each-case.sh: no build directory '$build'" >&2
	exit 2
}
build=$dir
cd "$(dirname "$0")/.." || exit 2
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for n in $(ctest --test-dir "$build" -N | sed -n 's/^ *Test *#[0-9]*: \(\(e2e\|test\)_[a-z0-9_]*\)$/\1/p'); do
		[ -f "tests/$n.sh" ] || [ -f "tests/$n.c" ] && names+=("$n")
	done
fi
fail=0
for n in "${names[@]}"; do
	case $n in
	e2e_*) var=E2E_CASES src=tests/$n.sh ;;
	test_*) var=UNIT_CASES src=tests/$n.c ;;
	*)
		echo "each-case.sh: '$n' is neither an e2e_ nor a test_ test" >&2
		exit 2
		;;
	esac
	if [ ! -f "$src" ] || ! ctest --test-dir "$build" -N -R "^$n\$" | grep -q '^ *Test *#'; then
		echo "not ok - $n (no $src, or not a test of $build)"
		fail=1
		continue
	fi
	if [ "$var" = E2E_CASES ]; then
		cases=$(bash "$src" --list)
	else
		cases=$("$build/tests/$n" --list)
	fi
	for c in $cases; do
		if env "$var=$c" ctest --test-dir "$build" --no-tests=error -R "^$n\$" >/dev/null 2>&1; then
			echo "ok - $n $c"
		else
			echo "not ok - $n $c ($var=$c ctest --test-dir $build -R '^$n\$' --output-on-failure)"
			fail=1
		fi
	done
done
exit $fail
