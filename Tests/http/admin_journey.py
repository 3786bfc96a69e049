#!/usr/bin/env python3
"""Every operation of the admin API, driven by a client that is not Foyer's.

    echo foyer_admin_... | python3 Tests/http/admin_journey.py ADMIN_URL API_URL

ADMIN_URL is the gateway's admin listener, API_URL its client HTTP listener. The admin key is read from stdin,
never from the command line (which other users of the machine can see). A guest is made through the client API, given a document and an email
and password; then the admin API finds it by uid and by email, lists it, changes its plan, revokes its sessions
(its access token is refused at once), makes, uses and revokes a second admin key, rotates the signing key, deletes
the user, and reads the deletion records and the audit log. Every admin answer is checked against
docs/admin-openapi.yaml and every client answer against docs/openapi.yaml (openapi_client.py); the journey fails
unless it called every admin operation the document lists.

Prints one line per step on stderr and, when it passed, one JSON object on stdout
(`{"passed": true, "uid", "email", "createdKeyID"}`); exits 1 with the reason on the first failure (3 when a
package is missing).
"""

import base64
import json
import secrets
import sys
from pathlib import Path

sys.dont_write_bytecode = True

try:
    from openapi_client import Client, JourneyFailure, OpenAPIDocument, expect
except ImportError as missing:
    print(f"missing Python package: {missing.name} (run `make deps`)", file=sys.stderr)
    sys.exit(3)

DOCS = Path(__file__).resolve().parent.parent.parent / "docs"


def step(text):
    print(f"  {text}", file=sys.stderr)


def expect_status(response, status, what):
    expect(response.status == status, f"{what}: expected HTTP {status}, got {response!r}")


def expect_problem(response, status, code, what):
    expect_status(response, status, what)
    expect(response.json.get("code") == code, f"{what}: expected {code}, got {response!r}")
    return response.json


def member_through_client_api(api):
    """A guest with one document, then linked to an email and password: its uid, email and access token."""
    created = api.call("guestSignIn", idempotency_key=secrets.token_urlsafe(18))
    expect_status(created, 201, "guestSignIn")
    guest = created.json
    put = api.call(
        "putDocument",
        token=guest["accessToken"],
        body={"value": {"text": "kept by the admin journey"}},
        idempotency_key=secrets.token_urlsafe(18),
        collection="notes",
        key="first",
    )
    expect_status(put, 200, "putDocument")
    email = f"Admin-{secrets.token_hex(5)}@Example.com"
    credential = {"type": "password", "email": email, "password": "a long passphrase " + secrets.token_hex(4)}
    linked = api.call("linkCredential", token=guest["accessToken"], body={"credential": credential})
    expect_status(linked, 200, "linkCredential")
    return guest["uid"], email, linked.json["session"]["accessToken"], linked.json["session"]["refreshToken"]


def claims(access_token):
    """The payload of a JWT, read without verifying it (the client API checks the signature)."""
    payload = access_token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def journey(admin, api, key):
    refused = admin.call("getCounts")
    expect_problem(refused, 401, "unauthenticated", "getCounts without a key")
    forged = admin.call("getCounts", token="foyer_admin_0000000000000000_" + "A" * 43)
    expect_problem(forged, 401, "unauthenticated", "getCounts with an unknown key")
    counts = admin.call("getCounts", token=key)
    expect_status(counts, 200, "getCounts")
    step(f"no key and a forged key: 401; counts: {counts.json['guests']} guests, {counts.json['members']} members")

    uid, email, access_token, refresh_token = member_through_client_api(api)
    expect(claims(access_token).get("plan") == "member", f"a member's token: {claims(access_token)}")
    expect(claims(access_token).get("roles") == [], f"a member's token: {claims(access_token)}")
    step(f"a member {uid} made through the client API, with one document")

    user = admin.call("getUser", token=key, uid=uid)
    expect_status(user, 200, "getUser")
    expect(user.json["uid"] == uid and user.json["isAnonymous"] is False, f"getUser: {user.json}")
    expect(user.json["hasPassword"] is True and user.json["liveSessions"] >= 1, f"getUser: {user.json}")
    expect(user.json.get("plan") == "member", f"a linked user's plan: {user.json}")
    found = admin.call("listUsers", token=key, query={"email": email.lower()})
    expect_status(found, 200, "listUsers by email")
    expect(found.json["uid"] == uid, f"found by email: {found.json}")
    nobody = admin.call("listUsers", token=key, query={"email": "nobody-" + secrets.token_hex(4) + "@example.com"})
    expect_problem(nobody, 404, "user-not-found", "an unknown email")
    step("found by uid and by email (any case); an unknown email is 404")

    first = admin.call("listUsers", token=key, query={"kind": "members", "order": "created", "newest": "true", "limit": 1})
    expect_status(first, 200, "listUsers")
    expect(len(first.json["users"]) == 1, f"one user per page: {first.json}")
    pages = [first.json]
    while pages[-1]["next"] is not None and len(pages) < 50:
        page = admin.call(
            "listUsers",
            token=key,
            query={"kind": "members", "order": "created", "newest": "true", "limit": 1, "after": pages[-1]["next"]},
        )
        expect_status(page, 200, "listUsers, a following page")
        pages.append(page.json)
    listed = [user["uid"] for page in pages for user in page["users"]]
    expect(uid in listed, f"{uid} is not among the members listed: {listed}")
    expect(len(listed) == len(set(listed)), f"a user was listed twice: {listed}")
    step(f"listed one member per page: {len(listed)} members, {uid} among them, none twice")

    changed = admin.call("changePlan", token=key, body={"plan": "guest"}, uid=uid)
    expect_status(changed, 200, "changePlan")
    expect(changed.json == {"plan": "guest", "previousPlan": "member"}, f"changePlan: {changed.json}")
    unknown = admin.call("changePlan", token=key, body={"plan": "no-such-plan"}, uid=uid)
    expect(unknown.status == 400, f"an unknown plan: {unknown!r}")
    expect(admin.call("getUser", token=key, uid=uid).json.get("plan") == "guest", "the plan did not change")
    step("plan changed member -> guest; an unknown plan is refused")

    roles = admin.call("setRoles", token=key, body={"roles": ["editor", "app:beta", "editor"]}, uid=uid)
    expect_status(roles, 200, "setRoles")
    expect(roles.json == {"roles": ["app:beta", "editor"]}, f"setRoles: {roles.json}")
    bad = admin.call("setRoles", token=key, body={"roles": ["Editor"]}, uid=uid)
    expect_problem(bad, 400, "invalid-argument", "a role with a capital")
    expect(admin.call("getUser", token=key, uid=uid).json.get("roles") == ["app:beta", "editor"], "getUser roles")
    refreshed = api.call("refreshSession", body={"refreshToken": refresh_token})
    expect_status(refreshed, 200, "refreshSession")
    fresh = claims(refreshed.json["accessToken"])
    expect(fresh.get("plan") == "guest" and fresh.get("roles") == ["app:beta", "editor"], f"refreshed claims: {fresh}")
    step("roles set (sorted, duplicates dropped; a bad name refused); the next access token names the plan and roles")

    revoked = admin.call("revokeSessions", token=key, uid=uid)
    expect_status(revoked, 200, "revokeSessions")
    me = api.call("getMe", token=access_token)
    expect(me.status == 401, f"the revoked session's token still works: {me!r}")
    expect(admin.call("getUser", token=key, uid=uid).json["liveSessions"] == 0, "sessions left after revocation")
    step("sessions revoked: the member's access token is refused at once, no live session left")

    created = admin.call("createAdminKey", token=key, body={"name": "journey-second"})
    expect_status(created, 201, "createAdminKey")
    second = created.json["key"]
    expect(admin.call("getCounts", token=second).status == 200, "the new admin key does not work")
    keys = admin.call("listAdminKeys", token=key)
    expect_status(keys, 200, "listAdminKeys")
    expect(created.json["keyID"] in [k["keyID"] for k in keys.json["keys"]], f"listAdminKeys: {keys.json}")
    expect("foyer_admin_" not in json.dumps(keys.json), "listAdminKeys shows a key")
    gone = admin.call("revokeAdminKey", token=key, keyID=created.json["keyID"])
    expect_status(gone, 200, "revokeAdminKey")
    expect("revokedAt" in gone.json, f"revokeAdminKey: {gone.json}")
    expect_problem(admin.call("getCounts", token=second), 401, "unauthenticated", "a revoked admin key")
    step(f"admin key {created.json['keyID']} made, used, listed and revoked: refused at once")

    rotated = admin.call("rotateSigningKey", token=key)
    expect_status(rotated, 200, "rotateSigningKey")
    step(f"signing key rotated: {rotated.json['keyID']}")

    deleted = admin.call("deleteUser", token=key, uid=uid)
    expect_status(deleted, 200, "deleteUser")
    expect(deleted.json == {"documentsDeleted": 1}, f"deleteUser: {deleted.json}")
    expect_problem(admin.call("getUser", token=key, uid=uid), 404, "user-not-found", "the deleted user")
    records = admin.call("listDeletions", token=key, query={"limit": 10})
    expect_status(records, 200, "listDeletions")
    expect(any(r["reason"] == "user-request" for r in records.json["deletions"]), f"listDeletions: {records.json}")
    step("user deleted with its document; getUser is 404; a deletion record exists")

    waiting = admin.call("listOperationsInProgress", token=key, query={"limit": 10})
    expect_status(waiting, 200, "listOperationsInProgress")
    expect(waiting.json == {"operations": []}, f"an operation is still in progress: {waiting.json}")
    expect_problem(
        admin.call("listOperationsInProgress", token=key, query={"limit": 0}), 400, "invalid-argument", "limit 0"
    )
    step("no merge or deletion in progress")

    audit = admin.call("listAudit", token=key, query={"limit": 100})
    expect_status(audit, 200, "listAudit")
    entries = audit.json["actions"]
    actions = {(entry["action"], entry.get("target"), entry.get("outcome")) for entry in entries}
    for expected in [
        ("user.view", uid, "ok"),
        ("user.change-plan", uid, "ok"),
        ("user.set-roles", uid, "ok"),
        ("user.revoke-sessions", uid, "ok"),
        ("user.delete", uid, "ok"),
        ("admin-key.revoke", created.json["keyID"], "ok"),
        ("signing-key.rotate", None, "ok"),
        ("user.find", None, "user-not-found"),
    ]:
        expect(expected in actions, f"the audit log lacks {expected}: {sorted(map(str, actions))}")
    text = json.dumps(entries).lower()
    expect(email.lower() not in text, "the audit log holds the email")
    older = admin.call("listAudit", token=key, query={"limit": 1, "before": entries[0]["id"]})
    expect_status(older, 200, "listAudit before")
    expect(older.json["actions"][0]["id"] < entries[0]["id"], f"listAudit before: {older.json}")
    step(f"the audit log names every action, its target and outcome ({len(entries)} entries), and no email")

    started = api.call(
        "startEmailLink",
        body={"purpose": "sign-in", "email": email, "verifierChallenge": "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"},
    )
    expect_status(started, 202, "startEmailLink")
    outbox = admin.call("listOutbox", token=key, query={"to": email, "limit": 5})
    expect_status(outbox, 200, "listOutbox")
    messages = outbox.json["messages"]
    expect(len(messages) == 1 and messages[0]["to"] == email.lower(), f"listOutbox to {email}: {outbox.json}")
    expect("token=" in messages[0]["body"], f"the sign-in email holds no link: {messages[0]['body']!r}")
    expect_problem(
        admin.call("listOutbox", token=key, query={"limit": 101}), 400, "invalid-argument", "listOutbox limit 101"
    )
    step("the outbox shows the sign-in email with its link, to the operator on loopback")

    events = admin.call("listEvents", token=key, query={"uid": uid, "limit": 10})
    expect_status(events, 200, "listEvents")
    missing = "evt_" + "0" * 32
    expect_problem(admin.call("getEvent", token=key, id=missing), 404, "not-found", "an unknown event")
    expect_problem(admin.call("replayEvent", token=key, id=missing), 404, "not-found", "replaying an unknown event")
    step(f"events of {uid}: {len(events.json['events'])} (none without webhooks); an unknown event is 404")

    uncalled = admin.uncalled_operations()
    expect(not uncalled, f"the journey did not call: {', '.join(uncalled)}")
    return {"passed": True, "uid": uid, "email": email, "createdKeyID": created.json["keyID"]}


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(1)
    key = sys.stdin.readline().strip()
    if not key:
        print("no admin key on stdin", file=sys.stderr)
        sys.exit(1)
    admin = Client(sys.argv[1], OpenAPIDocument(str(DOCS / "admin-openapi.yaml")))
    api = Client(sys.argv[2], OpenAPIDocument(str(DOCS / "openapi.yaml")))
    try:
        result = journey(admin, api, key)
    except JourneyFailure as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        sys.exit(1)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
