#!/usr/bin/env bash
# Makes a local certificate authority and certificates for 127.0.0.1, ::1 and localhost, valid 30 days, for trying TLS
# and mutual TLS on this machine (and for the tests). Never use them beyond it.
#
#   scripts/make-dev-certs.sh DIR [NAME...]
#
# Writes into DIR (created if missing); a DIR that already holds ca.pem and ca-key.pem keeps that CA, so running the
# script again issues new certificates (new serial numbers) from the same CA:
#   ca.pem          the CA's certificate: give it to clients (`foyer --ca-file DIR/ca.pem`) and, for mutual TLS, to
#                   every service (--tls-ca)
#   ca-key.pem      the CA's private key (mode 0600)
#   server.pem      a certificate (subject CN=localhost) followed by the CA's: --tls-certificate
#   server-key.pem  its private key (mode 0600): --tls-key
#   NAME.pem        for each NAME (a service: identity, guest-quota, ...), a certificate with subject CN=NAME,
#   NAME-key.pem    followed by the CA's, and its key
# Every certificate names DNS:localhost, IP:127.0.0.1 and IP:::1 (NAME certificates also DNS:NAME) and may serve
# both as server and as client certificate (extended key usage serverAuth and clientAuth), as mutual TLS between
# services needs.
set -euo pipefail

if [[ $# -lt 1 ]]; then
    echo "usage: $0 DIR [NAME...]" >&2
    exit 2
fi
dir=$1
shift
for name in "$@"; do
    if [[ ! $name =~ ^[a-z0-9][a-z0-9.-]*$ || $name == server || $name == ca ]]; then
        echo "$0: '$name' is not a name (lowercase letters, digits, dots and dashes; not 'server' or 'ca')" >&2
        exit 2
    fi
done
mkdir -p "$dir"
umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [[ ! -f $dir/ca.pem || ! -f $dir/ca-key.pem ]]; then
    openssl req -x509 -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
        -subj "/CN=Foyer development CA" \
        -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
        -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -keyout "$dir/ca-key.pem" -out "$dir/ca.pem" 2>/dev/null
fi

# issue FILE-STEM COMMON-NAME EXTRA-SAN
issue() {
    local stem=$1 common_name=$2 extra_san=$3
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
        -subj "/CN=$common_name" -keyout "$dir/$stem-key.pem" -out "$work/$stem.csr" 2>/dev/null
    cat >"$work/$stem.ext" <<EXT
basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1$extra_san
EXT
    openssl x509 -req -in "$work/$stem.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca-key.pem" -CAcreateserial \
        -CAserial "$work/ca.srl" -days 30 -extfile "$work/$stem.ext" -out "$work/$stem-leaf.pem" 2>/dev/null
    cat "$work/$stem-leaf.pem" "$dir/ca.pem" >"$dir/$stem.pem"
    chmod 644 "$dir/$stem.pem"
}

issue server localhost ""
for name in "$@"; do issue "$name" "$name" ",DNS:$name"; done
chmod 644 "$dir/ca.pem"

echo "CA:          $dir/ca.pem"
echo "certificate: $dir/server.pem"
echo "key:         $dir/server-key.pem"
for name in "$@"; do echo "$name: $dir/$name.pem, key $dir/$name-key.pem"; done
