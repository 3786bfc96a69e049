#!/usr/bin/env bash
# A throwaway PostgreSQL server for tests.
#
#   scripts/throwaway-postgres.sh start DIR   initdb in DIR, start on 127.0.0.1 at a free port, create the
#                                             database foyer_test, print its URL on stdout:
#                                             postgres://postgres@127.0.0.1:PORT/foyer_test
#   scripts/throwaway-postgres.sh stop DIR    stop that server and remove DIR
#   scripts/throwaway-postgres.sh pause DIR   stop that server at once (`pg_ctl stop -m immediate`, as a crash
#                                             would), keeping DIR: its data, its port and its URL
#   scripts/throwaway-postgres.sh resume DIR  start a paused server again on the same port (crash recovery runs)
#
# Trust authentication, loopback only, fsync off: for tests, never for data. Run as root, the server runs as the
# `postgres` user (initdb refuses root); run as anyone else, it runs as that user. Binaries: the highest
# /usr/lib/postgresql/*/bin, else initdb/pg_ctl on PATH. Everything but the URL goes to stderr.
set -euo pipefail

die() { echo "throwaway-postgres: $*" >&2; exit 1; }

[[ $# -eq 2 && ( $1 == start || $1 == stop || $1 == pause || $1 == resume ) ]] || die "usage: $0 start|stop|pause|resume DIR"
command=$1
dir=$(realpath -m "$2")
data=$dir/data
marker=$dir/.throwaway-postgres

# Run a server-side command as the owner of the cluster.
as_owner() {
    if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

bindir=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
if [[ ! -x $bindir/initdb ]]; then
    initdb_path=$(command -v initdb) || die "no PostgreSQL server binaries (initdb) under /usr/lib/postgresql/*/bin or on PATH; install postgresql"
    bindir=$(dirname "$initdb_path")
fi

if [[ $command == stop ]]; then
    [[ -d $dir ]] || { echo "throwaway-postgres: $dir does not exist; nothing to stop" >&2; exit 0; }
    [[ -f $marker ]] || die "$dir was not made by this script; not touching it"
    if [[ -f $data/postmaster.pid ]]; then
        as_owner "$bindir/pg_ctl" -D "$data" stop -m fast >&2
    fi
    rm -rf "$dir"
    exit 0
fi

if [[ $command == pause || $command == resume ]]; then
    [[ -f $marker && -f $dir/url ]] || die "$dir is not a server started by this script"
    url=$(cat "$dir/url")
    port=${url##*:}
    port=${port%%/*}
    if [[ $command == pause ]]; then
        as_owner "$bindir/pg_ctl" -D "$data" stop -m immediate >&2
    else
        as_owner "$bindir/pg_ctl" -D "$data" -l "$dir/postgres.log" -o "-p $port" -w -t 60 start >&2 \
            || { tail -n 20 "$dir/postgres.log" >&2 || true; die "the server did not start again (log: $dir/postgres.log)"; }
    fi
    exit 0
fi

# start
if [[ -e $dir && -n $(ls -A "$dir") ]]; then die "$dir exists and is not empty"; fi
mkdir -p "$dir"
touch "$marker"
if [[ $(id -u) -eq 0 ]]; then chown -R postgres: "$dir"; fi
as_owner test -w "$dir" || die "the postgres user cannot write to $dir (pick a directory it can reach, e.g. under /tmp)"

as_owner "$bindir/initdb" -D "$data" -U postgres -A trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 \
    || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
cat >"$data/pg_hba.conf" <<'EOF'
local all all              trust
host  all all 127.0.0.1/32 trust
EOF
cat >>"$data/postgresql.conf" <<'EOF'
listen_addresses = '127.0.0.1'
unix_socket_directories = ''
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 200
EOF
if [[ $(id -u) -eq 0 ]]; then chown postgres: "$data/pg_hba.conf" "$data/postgresql.conf"; fi

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

started=
for _ in 1 2 3 4 5; do
    port=$((20000 + RANDOM % 40000))
    port_in_use "$port" && continue
    if as_owner "$bindir/pg_ctl" -D "$data" -l "$dir/postgres.log" -o "-p $port" -w -t 30 start >&2; then
        started=yes
        break
    fi
done
[[ -n $started ]] || { tail -n 20 "$dir/postgres.log" >&2 || true; die "the server did not start (log: $dir/postgres.log)"; }

ready=
for _ in $(seq 60); do
    if "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -U postgres; then ready=yes; break; fi
    sleep 0.5
done
[[ -n $ready ]] || die "the server on port $port did not accept connections within 30 s (log: $dir/postgres.log)"

"$bindir/createdb" -h 127.0.0.1 -p "$port" -U postgres foyer_test >&2
url="postgres://postgres@127.0.0.1:$port/foyer_test"
echo "$url" >"$dir/url"
echo "$url"
