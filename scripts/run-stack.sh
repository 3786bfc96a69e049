#!/usr/bin/env bash
# Starts the Foyer stack on loopback from the release build. Each service is added here as it is built.
set -euo pipefail
cd "$(dirname "$0")/.."
services=()
for name in identity guest-quota user-data cleanup gateway; do
    [[ -x .build/release/$name ]] && services+=("$name")
done
if [[ ${#services[@]} -eq 0 ]]; then
    echo "No Foyer service is built yet: the foundation (protocol, RPC runtime, crypto, storage) is in place;" >&2
    echo "the identity, guest-quota, user-data, cleanup and gateway services come next." >&2
    exit 1
fi
