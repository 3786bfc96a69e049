#!/usr/bin/env python3
"""Outside implementations for the tests, driven by ProviderTestKit.swift (next to this file) and by the identity
tests' PyJWTCrossCheckTests.swift.

Reads one JSON request on stdin, writes one JSON response on stdout. Two commands (first argument):

  verify  Checks a Foyer access token with PyJWT (and its `cryptography` backend) against the JWKS identity
          published: {"token", "jwks" (the JSON text), "issuer", "audience"} -> {"valid", "claims", "header", "error",
          "tamperedRejected", "wrongAudienceRejected", "wrongIssuerRejected"}.
  idp     A test identity provider (Apple or Google stand-in): generates RSA-2048 (RS256) and P-256 (ES256) keys, or
          reuses given ones, and signs ID tokens: {"keys": [{"kid", "alg", "pem"?}], "tokens": [{"kid", "claims",
          "header"?}]} -> {"jwks", "keys": [{"kid", "alg", "pem"}], "tokens": [...]}. Only `cryptography` is used.
  serve   Answers `idp` requests, one JSON object per line on stdin, one per line on stdout, until stdin ends (a
          long-lived helper, so a test run starts Python once).

Exit status: 0 on success, 3 if `cryptography` is missing, 4 if PyJWT is missing (verify), 1 on other failures.
"""

import base64
import json
import sys

try:
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
except ImportError as error:
    sys.stderr.write(f"the Python package 'cryptography' is not installed ({error}); run `make deps`\n")
    sys.exit(3)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def int_bytes(value: int, length: int = 0) -> bytes:
    length = max(length, (value.bit_length() + 7) // 8)
    return value.to_bytes(length, "big")


def verify(request: dict) -> dict:
    try:
        import jwt
    except ImportError as error:
        sys.stderr.write(f"the Python package 'PyJWT' is not installed ({error}); run `pip install pyjwt`\n")
        sys.exit(4)
    token, issuer, audience = request["token"], request["issuer"], request["audience"]
    key_set = jwt.PyJWKSet.from_json(request["jwks"])
    header = jwt.get_unverified_header(token)
    key = next(k for k in key_set.keys if k.key_id == header["kid"])

    def attempt(candidate: str, aud: str, iss: str):
        try:
            # Only the algorithm of the published key, never the one the token claims.
            return jwt.decode(candidate, key.key, algorithms=[key.algorithm_name], audience=aud, issuer=iss,
                              options={"require": ["exp", "iat", "iss", "aud", "sub"]}), None
        except jwt.PyJWTError as failure:
            return None, f"{type(failure).__name__}: {failure}"

    claims, error = attempt(token, audience, issuer)
    head, payload, signature = token.split(".")
    forged = json.loads(b64url_decode(payload))
    forged["sub"] = "someone-else"
    tampered = head + "." + b64url(json.dumps(forged).encode()) + "." + signature
    return {
        "valid": claims is not None,
        "claims": claims,
        "header": header,
        "error": error,
        "tamperedRejected": attempt(tampered, audience, issuer)[0] is None,
        "wrongAudienceRejected": attempt(token, audience + "-other", issuer)[0] is None,
        "wrongIssuerRejected": attempt(token, audience, issuer + "-other")[0] is None,
    }


def load_or_generate(spec: dict):
    if spec.get("pem"):
        return serialization.load_pem_private_key(spec["pem"].encode(), password=None)
    if spec["alg"] == "RS256":
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)
    if spec["alg"] == "ES256":
        return ec.generate_private_key(ec.SECP256R1())
    raise ValueError(f"unsupported alg {spec['alg']}")


def public_jwk(kid: str, alg: str, key) -> dict:
    numbers = key.public_key().public_numbers()
    if alg == "RS256":
        return {"kty": "RSA", "kid": kid, "alg": alg, "use": "sig", "n": b64url(int_bytes(numbers.n)),
                "e": b64url(int_bytes(numbers.e))}
    return {"kty": "EC", "kid": kid, "alg": alg, "use": "sig", "crv": "P-256",
            "x": b64url(int_bytes(numbers.x, 32)), "y": b64url(int_bytes(numbers.y, 32))}


def sign(alg: str, key, signing_input: bytes) -> bytes:
    if alg == "RS256":
        return key.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    r, s = decode_dss_signature(key.sign(signing_input, ec.ECDSA(hashes.SHA256())))
    return int_bytes(r, 32) + int_bytes(s, 32)


def idp(request: dict) -> dict:
    keys = {}
    for spec in request["keys"]:
        keys[spec["kid"]] = (spec["alg"], load_or_generate(spec))
    tokens = []
    for spec in request["tokens"]:
        alg, key = keys[spec["kid"]]
        header = {"alg": alg, "kid": spec["kid"], "typ": "JWT"}
        header.update(spec.get("header") or {})
        signing_input = (b64url(json.dumps(header, separators=(",", ":")).encode()) + "."
                         + b64url(json.dumps(spec["claims"], separators=(",", ":")).encode()))
        tokens.append(signing_input + "." + b64url(sign(alg, key, signing_input.encode())))
    pems = [{"kid": kid, "alg": alg, "pem": key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()}
        for kid, (alg, key) in keys.items()]
    return {"jwks": {"keys": [public_jwk(kid, alg, key) for kid, (alg, key) in keys.items()]},
            "keys": pems, "tokens": tokens}


def serve() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            response = idp(json.loads(line))
        except Exception as error:  # answer the request, keep serving
            response = {"error": f"{type(error).__name__}: {error}"}
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()


def main() -> None:
    command = sys.argv[1] if len(sys.argv) > 1 else ""
    if command == "serve":
        serve()
        return
    request = json.load(sys.stdin)
    if command == "verify":
        response = verify(request)
    elif command == "idp":
        response = idp(request)
    else:
        sys.stderr.write("usage: identity_check.py verify|idp < request.json, or identity_check.py serve\n")
        sys.exit(1)
    json.dump(response, sys.stdout)


if __name__ == "__main__":
    main()
