"""Schemathesis auth for the client document: every test case gets a new guest's access token, so an operation
that ends the session (sign-out, sign-out everywhere, delete-everything) cannot leave the rest unauthenticated."""
import json
import os
import secrets
import urllib.request

import schemathesis

BASE_URL = os.environ["FOYER_HTTP_BASE_URL"]


def new_guest_token():
    request = urllib.request.Request(
        BASE_URL + "/v1/guests",
        data=b"{}",
        method="POST",
        headers={"Content-Type": "application/json", "Idempotency-Key": secrets.token_urlsafe(18)},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)["accessToken"]


@schemathesis.auth(refresh_interval=None)
class NewGuest:
    def get(self, case, context):
        return new_guest_token()

    def set(self, case, data, context):
        case.headers = case.headers or {}
        case.headers["Authorization"] = "Bearer " + data
