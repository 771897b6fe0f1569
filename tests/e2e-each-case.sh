#!/usr/bin/env bash
# Runs every case of end-to-end tests alone (with what setup cases and the
# code outside the cases make), one ctest run per case, to show that no
# case depends on another one's state (docs/testing.md).  Not part of the
# suite: it repeats each script's setup once per case.
# Usage: bash tests/e2e-each-case.sh [--build DIR] [e2e_NAME...]   (default: all)
set -u
cd "$(dirname "$0")/.."
build=build
if [ "${1:-}" = --build ]; then
	build=$2
	shift 2
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in tests/e2e_*.sh; do
		n=${f##*/}
		names+=("${n%.sh}")
	done
fi
fail=0
for n in "${names[@]}"; do
	for c in $(bash "tests/$n.sh" --list); do
		if E2E_CASES=$c ctest --test-dir "$build" -R "^$n\$" >/dev/null 2>&1; then
			echo "ok - $n $c"
		else
			echo "not ok - $n $c (E2E_CASES=$c ctest --test-dir $build -R '^$n\$' --output-on-failure)"
			fail=1
		fi
	done
done
exit $fail
