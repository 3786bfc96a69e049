#!/usr/bin/env python3
"""Outside-implementation check for FoyerCrypto, driven by CrossCheckTests.swift.

Reads one JSON request on stdin and writes one JSON response on stdout. All binary values are unpadded
base64url. The request carries an Ed25519 JWT and public key made by Swift, plus scrypt, Argon2id and HMAC
inputs; the response says whether Python's `cryptography` accepts the JWT, and carries keys, tokens and derived
values made by Python (Argon2id by `argon2-cffi`) for Swift to check.

Exit status: 0 on success, 3 if the `cryptography` or `argon2-cffi` package is missing, 1 on any other failure
(message on stderr).
"""

import base64
import json
import sys

try:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import hashes, hmac
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    from argon2.low_level import Type, hash_secret_raw
except ImportError as error:
    sys.stderr.write(
        f"a Python package ('cryptography' or 'argon2-cffi') is not installed ({error}); run `make deps`\n"
    )
    sys.exit(3)


def b64url_encode(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def integer_bytes(value: int, length: int = 0) -> bytes:
    length = max(length, (value.bit_length() + 7) // 8)
    return value.to_bytes(length, "big")


def verify_swift_token(token: str, public_key: bytes) -> bool:
    """Verifies an EdDSA compact JWS made by Swift, checking its header as well as its signature."""
    header_segment, payload_segment, signature_segment = token.split(".")
    header = json.loads(b64url_decode(header_segment))
    if header.get("alg") != "EdDSA":
        return False
    key = ed25519.Ed25519PublicKey.from_public_bytes(public_key)
    try:
        key.verify(b64url_decode(signature_segment), f"{header_segment}.{payload_segment}".encode("ascii"))
    except InvalidSignature:
        return False
    return True


def compact_jws(alg: str, kid: str, payload: bytes, sign) -> str:
    header = json.dumps({"alg": alg, "kid": kid, "typ": "JWT"}, separators=(",", ":")).encode()
    signing_input = f"{b64url_encode(header)}.{b64url_encode(payload)}"
    return f"{signing_input}.{b64url_encode(sign(signing_input.encode('ascii')))}"


def python_tokens(payload: bytes):
    """Generates one key of each type, signs `payload` as a JWT with each, and returns the JWK Set and tokens."""
    ed_key = ed25519.Ed25519PrivateKey.generate()
    rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ec_key = ec.generate_private_key(ec.SECP256R1())

    def sign_es256(data: bytes) -> bytes:
        r, s = decode_dss_signature(ec_key.sign(data, ec.ECDSA(hashes.SHA256())))
        return integer_bytes(r, 32) + integer_bytes(s, 32)  # JWS form: fixed-width r || s

    ed_public = ed_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    rsa_numbers = rsa_key.public_key().public_numbers()
    ec_numbers = ec_key.public_key().public_numbers()
    jwks = {
        "keys": [
            {"kty": "OKP", "crv": "Ed25519", "kid": "py-ed25519", "x": b64url_encode(ed_public)},
            {"kty": "RSA", "kid": "py-rsa", "alg": "RS256", "n": b64url_encode(integer_bytes(rsa_numbers.n)),
             "e": b64url_encode(integer_bytes(rsa_numbers.e))},
            {"kty": "EC", "crv": "P-256", "kid": "py-p256", "x": b64url_encode(integer_bytes(ec_numbers.x, 32)),
             "y": b64url_encode(integer_bytes(ec_numbers.y, 32))},
        ]
    }
    tokens = {
        "EdDSA": compact_jws("EdDSA", "py-ed25519", payload, ed_key.sign),
        "RS256": compact_jws("RS256", "py-rsa", payload,
                             lambda data: rsa_key.sign(data, padding.PKCS1v15(), hashes.SHA256())),
        "ES256": compact_jws("ES256", "py-p256", payload, sign_es256),
    }
    return jwks, tokens


def main() -> None:
    request = json.load(sys.stdin)

    swift_jwt = request["swiftJWT"]
    swift_token_valid = verify_swift_token(swift_jwt["token"], b64url_decode(swift_jwt["publicKey"]))
    # A copy with the last signature byte changed must be rejected, or the check above proves nothing.
    head, _, signature = swift_jwt["token"].rpartition(".")
    tampered = bytearray(b64url_decode(signature))
    tampered[-1] ^= 0x01
    tampered_rejected = not verify_swift_token(f"{head}.{b64url_encode(bytes(tampered))}",
                                               b64url_decode(swift_jwt["publicKey"]))

    jwks, tokens = python_tokens(b64url_decode(request["payload"]))

    scrypt_request = request["scrypt"]
    derived = Scrypt(
        salt=b64url_decode(scrypt_request["salt"]),
        length=scrypt_request["length"],
        n=1 << scrypt_request["logN"],
        r=scrypt_request["r"],
        p=scrypt_request["p"],
    ).derive(b64url_decode(scrypt_request["password"]))

    argon2_request = request["argon2id"]
    argon2_derived = hash_secret_raw(
        b64url_decode(argon2_request["password"]),
        b64url_decode(argon2_request["salt"]),
        time_cost=argon2_request["iterations"],
        memory_cost=argon2_request["memoryKiB"],
        parallelism=argon2_request["parallelism"],
        hash_len=argon2_request["length"],
        type=Type.ID,
    )

    mac = hmac.HMAC(b64url_decode(request["hmac"]["key"]), hashes.SHA256())
    mac.update(b64url_decode(request["hmac"]["message"]))

    json.dump(
        {
            "swiftTokenValid": swift_token_valid,
            "swiftTamperedTokenRejected": tampered_rejected,
            "jwks": jwks,
            "tokens": tokens,
            "scrypt": b64url_encode(derived),
            "argon2id": b64url_encode(argon2_derived),
            "hmac": b64url_encode(mac.finalize()),
        },
        sys.stdout,
    )


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # report any failure to the Swift test in one line
        sys.stderr.write(f"crosscheck.py failed: {type(error).__name__}: {error}\n")
        sys.exit(1)
