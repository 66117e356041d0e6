# Sourced by the bench scripts that run JOG over PostgreSQL (compare.sh's
# jog-pg peer, gateways.sh); run from the repository's root. PostgreSQL
# comes from Debian's packages (apt-get install postgresql).
#
# pg_start starts a throwaway cluster (initdb into a temp dir, as user
# postgres when run as root, on a free port of 127.0.0.1) with PostgreSQL's
# durable defaults (fsync, synchronous_commit): a commit is on disk before
# it returns, as JOG's SQLite store does with --fsync always. It sets
# $PGPORT and $PGPID (the postmaster); pg_stop stops it and removes it.
# pg_url NAME creates database NAME and prints its URL. With PG_CPUS set
# (a taskset list, e.g. 1), PostgreSQL runs on those CPUs only.
pg_start() {
	PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
	[ -x "$PGBIN/postgres" ] || { echo "PostgreSQL is not installed (apt-get install postgresql)" >&2; return 1; }
	PGDIR=$(mktemp -d "${TMPDIR:-/tmp}/jog-bench-pg.XXXXXX")
	local as=()
	if [ "$(id -u)" = 0 ]; then
		chown postgres "$PGDIR"
		as=(runuser -u postgres --)
	fi
	"${as[@]}" "$PGBIN/initdb" -D "$PGDIR/data" -U jog -A trust -E UTF8 --locale=C >"$PGDIR/initdb.log" 2>&1 ||
		{ cat "$PGDIR/initdb.log" >&2; return 1; }
	PGPORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
	local pin=()
	[ -n "${PG_CPUS:-}" ] && pin=(taskset -c "$PG_CPUS")
	"${pin[@]}" "${as[@]}" "$PGBIN/postgres" -D "$PGDIR/data" -p "$PGPORT" -c listen_addresses=127.0.0.1 \
		-c unix_socket_directories="$PGDIR" -c max_connections=400 -c shared_buffers=256MB \
		>"$PGDIR/postgres.log" 2>&1 &
	disown # not a job of this shell: a plain `wait` in the caller must not wait for it
	for _ in $(seq 100); do
		if "$PGBIN/pg_isready" -q -h 127.0.0.1 -p "$PGPORT"; then
			PGPID=$(head -1 "$PGDIR/data/postmaster.pid") # the postmaster, not runuser
			return 0
		fi
		sleep 0.1
	done
	echo "PostgreSQL did not start; see $PGDIR/postgres.log" >&2
	return 1
}

pg_url() {
	"$PGBIN/psql" -q -h 127.0.0.1 -p "$PGPORT" -U jog -d postgres -c "CREATE DATABASE $1" >/dev/null &&
		echo "postgres://jog@127.0.0.1:$PGPORT/$1?sslmode=disable"
}

pg_stop() {
	[ -n "${PGPID:-}" ] || return 0
	kill -INT "$PGPID" 2>/dev/null || true
	for _ in $(seq 300); do kill -0 "$PGPID" 2>/dev/null || break; sleep 0.1; done
	rm -rf "$PGDIR"
	PGPID=
}
