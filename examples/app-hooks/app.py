#!/usr/bin/env python3
"""An app backend's side of Foyer's merge and delete hooks, with the standard library only.

The app keeps its own rows (here, a `transactions` table in its own SQLite file) keyed by Foyer's uid. Foyer calls
  POST /foyer/merge   {"type": "user.merging", "data": {"guestUid", "targetUid", "operationId", "policy"}}
  POST /foyer/delete  {"type": "user.deleting", "data": {"uid", "operationId", "reason"}}
signed as Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature), and waits for a 2xx before it
deletes the guest or reports the deletion complete. Foyer retries until then, with the same webhook-id, so the work
must be idempotent; here it is (moving or deleting rows twice does nothing more).

  FOYER_HOOK_SECRET=whsec_... python3 app.py --database app.sqlite --port 8090

and start the gateway and cleanup with --merge-hook-url http://127.0.0.1:8090/foyer/merge,
--delete-hook-url http://127.0.0.1:8090/foyer/delete and --hook-secret-file (a file holding the same secret).
"""

import argparse, base64, hashlib, hmac, http.server, json, os, sqlite3, time

parser = argparse.ArgumentParser()
parser.add_argument("--database", required=True)
parser.add_argument("--port", type=int, default=8090)
arguments = parser.parse_args()
KEY = base64.b64decode(os.environ["FOYER_HOOK_SECRET"].removeprefix("whsec_"))
DB = sqlite3.connect(arguments.database, isolation_level=None, check_same_thread=False)
DB.execute("CREATE TABLE IF NOT EXISTS transactions (id INTEGER PRIMARY KEY, uid TEXT NOT NULL, amount INTEGER)")


def verified(headers, body):
    """Standard Webhooks: one of the v1 signatures is HMAC-SHA256 of "id.timestamp.body"; the time is recent."""
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(KEY, signed, hashlib.sha256).digest()).decode()
    fresh = abs(time.time() - int(headers["webhook-timestamp"])) < 300
    return fresh and any(hmac.compare_digest(s[3:], expected) for s in headers["webhook-signature"].split() if s[:3] == "v1,")


class Hooks(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        try:
            if not verified(self.headers, body):
                return self.answer(401, {})
        except (KeyError, ValueError):
            return self.answer(400, {})
        data = json.loads(body)["data"]
        if self.path == "/foyer/merge":
            # The guest's rows become the account's, in one statement: a retry finds nothing left to move.
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


http.server.ThreadingHTTPServer(("127.0.0.1", arguments.port), Hooks).serve_forever()
