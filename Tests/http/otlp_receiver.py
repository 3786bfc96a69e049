#!/usr/bin/env python3
"""A small OpenTelemetry collector for Foyer's trace tests: OTLP/HTTP with protobuf bodies, decoded with the
`opentelemetry-proto` package, on 127.0.0.1 with a free port.

One JSON request a line on stdin, one JSON answer a line on stdout (TraceTests.swift in
Tests/FoyerIntegrationTests):

  {"op": "start"} -> {"port": p}
      Listens for POST /v1/traces (an ExportTraceServiceRequest; gzip accepted) and answers each with an empty
      ExportTraceServiceResponse. Anything else is answered 404.
  {"op": "spans"} -> {"exports": n, "spans": [{"traceId", "spanId", "parentSpanId", "name", "kind", "service",
                      "attributes": {key: value as text}, "statusCode", "events": [text of every event attribute]}]}
      Every span received so far; ids in lower-case hex ("" for no parent); kind as OTLP numbers it (2 server,
      3 client); statusCode 2 is error.

It stops when stdin closes. Exit status 3: opentelemetry-proto is missing (`make deps` installs it).
"""

import gzip
import http.server
import json
import sys
import threading

try:
    from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
except ImportError as error:
    print(f"missing package: {error}", file=sys.stderr)
    sys.exit(3)

LOCK = threading.Lock()
SPANS = []
EXPORTS = [0]


def any_value_text(value):
    """An OTLP AnyValue as text (arrays and maps as JSON of their texts)."""
    kind = value.WhichOneof("value")
    if kind is None:
        return ""
    if kind == "array_value":
        return json.dumps([any_value_text(item) for item in value.array_value.values])
    if kind == "kvlist_value":
        return json.dumps({item.key: any_value_text(item.value) for item in value.kvlist_value.values})
    if kind == "bytes_value":
        return value.bytes_value.hex()
    return str(getattr(value, kind))


def record(request):
    for resource_spans in request.resource_spans:
        resource = {item.key: any_value_text(item.value) for item in resource_spans.resource.attributes}
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                SPANS.append(
                    {
                        "traceId": span.trace_id.hex(),
                        "spanId": span.span_id.hex(),
                        "parentSpanId": span.parent_span_id.hex(),
                        "name": span.name,
                        "kind": span.kind,
                        "service": resource.get("service.name", ""),
                        "attributes": {item.key: any_value_text(item.value) for item in span.attributes},
                        "statusCode": span.status.code,
                        "events": [
                            any_value_text(item.value) for event in span.events for item in event.attributes
                        ],
                    }
                )


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        if self.path != "/v1/traces":
            self.answer(404, b"")
            return
        if self.headers.get("Content-Encoding", "") == "gzip":
            body = gzip.decompress(body)
        request = trace_service_pb2.ExportTraceServiceRequest()
        request.ParseFromString(body)
        with LOCK:
            EXPORTS[0] += 1
            record(request)
        self.answer(200, trace_service_pb2.ExportTraceServiceResponse().SerializeToString())

    def answer(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *arguments):
        pass


def main():
    server = None
    for line in sys.stdin:
        request = json.loads(line)
        if request["op"] == "start":
            server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
            server.daemon_threads = True
            threading.Thread(target=server.serve_forever, daemon=True).start()
            answer = {"port": server.server_address[1]}
        elif request["op"] == "spans":
            with LOCK:
                answer = {"exports": EXPORTS[0], "spans": list(SPANS)}
        else:
            answer = {"error": f"unknown op {request['op']}"}
        print(json.dumps(answer), flush=True)
    if server is not None:
        server.shutdown()


if __name__ == "__main__":
    main()
