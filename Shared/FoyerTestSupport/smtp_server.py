#!/usr/bin/env python3
"""SMTP servers for Foyer's mailer tests, built on aiosmtpd, on 127.0.0.1 with free ports.

One JSON request a line on stdin, one JSON answer a line on stdout (`SMTPTestServer` in SMTPTestServer.swift):

  {"op": "start", "security": "none"|"starttls"|"tls", "auth": {"username": u, "password": p} | null,
   "mechanisms": ["PLAIN", "LOGIN"] | null, "fail": {"stage": "mail"|"rcpt"|"data", "reply": "451 ...",
   "times": n} | null, "silent": false}
      -> {"id": n, "port": p, "caFile": path | null}
     `silent` starts a listener that accepts connections and never answers (for timeouts). With `auth`, mail is
     refused until the client authenticates with those credentials. `fail` answers the first `times` commands
     of that stage with `reply`.
  {"op": "report", "id": n}
      -> {"connections": n, "attempts": {"mail": n, "rcpt": n, "data": n}, "mechanisms": [AUTH mechanisms used],
          "messages": [{"mailFrom", "rcptTos", "data", "login", "tls"}]}
  {"op": "stop", "id": n} -> {}

Exit status 3: aiosmtpd or cryptography is missing (`make deps` installs them).
"""

import asyncio
import atexit
import datetime
import ipaddress
import json
import os
import shutil
import ssl
import sys
import tempfile
import threading
import warnings

try:
    from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
except ImportError as error:
    print(f"missing package: {error}", file=sys.stderr)
    sys.exit(3)


def make_certificates(directory):
    """A CA and a server certificate it signed for localhost and 127.0.0.1; returns (ca, cert, key) paths."""
    now = datetime.datetime.now(datetime.timezone.utc)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Foyer test SMTP CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    paths = {name: os.path.join(directory, name) for name in ("ca.pem", "cert.pem", "key.pem")}
    with open(paths["ca.pem"], "wb") as file:
        file.write(ca.public_bytes(serialization.Encoding.PEM))
    with open(paths["cert.pem"], "wb") as file:
        file.write(cert.public_bytes(serialization.Encoding.PEM))
    with open(paths["key.pem"], "wb") as file:
        file.write(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
    return paths["ca.pem"], paths["cert.pem"], paths["key.pem"]


class Recorder:
    """What one server saw, and the failures it still has to answer."""

    def __init__(self, fail):
        self.connections = 0
        self.attempts = {"mail": 0, "rcpt": 0, "data": 0}
        self.messages = []
        self.mechanisms = []
        self.fail = dict(fail) if fail else None

    def failure(self, stage):
        self.attempts[stage] += 1
        if self.fail and self.fail["stage"] == stage and self.fail["times"] > 0:
            self.fail["times"] -= 1
            return self.fail["reply"]
        return None


class Handler:
    def __init__(self, recorder):
        self.recorder = recorder

    async def handle_MAIL(self, server, session, envelope, address, options):
        reply = self.recorder.failure("mail")
        if reply:
            return reply
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, options):
        reply = self.recorder.failure("rcpt")
        if reply:
            return reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        reply = self.recorder.failure("data")
        if reply:
            return reply
        login = getattr(session.auth_data, "login", None)
        self.recorder.messages.append(
            {
                "mailFrom": envelope.mail_from,
                "rcptTos": list(envelope.rcpt_tos),
                "data": envelope.original_content.decode("utf-8", "replace"),
                "login": login.decode() if isinstance(login, bytes) else login,
                "tls": session.ssl is not None or server.transport.get_extra_info("ssl_object") is not None,
            }
        )
        return "250 OK: queued"


class Servers:
    def __init__(self):
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.directory = tempfile.mkdtemp(prefix="foyer-smtp-")
        atexit.register(shutil.rmtree, self.directory, True)
        self.ca, cert, key = make_certificates(self.directory)
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(cert, key)
        self.servers = {}
        self.next_id = 1

    def run(self, coroutine):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout=30)

    async def start(self, request):
        recorder = Recorder(request.get("fail"))
        if request.get("silent"):
            async def hold(reader, writer):
                recorder.connections += 1
                await reader.read()
                writer.close()

            server = await asyncio.start_server(hold, "127.0.0.1", 0)
        else:
            security = request.get("security", "none")
            auth = request.get("auth")
            excluded = None
            if request.get("mechanisms") is not None:
                excluded = [m for m in ("PLAIN", "LOGIN") if m not in request["mechanisms"]]

            def authenticator(server, session, envelope, mechanism, data):
                ok = (
                    auth is not None
                    and isinstance(data, LoginPassword)
                    and data.login.decode() == auth["username"]
                    and data.password.decode() == auth["password"]
                )
                recorder.mechanisms.append(mechanism)
                return AuthResult(success=ok, handled=False, auth_data=data)

            def factory():
                recorder.connections += 1
                return SMTP(
                    Handler(recorder),
                    hostname="foyer-test-smtp",
                    tls_context=self.context if security == "starttls" else None,
                    require_starttls=security == "starttls",
                    authenticator=authenticator if auth else None,
                    auth_required=auth is not None,
                    auth_require_tls=security == "starttls",
                    auth_exclude_mechanism=excluded,
                )

            server = await self.loop.create_server(
                factory, "127.0.0.1", 0, ssl=self.context if security == "tls" else None
            )
        identifier = self.next_id
        self.next_id += 1
        self.servers[identifier] = (server, recorder)
        return {"id": identifier, "port": server.sockets[0].getsockname()[1], "caFile": self.ca}

    async def stop(self, identifier):
        server, _ = self.servers.pop(identifier)
        server.close()
        return {}

    async def report(self, identifier):
        _, recorder = self.servers[identifier]
        return {
            "connections": recorder.connections,
            "attempts": recorder.attempts,
            "mechanisms": recorder.mechanisms,
            "messages": recorder.messages,
        }


def main():
    warnings.simplefilter("ignore")  # aiosmtpd warns about its own use of a deprecated attribute
    servers = Servers()
    for line in sys.stdin:
        request = json.loads(line)
        operation = request["op"]
        if operation == "start":
            answer = servers.run(servers.start(request))
        elif operation == "report":
            answer = servers.run(servers.report(request["id"]))
        elif operation == "stop":
            answer = servers.run(servers.stop(request["id"]))
        else:
            answer = {"error": f"unknown op {operation}"}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
