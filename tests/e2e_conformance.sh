#!/usr/bin/env bash
# e2e_conformance.sh - the store conformance battery (tests/test_conformance.c,
# issue 24) against PostgreSQL: a throwaway server (tests/pg-server.sh, an
# unprivileged user, a private socket, always stopped), one database
# with a schema per fresh store of the battery, then the battery with
# SCOPEDB_TEST_PG set, so that each case runs on SQLite and on
# PostgreSQL and compares them.  (ctest runs the battery alone as well,
# SQLite only.)  Skipped (exit 77) when scopedb was built without the
# backend.
source "$(dirname "$0")/e2e-lib.sh"
: "${SCOPEDB_BUILD_DIR:?set SCOPEDB_BUILD_DIR to the build tree}"
battery=$SCOPEDB_BUILD_DIR/tests/test_conformance
[ -x "$battery" ] || { echo "FAIL: no $battery" >&2; exit 1; }
if [ "${SCOPEDB_POSTGRES:-OFF}" != ON ]; then
	echo "skipped: scopedb was built without the PostgreSQL backend (SCOPEDB_POSTGRES=OFF)"
	exit 77
fi
source "$(dirname "$0")/pg-server.sh"
pg_e2e_start
stores=60
db=$(pg_newdb conformance) || { bad "cannot create the database"; finish; }
schemas=$(for ((i = 1; i <= stores; i++)); do printf 'CREATE SCHEMA conf%d;' "$i"; done)
"$PG_BIN/psql" -X -q -d "$db" -c "$schemas" || { bad "cannot create the schemas"; finish; }
SCOPEDB_TEST_PG=$db SCOPEDB_TEST_PG_STORES=$stores CMOCKA_MESSAGE_OUTPUT=stdout "$battery" \
	>battery.out 2>&1
rc=$?
# every case of the battery passed, on both backends
ncases=$(grep -c 'cmocka_unit_test_prestate(test_' "$(dirname "$0")/test_conformance.c")
if [ "$rc" = 0 ] && [ "$(grep -c "^\[  PASSED  \] $ncases test(s)" battery.out)" = 2 ] &&
	[ "$(grep -c '^\[==========\] Running' battery.out)" = 2 ]; then
	ok
else
	grep -v '^\[ *\(RUN\|OK\) ' battery.out | head -60 >&2
	bad "the battery failed against PostgreSQL (exit $rc)"
fi
finish
