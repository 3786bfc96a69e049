#!/usr/bin/env bash
# Starts the whole Foyer stack on loopback from the release build, waits until every service answers its health
# check, prints what runs where, and stops everything cleanly on Ctrl-C (SIGTERM to each; they drain, then exit).
#
# Identity runs in LOCAL MODE: email links are not sent but kept in its outbox, which `foyer outbox` reads with the
# cluster secret. Local mode is for this machine only; never let such a stack face the internet.
#
#   DATA_DIR      where SQLite files, the cluster secret, the key-encryption key that seals the signing keys and
#                 the admin key live (default .data; reused next time)
#   POSTGRES_URL  run every service on this PostgreSQL instead (each in a schema of its own)
#   BIN           the directory with the executables (default .build/release)
#   PLANS_FILE    guest-quota's plans (default examples/plans.json: the built-in plans plus the app counters
#                 `transactions` and `uploads`, so `foyer quota consume transactions` works at once)
set -euo pipefail
cd "$(dirname "$0")/.."

bin=${BIN:-.build/release}
export FOYER_DATA_DIR=${DATA_DIR:-.data}
mkdir -p "$FOYER_DATA_DIR/logs"
if [[ -n ${POSTGRES_URL:-} ]]; then export FOYER_DATABASE=$POSTGRES_URL; fi

# name:port, in start order (the gateway last: it calls the others).
services=(identity:7401 guest-quota:7402 user-data:7403 cleanup:7404 gateway:7400)
for entry in "${services[@]}"; do
    [[ -x $bin/${entry%%:*} ]] || { echo "missing $bin/${entry%%:*}: run 'swift build -c release' (make run does)" >&2; exit 1; }
done

# The key-encryption key that seals identity's signing keys at rest (docs/DEPLOYING.md): 32 random bytes in standard
# base64, made once, readable by this user only. The services make the cluster secret themselves.
kek=$FOYER_DATA_DIR/signing-key-encryption-key
if [[ ! -e $kek ]]; then
    (umask 077 && head -c 32 /dev/urandom | base64 >"$kek.new" && mv "$kek.new" "$kek")
fi

pids=()
stop() {
    trap - INT TERM EXIT
    echo
    echo "stopping..."
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    echo "stopped."
    exit 0
}
trap stop INT TERM EXIT

for entry in "${services[@]}"; do
    name=${entry%%:*} port=${entry##*:}
    extra=()
    # The local stack is also the load-test bench: let `foyer load` spread sign-up source addresses.
    [[ $name == gateway ]] && extra+=(--load-test-sources)
    # ...and every `foyer load` user refreshes and signs in from 127.0.0.1: lift the gateway's per-source limits too.
    [[ $name == gateway ]] && extra+=(--refresh-per-minute 100000 --sign-in-per-minute 100000)
    # The HTTP API (docs/openapi.yaml) beside the binary listener, and the web example at /example/; opened as
    # http://localhost:7480/example/?api=http://127.0.0.1:7480 it calls the API from another origin (CORS).
    [[ $name == gateway ]] && extra+=(--http-port 7480 --example-page examples/web/index.html
        --cors-origins http://localhost:7480)
    # The admin API (docs/admin-openapi.yaml) and the console at http://127.0.0.1:7481/admin/, on loopback.
    [[ $name == gateway ]] && extra+=(--admin-port 7481)
    # Plans with app-defined counters beside the gateway's own (Services/GuestQuota/README.md).
    [[ $name == guest-quota ]] && extra+=(--plans-file "${PLANS_FILE:-examples/plans.json}")
    # Local mode: email links go to identity's outbox instead of a mail server.
    [[ $name == identity ]] && extra+=(--local-mode --mailer outbox)
    # Signing keys sealed at rest, as in a deployment; access tokens signed with ES256 (docs/DECISIONS.md).
    [[ $name == identity ]] && extra+=(--signing-key-encryption-key-file "$kek" --signing-algorithm ES256)
    # The issuer is the HTTP API's address, where verifiers find /.well-known/openid-configuration.
    [[ $name == identity || $name == gateway ]] && extra+=(--issuer http://127.0.0.1:7480)
    # Every `foyer load` user links a password from 127.0.0.1: lift identity's per-source hashing budget here.
    [[ $name == identity ]] && extra+=(--password-hashes-per-source-per-minute 100000
        --password-hash-burst-per-source 1000)
    FOYER_PORT=$port "$bin/$name" "${extra[@]}" >>"$FOYER_DATA_DIR/logs/$name.log" 2>&1 &
    pids+=($!)
    healthy=
    for _ in $(seq 100); do
        if FOYER_PORT=$port "$bin/$name" --check-health >/dev/null 2>&1; then healthy=yes; break; fi
        kill -0 "${pids[-1]}" 2>/dev/null || break
        sleep 0.1
    done
    if [[ -z $healthy ]]; then
        echo "$name did not come up; its log ($FOYER_DATA_DIR/logs/$name.log) ends with:" >&2
        tail -n 20 "$FOYER_DATA_DIR/logs/$name.log" >&2 || true
        exit 1
    fi
    printf '  %-12s 127.0.0.1:%s   (log: %s/logs/%s.log)\n' "$name" "$port" "$FOYER_DATA_DIR" "$name"
done
printf '  %-12s http://127.0.0.1:7480   (the HTTP API; signing keys at /.well-known/jwks.json)\n' "gateway"
printf '  %-12s http://127.0.0.1:7480/example/   (the web example: the guest journey in your browser)\n' ""
printf '  %-12s http://127.0.0.1:7481/admin/   (the admin console; its key is in %s/admin-key)\n' "" "$FOYER_DATA_DIR"

# An admin key for the console and `foyer admin`, made once with the cluster secret and kept in the data directory.
admin_key=$FOYER_DATA_DIR/admin-key
if [[ ! -e $admin_key ]]; then
    "$bin/foyer" admin bootstrap-key --name local --save-to "$admin_key" \
        --cluster-secret-file "$FOYER_DATA_DIR/cluster-secret" >/dev/null \
        || echo "could not make an admin key; see $FOYER_DATA_DIR/logs/identity.log" >&2
fi

cat <<EOM

Foyer is running on ${POSTGRES_URL:+PostgreSQL}${POSTGRES_URL:-SQLite in $FOYER_DATA_DIR}.

  LOCAL MODE: identity keeps email links in its outbox instead of sending them (read them with
  \`$bin/foyer outbox --cluster-secret-file $FOYER_DATA_DIR/cluster-secret --to ADDRESS\`).
  For this machine only: never let this stack face the internet.

Try it:

  curl -s -X POST http://127.0.0.1:7480/v1/guests \\
      -H "Idempotency-Key: \$(head -c 24 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
  $bin/foyer guest --session /tmp/me.json
  $bin/foyer put --session /tmp/me.json notes first "hello"
  $bin/foyer quota --session /tmp/me.json
  $bin/foyer sign-up --session /tmp/me.json --email you@example.com --password 'a long passphrase'
  $bin/foyer me --session /tmp/me.json
  $bin/foyer email-link send --session /tmp/link.json --email you@example.com --purpose sign-in
  $bin/foyer outbox --cluster-secret-file $FOYER_DATA_DIR/cluster-secret --to you@example.com --limit 1
  $bin/foyer admin counts --admin-key-file $FOYER_DATA_DIR/admin-key
  $bin/foyer admin users --kind guests --newest --limit 5 --admin-key-file $FOYER_DATA_DIR/admin-key
  $bin/foyer admin rotate-keys --admin-key-file $FOYER_DATA_DIR/admin-key

Ctrl-C stops everything.
EOM
wait -n "${pids[@]}" || true
echo "a service exited; stopping the rest" >&2
