#!/usr/bin/env python3
"""An app's webhook endpoint for Foyer's event tests: receives identity's events on 127.0.0.1 (a free port) and
verifies each as an app would, following Standard Webhooks, with the standard library only:

  webhook-signature holds one or more `v1,<base64>` separated by spaces; one of them must be the base64 of
  HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>"), where key is the base64-decoded part of the secret
  after `whsec_`; webhook-timestamp must be within 5 minutes of now; the body's "id" must equal webhook-id.

A delivery that does not verify is answered 401 and counted in `badSignatures`; one that does is answered with the
current status (200 unless told otherwise) and, when that is 2xx, recorded.

One JSON request a line on stdin, one JSON answer a line on stdout (WebhookTests.swift in
Tests/FoyerIntegrationTests):

  {"op": "start", "secret": "whsec_...", "port": p}   -> {"port": p}   (a free port without "port")
  {"op": "status", "status": 503}            -> {}   answer verified deliveries with this status from now on
  {"op": "hold"}                             -> {}   record every verified delivery but keep its answer (200)
                                                     waiting until "release"
  {"op": "release"}                          -> {}   answer the held deliveries and stop holding
  {"op": "wait", "events": n, "ids": [...], "attempts": k, "held": h, "seconds": s}
        -> {"events": [...], "attempts": a, "badSignatures": b, "held": h}
      waits until at least n distinct event ids were accepted, among them every id of "ids", k deliveries arrived
      and h are held (each 0 or empty when not given), or s seconds (default 45) passed; answers every accepted delivery in arrival order, each
      {"id": webhook-id, "timestamp": webhook-timestamp, "body": the parsed JSON}.
  {"op": "stop"}                             -> {}   and exits

It also stops when stdin closes.
"""

import base64
import hashlib
import hmac
import http.server
import json
import sys
import threading
import time

CONDITION = threading.Condition()
STATE = {"secret": b"", "status": 200, "hold": False, "generation": 0}
ACCEPTED = []
COUNTS = {"attempts": 0, "bad": 0, "held": 0}


def verified(headers, body):
    """Whether the delivery's signature, timestamp and id are what Standard Webhooks requires."""
    event_id = headers.get("webhook-id", "")
    timestamp = headers.get("webhook-timestamp", "")
    signatures = headers.get("webhook-signature", "").split(" ")
    try:
        if abs(time.time() - int(timestamp)) > 300:
            return False
        if json.loads(body).get("id") != event_id:
            return False
    except ValueError:
        return False
    signed = f"{event_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(STATE["secret"], signed, hashlib.sha256).digest()).decode()
    return any(
        part.startswith("v1,") and hmac.compare_digest(part[3:], expected) for part in signatures if part
    )


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        with CONDITION:
            COUNTS["attempts"] += 1
            CONDITION.notify_all()
            if not verified(self.headers, body):
                COUNTS["bad"] += 1
                CONDITION.notify_all()
                status = 401
            else:
                status = 200 if STATE["hold"] else STATE["status"]
                if 200 <= status < 300:
                    ACCEPTED.append(
                        {
                            "id": self.headers.get("webhook-id"),
                            "timestamp": self.headers.get("webhook-timestamp"),
                            "body": json.loads(body),
                        }
                    )
                    CONDITION.notify_all()
                if STATE["hold"]:
                    # Taken, but the answer waits: a sender killed now never learns it was delivered.
                    generation = STATE["generation"]
                    COUNTS["held"] += 1
                    CONDITION.notify_all()
                    CONDITION.wait_for(lambda: STATE["generation"] != generation)
        try:
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()
        except OSError:
            pass  # the sender is gone (a killed identity)

    def log_message(self, *args):
        pass


def wait(request):
    events = request.get("events", 0)
    attempts = request.get("attempts", 0)
    held = request.get("held", 0)
    ids = set(request.get("ids", []))
    deadline = time.monotonic() + request.get("seconds", 45)
    with CONDITION:
        CONDITION.wait_for(
            lambda: len({item["id"] for item in ACCEPTED}) >= events
            and ids <= {item["id"] for item in ACCEPTED}
            and COUNTS["attempts"] >= attempts
            and COUNTS["held"] >= held,
            timeout=max(0, deadline - time.monotonic()),
        )
        return {
            "events": list(ACCEPTED),
            "attempts": COUNTS["attempts"],
            "badSignatures": COUNTS["bad"],
            "held": COUNTS["held"],
        }


def main():
    server = None
    for line in sys.stdin:
        request = json.loads(line)
        op = request["op"]
        answer = {}
        if op == "start":
            STATE["secret"] = base64.b64decode(request["secret"][len("whsec_"):])
            server = http.server.ThreadingHTTPServer(("127.0.0.1", request.get("port", 0)), Handler)
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()
            answer = {"port": server.server_address[1]}
        elif op == "status":
            with CONDITION:
                STATE["status"] = request["status"]
        elif op == "hold":
            with CONDITION:
                STATE["hold"] = True
        elif op == "release":
            with CONDITION:
                STATE["hold"] = False
                STATE["generation"] += 1
                CONDITION.notify_all()
        elif op == "wait":
            answer = wait(request)
        elif op == "stop":
            print("{}", flush=True)
            break
        print(json.dumps(answer), flush=True)
    if server is not None:
        with CONDITION:
            STATE["hold"] = False
            STATE["generation"] += 1
            CONDITION.notify_all()
        server.shutdown()


if __name__ == "__main__":
    main()
