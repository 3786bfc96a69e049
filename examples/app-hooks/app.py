#!/usr/bin/env python3
"""An app backend beside Foyer, with the standard library only: it keeps its users' transactions in its own SQLite
file, counts them against the user's plan in Foyer, and answers Foyer's merge and delete hooks.

  POST /transactions  {"id": "<unique>"}, with the user's Foyer access token (Authorization: Bearer ...): consumes
      one `transactions` for the user in Foyer (POST /v1/me/quota/transactions/consume, the id as Idempotency-Key),
      then stores the row. A guest over its limit gets Foyer's 403 quota-exceeded problem as it is.
  POST /foyer/merge   user.merging: the guest's rows become the account's, before Foyer deletes the guest.
  POST /foyer/delete  user.deleting: the user's rows are deleted, before Foyer reports the deletion complete.

Foyer signs the hooks as Standard Webhooks and retries them with the same webhook-id until one answers 2xx, so
the work is idempotent: moving or deleting rows twice does nothing more.

  FOYER_HOOK_SECRET=whsec_... python3 app.py --database app.sqlite --port 8090 --foyer http://127.0.0.1:7480

and start the gateway and cleanup with --merge-hook-url http://127.0.0.1:8090/foyer/merge,
--delete-hook-url http://127.0.0.1:8090/foyer/delete and --hook-secret-file (a file holding the same secret).
"""

import argparse, base64, hashlib, hmac, http.server, json, os, sqlite3, time, urllib.error, urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("--database", required=True)
parser.add_argument("--port", type=int, default=8090)
parser.add_argument("--foyer", default="http://127.0.0.1:7480", help="the gateway's HTTP API")
arguments = parser.parse_args()
KEY = base64.b64decode(os.environ["FOYER_HOOK_SECRET"].removeprefix("whsec_"))
DB = sqlite3.connect(arguments.database, isolation_level=None, check_same_thread=False)
DB.execute("CREATE TABLE IF NOT EXISTS transactions (id TEXT PRIMARY KEY, uid TEXT NOT NULL)")


def verified(headers, body):
    """Standard Webhooks: one of the v1 signatures is HMAC-SHA256 of "id.timestamp.body"; the time is recent."""
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(KEY, signed, hashlib.sha256).digest()).decode()
    fresh = abs(time.time() - int(headers["webhook-timestamp"])) < 300
    return fresh and any(hmac.compare_digest(s[3:], expected) for s in headers["webhook-signature"].split() if s[:3] == "v1,")


def consume(authorization, key):
    """Foyer's answer to consuming one transaction for the token's user: (status, JSON body)."""
    request = urllib.request.Request(
        arguments.foyer + "/v1/me/quota/transactions/consume", data=b'{"amount": 1}', method="POST",
        headers={"Authorization": authorization, "Idempotency-Key": key, "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


class App(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path == "/transactions":
            transaction = json.loads(body)["id"]
            status, answer = consume(self.headers.get("Authorization", ""), "tx-" + transaction)
            if status != 200:
                return self.answer(status, answer)
            # Foyer accepted the token, so its subject is the user (read, not verified again, here).
            claims = self.headers["Authorization"].split(".")[1]
            uid = json.loads(base64.urlsafe_b64decode(claims + "=" * (-len(claims) % 4)))["sub"]
            DB.execute("INSERT OR IGNORE INTO transactions (id, uid) VALUES (?, ?)", (transaction, uid))
            return self.answer(201, answer)
        try:
            if not verified(self.headers, body):
                return self.answer(401, {})
        except (KeyError, ValueError):
            return self.answer(400, {})
        data = json.loads(body)["data"]
        if self.path == "/foyer/merge":
            moved = DB.execute("UPDATE transactions SET uid = ? WHERE uid = ?", (data["targetUid"], data["guestUid"]))
            return self.answer(200, {"moved": moved.rowcount})
        if self.path == "/foyer/delete":
            deleted = DB.execute("DELETE FROM transactions WHERE uid = ?", (data["uid"],))
            return self.answer(200, {"deleted": deleted.rowcount})
        self.answer(404, {})

    def answer(self, status, value):
        payload = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


http.server.ThreadingHTTPServer(("127.0.0.1", arguments.port), App).serve_forever()
