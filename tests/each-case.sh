#!/usr/bin/env bash
# Runs every case of the tests alone, one ctest run per case, to show that
# no case depends on another one's state (docs/testing.md): an end-to-end
# script's cases with what its setup cases and the code outside its cases
# make (E2E_CASES), a unit test's cases with its group's setup (UNIT_CASES).
# Not part of the suite: it repeats each test's setup once per case.
# Usage: bash tests/each-case.sh [--build DIR] [e2e_NAME|test_NAME...]
# (default: every test of both kinds that DIR has built)
set -u
cd "$(dirname "$0")/.."
build=build
if [ "${1:-}" = --build ]; then
	build=$2
	shift 2
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in tests/e2e_*.sh tests/test_*.c; do
		n=${f##*/}
		names+=("${n%.*}")
	done
fi
fail=0
for n in "${names[@]}"; do
	case $n in
	e2e_*) var=E2E_CASES cases=$(bash "tests/$n.sh" --list) ;;
	test_*)
		var=UNIT_CASES
		if [ ! -x "$build/tests/$n" ]; then
			echo "ok - $n # SKIP not built in $build"
			continue
		fi
		cases=$("$build/tests/$n" --list)
		;;
	*)
		echo "each-case.sh: '$n' is neither an e2e_ nor a test_ test" >&2
		exit 2
		;;
	esac
	for c in $cases; do
		if env "$var=$c" ctest --test-dir "$build" -R "^$n\$" >/dev/null 2>&1; then
			echo "ok - $n $c"
		else
			echo "not ok - $n $c ($var=$c ctest --test-dir $build -R '^$n\$' --output-on-failure)"
			fail=1
		fi
	done
done
exit $fail
