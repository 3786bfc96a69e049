#!/usr/bin/env bash
# Makes a local certificate authority and a server certificate for 127.0.0.1, ::1 and localhost, valid 30 days, for
# trying TLS on this machine (and for the tests). Never use them beyond it.
#
#   scripts/make-dev-certs.sh DIR
#
# Writes into DIR (created if missing):
#   ca.pem          the CA's certificate: give it to clients (`foyer --ca-file DIR/ca.pem`)
#   ca-key.pem      the CA's private key (mode 0600)
#   server.pem      the server's certificate followed by the CA's: --tls-certificate
#   server-key.pem  the server's private key (mode 0600): --tls-key
set -euo pipefail

if [[ $# -ne 1 ]]; then
    echo "usage: $0 DIR" >&2
    exit 2
fi
dir=$1
mkdir -p "$dir"
umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -subj "/CN=Foyer development CA" \
    -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$dir/ca-key.pem" -out "$dir/ca.pem" 2>/dev/null

openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -subj "/CN=localhost" -keyout "$dir/server-key.pem" -out "$work/server.csr" 2>/dev/null

cat >"$work/server.ext" <<'EXT'
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1
EXT
openssl x509 -req -in "$work/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca-key.pem" -CAcreateserial \
    -CAserial "$work/ca.srl" -days 30 -extfile "$work/server.ext" -out "$work/server-leaf.pem" 2>/dev/null
cat "$work/server-leaf.pem" "$dir/ca.pem" >"$dir/server.pem"
chmod 644 "$dir/ca.pem" "$dir/server.pem"

echo "CA:          $dir/ca.pem"
echo "certificate: $dir/server.pem"
echo "key:         $dir/server-key.pem"
