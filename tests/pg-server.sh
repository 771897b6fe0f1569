# pg-server.sh - a throwaway PostgreSQL 15 server for the end-to-end tests
# (sourced by tests/e2e_postgres.sh and bench/run).
#
# pg_start DIR: a fresh cluster in DIR/data (initdb, or a copy of the
# build tree's untouched one: pg_initdb) started listening only on
# a Unix socket in DIR (listen_addresses = '', fsync off), as an
# unprivileged user: when run as root (CI), the user "scopedb-pg" (created
# with useradd when missing) through runuser; otherwise the caller.  Sets
# PG_URI (a key=value connection string for database "scopedb") and
# PG_BIN.  pg_stop stops it (immediately); pg_kill / pg_restart for the
# fault tests.  The caller installs a trap that calls pg_stop.
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
# the initdb template of this build tree (pg_initdb); bench/run has none
PG_TEMPLATE=${PG_TEMPLATE-${SCOPEDB_BUILD_DIR:+$SCOPEDB_BUILD_DIR/pg-template-$(basename "$(dirname "$PG_BIN")")}}
PG_DIR=
PG_URI=

# Run a command as the server's user.
pg_as() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u scopedb-pg -- "$@"
	else
		"$@"
	fi
}

pg_available() {
	[ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ]
}

# pg_user: the server's user "scopedb-pg", created when missing.  Tests
# that start a server at once on a fresh machine race to create it: the
# loser's useradd fails ("already exists", or /etc/passwd locked), so a
# failure counts only when the user is still missing after a few tries.
pg_user() {
	local i
	for i in 1 2 3 4 5 6 7 8 9 10; do
		id -u scopedb-pg >/dev/null 2>&1 && return 0
		useradd --system --no-create-home --shell /usr/sbin/nologin scopedb-pg 2>/dev/null &&
			return 0
		sleep 0.$((RANDOM % 5 + 1))
	done
	id -u scopedb-pg >/dev/null 2>&1 && return 0
	echo "pg-server.sh: cannot create the user scopedb-pg (useradd failed)" >&2
	return 1
}

pg_start() {
	PG_DIR=$1
	mkdir -p "$PG_DIR" || return 1
	if [ "$(id -u)" -eq 0 ]; then
		pg_user || return 1
		chown scopedb-pg "$PG_DIR" || return 1
		chmod 755 "$PG_DIR"
		# the server's user must reach the directory
		local d=$PG_DIR
		while [ "$d" != / ]; do
			d=$(dirname "$d")
			chmod o+x "$d" 2>/dev/null
		done
	fi
	pg_initdb || return 1
	cat >>"$PG_DIR/data/postgresql.conf" <<-CONF
		listen_addresses = ''
		unix_socket_directories = '$PG_DIR'
		fsync = off
		full_page_writes = off
		max_connections = 60
		shared_buffers = 64MB
	CONF
	pg_restart_only || return 1
	PG_URI="host=$PG_DIR user=postgres dbname=scopedb"
	pg_as "$PG_BIN/createdb" -h "$PG_DIR" -U postgres scopedb || return 1
}

# pg_initdb: a fresh cluster in $PG_DIR/data, owned by the server's user.
# With PG_TEMPLATE (tests: $SCOPEDB_BUILD_DIR/pg-template-VERSION), the
# first test of a build tree runs initdb (a second of CPU, several of
# wall-clock time) and keeps a copy of the untouched cluster there; later
# ones copy it (cp -a keeps its owner and modes), which gives the same
# files initdb would write.  The copy is made under a temporary name and
# renamed into place, so tests that start at once never see half of one.
# No fsync (--no-sync): the cluster is thrown away with the test.
pg_initdb() {
	local tpl=${PG_TEMPLATE:-}
	if [ -n "$tpl" ] && [ -f "$tpl/PG_VERSION" ] && cp -a "$tpl" "$PG_DIR/data" 2>/dev/null; then
		return 0
	fi
	rm -rf "$PG_DIR/data"
	pg_as "$PG_BIN/initdb" --no-sync -D "$PG_DIR/data" -U postgres -A trust -E UTF8 \
		--no-locale >"$PG_DIR/initdb.log" 2>&1 || { cat "$PG_DIR/initdb.log" >&2; return 1; }
	if [ -n "$tpl" ] && [ ! -e "$tpl" ] && cp -a "$PG_DIR/data" "$tpl.$$" 2>/dev/null; then
		mv -T "$tpl.$$" "$tpl" 2>/dev/null || rm -rf "$tpl.$$"
	fi
	return 0
}

pg_restart_only() {
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/server.log" -w -t 60 start \
		>/dev/null || { cat "$PG_DIR/server.log" >&2; return 1; }
}

# A fresh database NAME on the server; prints its connection string.
pg_newdb() {
	pg_as "$PG_BIN/createdb" -h "$PG_DIR" -U postgres "$1" || return 1
	echo "host=$PG_DIR user=postgres dbname=$1"
}

# Stop the server the way a crash or a lost machine does.
pg_kill() {
	pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1
}

pg_stop() {
	[ -n "$PG_DIR" ] && [ -f "$PG_DIR/data/postmaster.pid" ] &&
		pg_as "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -m immediate stop >/dev/null 2>&1
	return 0
}

# pg_e2e_start: for an e2e test (after e2e-lib.sh): a server in
# $E2E_DIR/pg, stopped and the directory removed on exit; the test fails
# (exit 1) when it cannot start.
pg_e2e_start() {
	trap '[ "$BASHPID" != "$$" ] || { pg_stop; rm -rf "$E2E_DIR"; }' EXIT
	pg_available || { echo "FAIL: no PostgreSQL 15 server binaries in $PG_BIN" >&2; exit 1; }
	pg_start "$E2E_DIR/pg" || { echo "FAIL: cannot start PostgreSQL" >&2; exit 1; }
}
