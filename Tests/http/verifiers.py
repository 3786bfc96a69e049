#!/usr/bin/env python3
"""Foyer's access tokens as two independent verifiers see them, knowing nothing but the issuer's address.

    python3 Tests/http/verifiers.py http://127.0.0.1:7480 --issuer http://127.0.0.1:7480 [--audience foyer-app]
        [--leeway SECONDS] < tokens

--leeway is the clock difference the verifiers tolerate, for a stack whose clock runs ahead of this machine's.

Reads {"tokens": [...]} on stdin. Fetches /.well-known/openid-configuration from the API's address (in a deployment
the issuer's; a test stack listens on a port of its own, so both are given), checks that it names the issuer, that it and jwks_uri carry Cache-Control with a max-age, and
that every key of the JWKS has `use` sig and an `alg` the document lists. Then each token is verified twice, each
time allowing only the algorithms the discovery document lists: with PyJWT (PyJWKClient on jwks_uri) and with
joserfc (the JWKS as a key set), both checking issuer, audience and expiry. Finally, forgeries of the first token are
sent to GET /v1/me on the API and must be refused with 401: `alg` none, HS256 keyed with the published key set, and
each other published algorithm in the header over the original signature (algorithm confusion).

Prints {"passed": true, "algorithms": [...], "tokens": [{"alg", "kid", "sub"}]} on stdout; exits 1 with the reason
on the first failure, 3 when PyJWT, cryptography or joserfc is missing (`make deps` installs them).
"""

import argparse
import base64
import hashlib
import hmac
import json
import sys
import urllib.error
import urllib.request
import warnings

try:
    import jwt
    from joserfc import jwk as jose_jwk
    from joserfc import jwt as jose_jwt
except ImportError as missing:
    print(f"missing Python package: {missing.name} (run `make deps`)", file=sys.stderr)
    sys.exit(3)

# joserfc warns that RFC 9864 deprecates the name EdDSA; Foyer still publishes it, as its verifiers know it.
warnings.filterwarnings("ignore", message=".*EdDSA.*")


class VerifierFailure(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise VerifierFailure(message)


def fetch(url, token=None):
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def discover(base_url, issuer):
    status, headers, body = fetch(base_url + "/.well-known/openid-configuration")
    expect(status == 200, f"openid-configuration answered {status}")
    expect("max-age=" in (headers.get("Cache-Control") or ""), "openid-configuration has no Cache-Control max-age")
    discovery = json.loads(body)
    expect(discovery.get("issuer") == issuer, f"discovery issuer {discovery.get('issuer')!r}, expected {issuer!r}")
    algorithms = discovery.get("id_token_signing_alg_values_supported") or []
    expect(algorithms and set(algorithms) <= {"ES256", "RS256", "EdDSA"}, f"unexpected algorithms {algorithms}")
    status, headers, body = fetch(discovery["jwks_uri"])
    expect(status == 200, f"jwks_uri answered {status}")
    expect("max-age=" in (headers.get("Cache-Control") or ""), "jwks.json has no Cache-Control max-age")
    jwks = json.loads(body)
    for key in jwks["keys"]:
        expect(key.get("use") == "sig" and key.get("alg") in algorithms, f"published key {key} is not listed")
    return discovery, algorithms, jwks, body


def verify_with_pyjwt(token, discovery, algorithms, audience, leeway):
    key = jwt.PyJWKClient(discovery["jwks_uri"], cache_keys=True).get_signing_key_from_jwt(token)
    return jwt.decode(
        token, key.key, algorithms=algorithms, issuer=discovery["issuer"], audience=audience, leeway=leeway,
        options={"require": ["exp", "iat", "iss", "aud", "sub"]},
    )


def verify_with_joserfc(token, discovery, algorithms, jwks, audience, leeway):
    decoded = jose_jwt.decode(token, jose_jwk.KeySet.import_key_set(jwks), algorithms=algorithms)
    jose_jwt.JWTClaimsRegistry(
        leeway=leeway,
        iss={"essential": True, "value": discovery["issuer"]},
        aud={"essential": True, "value": audience},
        exp={"essential": True},
        sub={"essential": True},
    ).validate(decoded.claims)
    return decoded.header, decoded.claims


def forgeries(token, algorithms, jwks_bytes):
    head, payload, signature = token.split(".")
    header = json.loads(base64.urlsafe_b64decode(head + "=" * (-len(head) % 4)))
    forged = {}
    none = dict(header, alg="none")
    forged["none"] = b64url(json.dumps(none).encode()) + "." + payload + "."
    hs256 = dict(header, alg="HS256")
    signing_input = b64url(json.dumps(hs256).encode()) + "." + payload
    mac = hmac.new(jwks_bytes, signing_input.encode(), hashlib.sha256).digest()
    forged["HS256 keyed with the JWKS"] = signing_input + "." + b64url(mac)
    for other in ["ES256", "RS256", "EdDSA"]:
        if other != header["alg"]:
            forged[f"{other} over a {header['alg']} signature"] = (
                b64url(json.dumps(dict(header, alg=other)).encode()) + "." + payload + "." + signature
            )
    return forged


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base_url")
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--audience", default="foyer-app")
    parser.add_argument("--leeway", type=int, default=0)
    arguments = parser.parse_args()
    tokens = json.load(sys.stdin)["tokens"]
    try:
        discovery, algorithms, jwks, jwks_bytes = discover(arguments.base_url, arguments.issuer)
        results = []
        for token in tokens:
            claims = verify_with_pyjwt(token, discovery, algorithms, arguments.audience, arguments.leeway)
            header, jose_claims = verify_with_joserfc(
                token, discovery, algorithms, jwks, arguments.audience, arguments.leeway
            )
            expect(claims == jose_claims, "PyJWT and joserfc read different claims")
            results.append({"alg": header["alg"], "kid": header["kid"], "sub": claims["sub"]})
        status, _, _ = fetch(arguments.base_url + "/v1/me", tokens[0])
        expect(status == 200, f"GET /v1/me with the first token answered {status}")
        for name, forged in forgeries(tokens[0], algorithms, jwks_bytes).items():
            status, _, _ = fetch(arguments.base_url + "/v1/me", forged)
            expect(status == 401, f"GET /v1/me with a token forged as {name} answered {status}, not 401")
    except (VerifierFailure, jwt.PyJWTError, urllib.error.URLError, KeyError, ValueError) as failure:
        print(f"verifiers: {type(failure).__name__}: {failure}", file=sys.stderr)
        sys.exit(1)
    except Exception as failure:  # joserfc's errors have no common base outside its package
        print(f"verifiers: {type(failure).__name__}: {failure}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps({"passed": True, "algorithms": algorithms, "tokens": results}))


if __name__ == "__main__":
    main()
