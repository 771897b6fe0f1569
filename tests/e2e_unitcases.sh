#!/usr/bin/env bash
# The unit tests' cases, chosen one at a time (tests/support/testutil.c,
# docs/testing.md): glob patterns as a test program's arguments or in
# UNIT_CASES, --list, an error for a pattern that matches no case, cmocka's
# TAP output, and the groups of test_conformance.  Run on test_blob and
# test_conformance of the tree under test (SCOPEDB_BUILD_DIR).
. "$(dirname "$0")/e2e-lib.sh"
: "${SCOPEDB_BUILD_DIR:?set SCOPEDB_BUILD_DIR to the build tree}"
src=$(cd "$(dirname "$0")" && pwd)
blob=$SCOPEDB_BUILD_DIR/tests/test_blob
conf=$SCOPEDB_BUILD_DIR/tests/test_conformance
unset UNIT_CASES CMOCKA_MESSAGE_OUTPUT
# ran OUT: the cases cmocka's standard output says it ran, one a line
ran() { sed -n 's/^\[ RUN      \] //p' <<<"$1"; }

if tcase list; then
	# every case the source declares, in its order
	want=$(sed -n 's/.*cmocka_unit_test(\(test_[a-z0-9_]*\)).*/\1/p' "$src/test_blob.c")
	expect 0 "--list" "$blob" --list
	equals "--list names the source's cases" "$out" "$want"
	[ "$(wc -l <<<"$out")" -ge 5 ] && ok || bad "--list: too few cases: $out"
	expect 0 "--list of a pattern" "$blob" --list 'test_decode_*'
	equals "--list of a pattern" "$out" $'test_decode_appends\ntest_decode_to'
fi

if tcase patterns; then
	expect 0 "one case" "$blob" test_count
	equals "one case ran" "$(ran "$out")" test_count
	expect 0 "a glob" "$blob" 'test_decode_*'
	equals "a glob ran its two" "$(ran "$out")" $'test_decode_appends\ntest_decode_to'
	expect 0 "two patterns" "$blob" test_fuzz test_count
	equals "two patterns ran in the source's order" "$(ran "$out")" $'test_count\ntest_fuzz'
	expect 0 "every case" "$blob"
	equals "no pattern runs every case" "$(ran "$out")" "$("$blob" --list)"
fi

if tcase environment; then
	run env UNIT_CASES='test_fuzz  test_count' "$blob"
	equals "UNIT_CASES: exit" "$rc" 0
	equals "UNIT_CASES ran its two" "$(ran "$out")" $'test_count\ntest_fuzz'
	run env UNIT_CASES=test_fuzz "$blob" test_count
	equals "an argument wins over UNIT_CASES" "$(ran "$out")" test_count
	# through a ctest of its own (not the build tree's, whose logs and
	# timings a running suite keeps)
	mkdir -p ct
	printf 'add_test(test_blob "%s")\n' "$blob" >ct/CTestTestfile.cmake
	run env UNIT_CASES=test_count ctest --test-dir ct --no-tests=error -R '^test_blob$' -V
	equals "through ctest: exit" "$rc" 0
	equals "through ctest: one case" "$(grep -c '\[ RUN  ' <<<"$out")" 1
fi

if tcase refusals; then
	expect 2 "no match" "$blob" test_count nosuchcase
	equals "no match: the message" "$err" \
		"test_blob: no case matches 'nosuchcase'; the cases are: $("$blob" --list | tr '\n' ' ' | sed 's/ $//')"
	equals "no match: one line" "$(wc -l <<<"$err")" 1
	equals "no match: nothing ran" "$out" ""
	run env UNIT_CASES=nosuchcase "$blob"
	equals "UNIT_CASES with no match: exit" "$rc" 2
	expect 2 "unknown option" "$blob" --bogus
	contains "unknown option: named" "$err" "test_blob: unknown option '--bogus'"
	expect 0 "--help" "$blob" --help
	contains "--help: usage" "$out" "usage: test_blob [--list] [--] [PATTERN...]"
	expect 0 "-- then a pattern" "$blob" -- test_count
	equals "-- then a pattern ran it" "$(ran "$out")" test_count
	expect 2 "-- then a pattern like an option" "$blob" -- --list
	contains "-- then --list is a pattern" "$err" "no case matches '--list'"
fi

if tcase tap; then
	run env CMOCKA_MESSAGE_OUTPUT=TAP "$blob" test_count test_fuzz
	equals "TAP: exit" "$rc" 0
	equals "TAP: plan and cases" "$(grep -E '^(1\.\.|ok )' <<<"$out")" \
		$'1..2\nok 1 - test_count\nok 2 - test_fuzz'
fi

if tcase groups; then
	expect 0 "conformance --list" "$conf" --list 'test_label*'
	equals "conformance --list" "$out" test_labels
	expect 0 "conformance, one case" "$conf" test_labels
	# the SQLite group always runs (PostgreSQL's only with a server)
	equals "conformance: the case in the SQLite group" "$(ran "$out" | sort -u)" test_labels
	expect 2 "conformance, no match" "$conf" nosuchcase
fi
finish
