#!/usr/bin/env python3
"""The guest journey over Foyer's HTTP API, driven by a client that is not Foyer's.

    python3 Tests/http/journey.py http://127.0.0.1:7480 [--spec docs/openapi.yaml] [--audience foyer-app]
    python3 Tests/http/journey.py https://127.0.0.1:7480 --ca-file ca.pem

Guest; 20 puts; the 21st refused with problem+json and its numbers; link an email and password; the 21st
accepted; same uid; a second guest links the same email with onConflict merge and its document moves; then every
other documented operation once (refresh, sign-in, sign-out, a conflict resolved with its ticket, quota, list,
export, import, delete a document, password reset and change, unlinking, an email change, sign-out everywhere,
email links, readiness, the served document, a device key registered and signed in with); delete-account;
the old token is refused. Access tokens are verified with PyJWT's PyJWKClient through /.well-known/jwks.json,
with the issuer from /.well-known/openid-configuration. Every answer is checked against docs/openapi.yaml (openapi_client.py), and the
journey fails unless it called every operation the document lists.

Uses the standard library, PyYAML, PyJWT (with cryptography) and openapi-schema-validator (all installed by
`make deps`). Prints one line per step on stderr and, when the journey passed, one JSON object on stdout
(`{"passed": true, "uid", "email", "mergedGuest"}`: the deleted account, its email and the merged guest); exits 1
with the reason on the first failure (3 when a package is missing).
"""

import argparse
import base64
import hashlib
import json
import os
import secrets
import sys
import ssl
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ beside the sources when openapi_client is imported

try:
    import jwt
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    from openapi_client import Client, JourneyFailure, OpenAPIDocument, expect
except ImportError as missing:
    print(f"missing Python package: {missing.name} (run `make deps`)", file=sys.stderr)
    sys.exit(3)

GUEST_DOCUMENT_LIMIT = 20
SSL_CONTEXT = None  # set from --ca-file: PyJWKClient makes its own context unless given one


def expect_status(response, status, what):
    expect(response.status == status, f"{what}: expected HTTP {status}, got {response!r}")


def expect_problem(response, status, code, what):
    expect_status(response, status, what)
    expect(
        response.media_type == "application/problem+json",
        f"{what}: content type {response.media_type!r}, not problem+json",
    )
    problem = response.json
    expect(problem["status"] == status, f"{what}: problem status {problem['status']}, HTTP {status}")
    if code is not None:
        expect(problem["code"] == code, f"{what}: code {problem['code']!r}, expected {code!r}: {problem}")
        expect(
            problem["type"] == f"https://foyer.dev/problems/{code}",
            f"{what}: type {problem['type']!r}",
        )
    return problem


class TokenVerifier:
    """Verifies access tokens as an app's backend would: keys from jwks_uri, issuer from the discovery document."""

    def __init__(self, client, audience):
        configuration = client.call("getOpenIDConfiguration")
        expect_status(configuration, 200, "openid-configuration")
        discovery = configuration.json
        self.algorithms = discovery["id_token_signing_alg_values_supported"]
        expect(
            self.algorithms and set(self.algorithms) <= {"ES256", "RS256", "EdDSA"},
            f"openid-configuration offers no algorithm or an unexpected one: {discovery}",
        )
        expect(
            discovery["jwks_uri"].endswith("/.well-known/jwks.json"),
            f"jwks_uri {discovery['jwks_uri']!r} is not the well-known path",
        )
        jwks = client.call("getJWKS")
        expect_status(jwks, 200, "jwks.json")
        cache_control = jwks.headers.get("Cache-Control") or ""
        expect("max-age=" in cache_control, f"jwks.json Cache-Control {cache_control!r} has no max-age")
        self.issuer = discovery["issuer"]
        self.audience = discovery.get("audience", audience)
        self.keys = jwt.PyJWKClient(discovery["jwks_uri"], cache_keys=True, ssl_context=SSL_CONTEXT)

    def claims(self, token):
        key = self.keys.get_signing_key_from_jwt(token)
        return jwt.decode(token, key.key, algorithms=self.algorithms, issuer=self.issuer, audience=self.audience)

    def expect_session(self, session, uid, is_anonymous, what):
        claims = self.claims(session["accessToken"])
        expect(claims["sub"] == uid, f"{what}: token subject {claims['sub']!r}, uid {uid!r}")
        expect(
            claims.get("is_anonymous") == is_anonymous,
            f"{what}: token is_anonymous {claims.get('is_anonymous')!r}, expected {is_anonymous}",
        )


def new_key():
    return secrets.token_urlsafe(24)


def base64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def from_base64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def sign_in_guest(client, verifier, what):
    key = new_key()
    created = client.call("guestSignIn", idempotency_key=key)
    expect_status(created, 201, what)
    session = created.json
    expect(session["isAnonymous"] is True, f"{what}: not anonymous: {session}")
    verifier.expect_session(session, session["uid"], True, what)
    return session, key


def put_note(client, token, key, value):
    return client.call(
        "putDocument", token=token, body={"value": value}, idempotency_key=new_key(), collection="notes", key=key
    )


def guest_until_merge(client, verifier, step):
    """The journey up to the merge: returns the account's session, its credential and the merged guest's uid."""
    guest, guest_key = sign_in_guest(client, verifier, "guestSignIn")
    uid = guest["uid"]
    again = client.call("guestSignIn", idempotency_key=guest_key)
    expect_status(again, 201, "guestSignIn retried with the same Idempotency-Key")
    expect(again.json["uid"] == uid, f"a retried guestSignIn made another guest: {again.json['uid']} != {uid}")
    step(f"a guest {uid}, the same on a retry with its Idempotency-Key; its token verifies with PyJWKClient")

    # This stack checks no sign-ups (--sign-up-check none): a proof is ignored, and there are no challenges.
    proved = client.call(
        "guestSignIn", idempotency_key=new_key(), body={"signUpProof": {"type": "siteverify", "token": "unused"}}
    )
    expect_status(proved, 201, "guestSignIn with a proof the deployment does not ask for")
    challenge = client.call("createSignUpChallenge")
    expect_problem(challenge, 400, "failed-precondition", "createSignUpChallenge without a proof-of-work check")
    step("with the check none, a sign-up proof is ignored and createSignUpChallenge is failed-precondition")

    for number in range(1, GUEST_DOCUMENT_LIMIT + 1):
        put = put_note(client, guest["accessToken"], f"n{number}", {"text": f"note {number}"})
        expect_status(put, 200, f"put n{number}")
        expect(put.json["version"] == 1, f"put n{number}: version {put.json['version']}")
    step(f"{GUEST_DOCUMENT_LIMIT} puts")

    refused = put_note(client, guest["accessToken"], "n21", {"text": "one too many"})
    problem = expect_problem(refused, 403, "quota-exceeded", "the 21st put of a guest")
    numbers = {name: problem.get(name) for name in ("counter", "limit", "used", "remaining", "requested")}
    expect(
        numbers == {"counter": "documents", "limit": 20, "used": 20, "remaining": 0, "requested": 1},
        f"the 21st put's numbers: {numbers}",
    )
    step(f"the 21st refused: {refused.status} {problem['code']} {numbers}")

    email = f"journey-{secrets.token_hex(6)}@example.com"
    credential = {"type": "password", "email": email, "password": "a long passphrase " + secrets.token_hex(4)}
    linked = client.call("linkCredential", token=guest["accessToken"], body={"credential": credential})
    expect_status(linked, 200, "linkCredential")
    expect(linked.json["outcome"] == "linked", f"linkCredential: {linked.json}")
    member = linked.json["session"]
    expect(member["uid"] == uid, f"linking changed the uid: {member['uid']} != {uid}")
    expect(member["isAnonymous"] is False, f"still anonymous after linking: {member}")
    verifier.expect_session(member, uid, False, "the linked session")
    step(f"linked {email}: same uid, now a member")

    accepted = put_note(client, member["accessToken"], "n21", {"text": "now it fits"})
    expect_status(accepted, 200, "the 21st put of the member")
    me = client.call("getMe", token=member["accessToken"])
    expect_status(me, 200, "getMe")
    user = me.json["user"]
    expect(
        (user["uid"], user["isAnonymous"], user.get("email"), user["hasPassword"]) == (uid, False, email, True),
        f"getMe after linking: {user}",
    )
    note = client.call("getDocument", token=member["accessToken"], collection="notes", key="n21")
    expect_status(note, 200, "getDocument n21")
    expect(note.json.get("value") == {"text": "now it fits"}, f"n21 reads back as {note.json}")
    step("the 21st accepted; getMe: same uid, member, email and password")

    other, _ = sign_in_guest(client, verifier, "the second guest")
    expect(other["uid"] != uid, "the second guest has the first one's uid")
    draft = put_note(client, other["accessToken"], "draft", {"text": "written as a guest"})
    expect_status(draft, 200, "the second guest's put")
    merged = client.call(
        "linkCredential",
        token=other["accessToken"],
        body={"credential": credential, "onConflict": "merge"},
        idempotency_key=new_key(),
    )
    expect_status(merged, 200, "linkCredential with onConflict merge")
    expect(merged.json["outcome"] == "merged", f"linking the same email with merge: {merged.json}")
    account = merged.json["session"]
    expect(account["uid"] == uid, f"merge signed in to {account['uid']}, not the account {uid}")
    expect(merged.json["mergeReport"]["moved"] == 1, f"merge report: {merged.json['mergeReport']}")
    verifier.expect_session(account, uid, False, "the merged session")
    moved = client.call("getDocument", token=account["accessToken"], collection="notes", key="draft")
    expect_status(moved, 200, "the moved draft")
    expect(moved.json.get("value") == {"text": "written as a guest"}, f"the moved draft reads {moved.json}")
    gone = client.call("getMe", token=other["accessToken"])
    expect_problem(gone, 401, None, "the merged guest's token")
    step(f"a second guest {other['uid']} merged into {uid}: its draft moved, its token is refused")
    return account, credential, other["uid"]


def sessions(client, verifier, account, credential, step):
    """refreshSession, signIn, signOut (a member's and a guest's); returns the account's refreshed session."""
    uid = account["uid"]
    refreshed = client.call("refreshSession", body={"refreshToken": account["refreshToken"]})
    expect_status(refreshed, 200, "refreshSession")
    expect(refreshed.json["uid"] == uid, f"refreshSession answered another user: {refreshed.json}")
    verifier.expect_session(refreshed.json, uid, False, "the refreshed session")
    signed_in = client.call("signIn", body={"credential": credential})
    expect_status(signed_in, 200, "signIn with the password")
    expect(signed_in.json["uid"] == uid, f"signIn answered another user: {signed_in.json}")
    wrong = client.call("signIn", body={"credential": dict(credential, password="not the passphrase")})
    expect_problem(wrong, 401, "invalid-credentials", "signIn with a wrong password")
    signed_out = client.call("signOut", token=signed_in.json["accessToken"], idempotency_key=new_key())
    expect_status(signed_out, 200, "signOut of a member")
    expect(signed_out.json["accountDeleted"] is False, f"a member's signOut deleted it: {signed_out.json}")
    after = client.call("getMe", token=signed_in.json["accessToken"])
    expect_problem(after, 401, None, "a signed-out session's token")
    guest, _ = sign_in_guest(client, verifier, "a guest that signs out")
    guest_out = client.call("signOut", token=guest["accessToken"])
    expect_status(guest_out, 200, "signOut of a guest")
    expect(guest_out.json["accountDeleted"] is True, f"a guest's signOut kept it: {guest_out.json}")
    step("refreshSession, signIn (and a wrong password: 401), signOut of a member and of a guest")
    return refreshed.json


def conflict_resolved(client, verifier, account, credential, step):
    """A guest links the account's email with onConflict fail, then resolves the conflict with its ticket."""
    guest, _ = sign_in_guest(client, verifier, "a guest that meets a conflict")
    failed = client.call("linkCredential", token=guest["accessToken"], body={"credential": credential})
    expect_status(failed, 200, "linkCredential with onConflict fail")
    expect(failed.json["outcome"] == "conflict", f"linking a used email with fail: {failed.json}")
    conflict = failed.json["conflict"]
    expect(conflict["otherUid"] == account["uid"], f"the conflict names {conflict['otherUid']}")
    resolved = client.call(
        "resolveConflict",
        token=guest["accessToken"],
        body={"ticket": conflict["ticket"], "choice": "discard"},
        idempotency_key=new_key(),
    )
    expect_status(resolved, 200, "resolveConflict")
    expect(resolved.json["outcome"] == "discarded", f"resolveConflict with discard: {resolved.json}")
    expect(resolved.json["session"]["uid"] == account["uid"], f"resolveConflict signed in to {resolved.json}")
    step("a conflict (onConflict fail) answered with a ticket, resolved with discard")


def documents(client, token, step):
    """getQuota, checkFeature, consumeCounter, releaseCounter, listDocuments, importDocuments, a binary value, deleteDocument, exportData; returns
    the count."""
    quota = client.call("getQuota", token=token)
    expect_status(quota, 200, "getQuota")
    expect(quota.json["plan"] == "member", f"the account's plan: {quota.json['plan']}")
    feature = client.call("checkFeature", token=token, feature="import")
    expect_status(feature, 200, "checkFeature")
    expect(feature.json == {"plan": "member", "enabled": True}, f"checkFeature import: {feature.json}")
    unknown = client.call("checkFeature", token=token, feature="no-such-feature")
    expect_problem(unknown, 404, "unknown-feature", "checkFeature of a name no plan defines")
    counters = {counter["counter"] for counter in quota.json["counters"]}
    for operation in ("consumeCounter", "releaseCounter"):
        reserved = client.call(
            operation, token=token, idempotency_key=new_key(), body={"amount": 1}, counter="documents"
        )
        expect_problem(reserved, 403, "counter-reserved", f"{operation} of the gateway's own documents")
        nameless = client.call(operation, token=token, idempotency_key=new_key(), counter="no-such-counter")
        expect_problem(nameless, 404, "unknown-counter", f"{operation} of a counter no plan has")
    if "transactions" in counters:  # the plans of `make run` (examples/plans.json)
        key = new_key()
        consumed = client.call("consumeCounter", token=token, idempotency_key=key, counter="transactions")
        expect_status(consumed, 200, "consumeCounter")
        again = client.call("consumeCounter", token=token, idempotency_key=key, counter="transactions")
        expect(again.json == consumed.json, f"a retried consume counts once: {consumed.json}, {again.json}")
        released = client.call("releaseCounter", token=token, idempotency_key=key, counter="transactions")
        expect(released.json["used"] == consumed.json["used"] - 1, f"releaseCounter: {released.json}")
    first = client.call("listDocuments", token=token, query={"pageSize": 5}, collection="notes")
    expect_status(first, 200, "listDocuments")
    expect(len(first.json["documents"]) == 5 and "nextCursor" in first.json, f"a first page of 5: {first.json}")
    second = client.call(
        "listDocuments", token=token, query={"pageSize": 5, "cursor": first.json["nextCursor"]}, collection="notes"
    )
    expect_status(second, 200, "listDocuments, second page")
    keys = [document["key"] for document in first.json["documents"] + second.json["documents"]]
    expect(keys == sorted(keys) and len(set(keys)) == 10, f"two pages in key order, no repeats: {keys}")
    binary = bytes([0xFF, 0x00, 0xFE])
    imported = client.call(
        "importDocuments",
        token=token,
        idempotency_key=new_key(),
        body={
            "documents": [
                {"collection": "imported", "key": "json", "value": [1, 2, 3]},
                {"collection": "imported", "key": "bin", "valueBase64": base64url(binary)},
                {"collection": "imported", "key": "gone", "value": "deleted next"},
            ]
        },
    )
    expect_status(imported, 200, "importDocuments")
    expect(imported.json["written"] == 3, f"importDocuments: {imported.json}")
    read = client.call("getDocument", token=token, collection="imported", key="bin")
    expect_status(read, 200, "getDocument of a binary value")
    expect(from_base64url(read.json.get("valueBase64", "")) == binary, f"a binary value reads {read.json}")
    deleted = client.call("deleteDocument", token=token, collection="imported", key="gone")
    expect(deleted.status == 200 and deleted.json["deleted"] is True, f"deleteDocument: {deleted!r}")
    again = client.call("deleteDocument", token=token, collection="imported", key="gone")
    expect(again.status == 200 and again.json["deleted"] is False, f"deleteDocument again: {again!r}")
    missing = client.call("getDocument", token=token, collection="imported", key="gone")
    expect_problem(missing, 404, "not-found", "getDocument of a deleted document")
    exported, cursor = [], None
    for _ in range(100):
        page = client.call("exportData", token=token, query={"pageSize": 10, **({"cursor": cursor} if cursor else {})})
        expect_status(page, 200, "exportData")
        exported += [(document["collection"], document["key"]) for document in page.json["documents"]]
        cursor = page.json.get("nextCursor")
        if cursor is None:
            break
    expect(exported == sorted(exported), f"exportData is not in collection, key order: {exported}")
    step(f"getQuota, checkFeature, consumeCounter, releaseCounter, two pages of listDocuments, importDocuments (a binary value), deleteDocument, "
         f"exportData: {len(exported)} documents")
    return len(exported)


def account_management(client, verifier, account, credential, step):
    """startPasswordReset (202 for any address), completePasswordReset with a made-up token, changePassword,
    unlinkCredential of the last credential (409), startEmailChange, completeEmailChange with a made-up token,
    signOutEverywhere; returns a session signed in afresh."""
    uid = account["uid"]
    challenge = base64url(hashlib.sha256(secrets.token_bytes(32)).digest())
    for email in (credential["email"], f"nobody-{secrets.token_hex(6)}@example.com"):
        started = client.call("startPasswordReset", body={"email": email, "verifierChallenge": challenge})
        expect_status(started, 202, "startPasswordReset")
    made_up = client.call(
        "completePasswordReset", body={"token": secrets.token_urlsafe(32), "newPassword": "a made-up reset"}
    )
    expect_problem(made_up, 401, "invalid-token", "completePasswordReset with a token never sent")
    wrong = client.call(
        "changePassword",
        token=account["accessToken"],
        body={"currentPassword": "not the passphrase", "newPassword": "a changed passphrase"},
    )
    expect_problem(wrong, 401, "invalid-credentials", "changePassword with a wrong current password")
    changed = client.call(
        "changePassword",
        token=account["accessToken"],
        body={"currentPassword": credential["password"], "newPassword": "a changed passphrase"},
    )
    expect_status(changed, 200, "changePassword")
    verifier.expect_session(changed.json, uid, False, "the session changePassword answered")
    credential["password"] = "a changed passphrase"
    old = client.call("getMe", token=account["accessToken"])
    expect_problem(old, 401, None, "the token from before the password change")
    last = client.call("unlinkCredential", token=changed.json["accessToken"], credential="email")
    expect_problem(last, 409, "last-credential", "unlinkCredential of the only credential")
    asked = client.call(
        "startEmailChange",
        token=changed.json["accessToken"],
        body={
            "newEmail": f"moved-{secrets.token_hex(6)}@example.com",
            "currentPassword": credential["password"],
            "verifierChallenge": challenge,
        },
    )
    expect_status(asked, 202, "startEmailChange")
    made_up_change = client.call("completeEmailChange", body={"token": secrets.token_urlsafe(32)})
    expect_problem(made_up_change, 401, "invalid-token", "completeEmailChange with a token never sent")
    everywhere = client.call("signOutEverywhere", token=changed.json["accessToken"])
    expect_status(everywhere, 200, "signOutEverywhere")
    gone = client.call("getMe", token=changed.json["accessToken"])
    expect_problem(gone, 401, None, "a token after signOutEverywhere")
    signed_in = client.call("signIn", body={"credential": credential})
    expect_status(signed_in, 200, "signIn with the changed password")
    step("startPasswordReset (known and unknown: 202), a made-up reset token 401, changePassword (a wrong one 401), "
         "unlinkCredential of the last credential 409, startEmailChange 202, a made-up change token 401, "
         "signOutEverywhere; signed in with the new password")
    return signed_in.json


def email_links_and_fixed_paths(client, spec_path, step):
    """startEmailLink (202), completeEmailLink with a token never sent (a problem), readiness, the document."""
    # PKCE as RFC 7636 has it: the challenge is S256 of the verifier's text.
    verifier = secrets.token_urlsafe(32)
    started = client.call(
        "startEmailLink",
        body={
            "purpose": "sign-in",
            "email": f"link-{secrets.token_hex(6)}@example.com",
            "verifierChallenge": base64url(hashlib.sha256(verifier.encode("ascii")).digest()),
        },
    )
    expect_status(started, 202, "startEmailLink")
    completed = client.call(
        "completeEmailLink",
        body={"purpose": "sign-in", "token": secrets.token_urlsafe(32), "verifier": verifier},
    )
    expect(400 <= completed.status < 500, f"completeEmailLink with a token never sent: {completed!r}")
    ready = client.call("getReadiness")
    expect_status(ready, 200, "readyz")
    served = client.call("getOpenAPIDocument")
    expect_status(served, 200, "/openapi.yaml")
    with open(spec_path, "rb") as file:
        expect(served.raw == file.read(), "/openapi.yaml is not docs/openapi.yaml")
    step(f"startEmailLink 202; a made-up link token {completed.status} {completed.json['code']}; readyz; "
         "/openapi.yaml is docs/openapi.yaml")


def device_key_signature(private_key, challenge, purpose):
    """The raw r || s signature of the device-key message for a challenge answer (docs/PROTOCOL.md §15)."""
    message = b"foyer-device-key-v1\0" + purpose + b"\0" + challenge["issuer"].encode() + b"\0"
    message += from_base64url(challenge["challenge"])
    r, s = decode_dss_signature(private_key.sign(message, ec.ECDSA(hashes.SHA256())))
    return base64url(r.to_bytes(32, "big") + s.to_bytes(32, "big"))


def device_keys(client, verifier, step):
    """A guest registers a device key, then a client without tokens signs in with it to the same guest."""
    guest, _ = sign_in_guest(client, verifier, "guestSignIn for a device key")
    stored = put_note(client, guest["accessToken"], "device", "kept")
    expect_status(stored, 200, "putDocument before the device key")
    private_key = ec.generate_private_key(ec.SECP256R1())
    public_key = private_key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
    challenge = client.call("createDeviceKeyChallenge", body={"purpose": "register"})
    expect_status(challenge, 200, "createDeviceKeyChallenge register")
    registered = client.call(
        "registerDeviceKey",
        token=guest["accessToken"],
        body={
            "publicKey": base64url(public_key),
            "challenge": challenge.json["challenge"],
            "signature": device_key_signature(private_key, challenge.json, b"register"),
        },
    )
    expect_status(registered, 200, "registerDeviceKey")
    key_id = base64url(hashlib.sha256(public_key).digest())
    expect(registered.json["keyId"] == key_id, f"registerDeviceKey: key id {registered.json}, expected {key_id}")
    challenge = client.call("createDeviceKeyChallenge", body={"purpose": "signIn"})
    expect_status(challenge, 200, "createDeviceKeyChallenge signIn")
    credential = {
        "type": "deviceKey",
        "keyId": key_id,
        "challenge": challenge.json["challenge"],
        "signature": device_key_signature(private_key, challenge.json, b"sign-in"),
    }
    signed_in = client.call("signIn", body={"credential": credential})
    expect_status(signed_in, 200, "signIn with the device key")
    expect(signed_in.json["uid"] == guest["uid"], f"the device key signed in to another user: {signed_in.json}")
    verifier.expect_session(signed_in.json, guest["uid"], True, "signIn with the device key")
    replayed = client.call("signIn", body={"credential": credential})
    expect_problem(replayed, 401, "invalid-token", "signIn with a spent device-key challenge")
    step("device key: registered by a guest, signs in to the same uid; a spent challenge is refused")


def run(client, audience, spec_path, step):
    health = client.call("getHealth")
    expect_status(health, 200, "healthz")
    verifier = TokenVerifier(client, audience)
    step(f"openid-configuration and jwks.json: issuer {verifier.issuer!r}")

    account, credential, merged_guest = guest_until_merge(client, verifier, step)
    uid = account["uid"]
    account = sessions(client, verifier, account, credential, step)
    conflict_resolved(client, verifier, account, credential, step)
    held = documents(client, account["accessToken"], step)
    account = account_management(client, verifier, account, credential, step)
    email_links_and_fixed_paths(client, spec_path, step)
    device_keys(client, verifier, step)

    deleted = client.call("deleteAccount", token=account["accessToken"], idempotency_key=new_key())
    expect_status(deleted, 200, "deleteAccount")
    expect(
        deleted.json["documentsDeleted"] == held,
        f"deleteAccount deleted {deleted.json['documentsDeleted']} documents, the account held {held}",
    )
    refused_after = client.call("getMe", token=account["accessToken"])
    expect_problem(refused_after, 401, None, "the deleted account's token")
    challenge = refused_after.headers.get("WWW-Authenticate") or ""
    expect(challenge.startswith("Bearer"), f"401 without a Bearer challenge: {challenge!r}")
    unknown = client.request("GET", "/v1/no-such-operation")
    expect_problem(unknown, 404, "not-found", "an unknown path")
    step(f"deleteAccount: {held} documents; the old token is refused ({refused_after.json['code']})")

    uncalled = client.uncalled_operations()
    expect(not uncalled, f"docs/openapi.yaml documents operations this journey never called: {uncalled}")
    return {"passed": True, "uid": uid, "email": credential["email"], "mergedGuest": merged_guest}


def main():
    parser = argparse.ArgumentParser(
        description="The guest journey over Foyer's HTTP API, checked against its OpenAPI document."
    )
    parser.add_argument("base_url", help="the gateway's HTTP listener, e.g. http://127.0.0.1:7480")
    parser.add_argument(
        "--spec",
        default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "openapi.yaml"),
        help="the OpenAPI document to check answers against (default: docs/openapi.yaml)",
    )
    parser.add_argument("--audience", default="foyer-app", help="the access tokens' audience (default foyer-app)")
    parser.add_argument(
        "--ca-file",
        help="PEM certificates to trust for an https:// base URL (a private CA); default: the system's trust store",
    )
    arguments = parser.parse_args()
    if arguments.ca_file:
        # The OpenAPI client's urlopen goes through this opener; PyJWKClient takes the context itself.
        global SSL_CONTEXT
        SSL_CONTEXT = ssl.create_default_context(cafile=arguments.ca_file)
        urllib.request.install_opener(urllib.request.build_opener(urllib.request.HTTPSHandler(context=SSL_CONTEXT)))
    client = Client(arguments.base_url, OpenAPIDocument(arguments.spec))
    try:
        summary = run(
            client,
            arguments.audience,
            arguments.spec,
            lambda text: print(f"ok  {text}", file=sys.stderr, flush=True),
        )
    except (JourneyFailure, jwt.PyJWTError, urllib.error.URLError, KeyError, TypeError, ValueError) as failure:
        print(f"FAIL {type(failure).__name__}: {failure}", file=sys.stderr, flush=True)
        return 1
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
