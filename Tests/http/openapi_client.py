"""An HTTP client that checks every answer against docs/openapi.yaml.

`Client.call(operation_id, ...)` finds the operation in the document by its operationId, sends the request with
Python's urllib, and fails unless the document lists the answer's status, its content type and a schema the body
matches (openapi-schema-validator, OpenAPI 3.1). It also records which operations were called, so a test can require
that every documented operation was.
"""

import json
import urllib.error
import urllib.parse
import urllib.request

from openapi_schema_validator import OAS31Validator
import yaml

HTTP_TIMEOUT_SECONDS = 30


class JourneyFailure(Exception):
    """A step did not get what the API promises."""


def expect(condition, message):
    if not condition:
        raise JourneyFailure(message)


class Response:
    """An answer: status, headers, the raw body and, for a JSON content type, the parsed body."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.raw = body
        self.media_type = (headers.get("Content-Type") or "").split(";")[0].strip()
        is_json = self.media_type == "application/json" or self.media_type.endswith("+json")
        self.json = json.loads(body) if body and is_json else None

    def __repr__(self):
        return f"HTTP {self.status} {self.headers.get('Content-Type')} {self.raw[:500]!r}"


class OpenAPIDocument:
    """An OpenAPI document (docs/openapi.yaml, docs/admin-openapi.yaml): finds an operation by id and checks a
    response against it."""

    def __init__(self, path):
        self.name = path.rsplit("/", 1)[-1]
        with open(path, encoding="utf-8") as file:
            self.document = yaml.safe_load(file)
        self.operations = {}
        for template, item in self.document["paths"].items():
            for verb, operation in item.items():
                if isinstance(operation, dict) and "operationId" in operation:
                    self.operations[operation["operationId"]] = (verb.upper(), template, operation)

    def resolve(self, node):
        while isinstance(node, dict) and "$ref" in node and len(node) == 1:
            target = self.document
            for part in node["$ref"].removeprefix("#/").split("/"):
                target = target[part]
            node = target
        return node

    def url_path(self, operation_id, **path_parameters):
        verb, template, _ = self.operations[operation_id]
        path = template
        for name, value in path_parameters.items():
            path = path.replace("{" + name + "}", urllib.parse.quote(value, safe=""))
        return verb, path

    def check(self, operation_id, response):
        """Fails unless `operation_id` documents `response`'s status, content type and body."""
        _, template, operation = self.operations[operation_id]
        documented = operation.get("responses", {})
        # A status the operation does not list is described by its `default` response, if it has one.
        status = str(response.status) if str(response.status) in documented else "default"
        expect(
            status in documented,
            f"{operation_id} ({template}) answered {response.status}, which {self.name} does not "
            f"document (documented: {', '.join(documented)}): {response!r}",
        )
        described = self.resolve(documented[status])
        content = described.get("content", {})
        media_type = response.media_type
        expect(
            media_type in content,
            f"{operation_id} {response.status}: content type {media_type!r}, documented {list(content)}",
        )
        schema = content[media_type].get("schema")
        if schema is None or media_type not in ("application/json", "application/problem+json"):
            return
        root = dict(schema)
        root["components"] = self.document.get("components", {})
        validator = OAS31Validator(root, format_checker=OAS31Validator.FORMAT_CHECKER)
        errors = sorted(validator.iter_errors(response.json), key=lambda error: list(error.path))
        expect(
            not errors,
            f"{operation_id} {response.status}: the body does not match {self.name}: "
            + "; ".join(f"{'/'.join(map(str, error.path)) or '(body)'}: {error.message}" for error in errors[:5])
            + f"\n{response!r}",
        )


class Client:
    """Calls operations by their operationId and checks every answer against the document."""

    def __init__(self, base_url, spec):
        self.base_url = base_url.rstrip("/")
        self.spec = spec
        self.called = set()

    def call(self, operation_id, token=None, body=None, idempotency_key=None, query=None, **path_parameters):
        verb, path = self.spec.url_path(operation_id, **path_parameters)
        response = self.request(verb, path, token=token, body=body, idempotency_key=idempotency_key, query=query)
        self.spec.check(operation_id, response)
        self.called.add(operation_id)
        return response

    def uncalled_operations(self):
        """The documented operations this client has not called yet, sorted."""
        return sorted(set(self.spec.operations) - self.called)

    def request(self, verb, path, token=None, body=None, idempotency_key=None, query=None):
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        request = urllib.request.Request(url, data=data, method=verb, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT_SECONDS) as answer:
                return Response(answer.status, answer.headers, answer.read())
        except urllib.error.HTTPError as error:
            return Response(error.code, error.headers, error.read())
