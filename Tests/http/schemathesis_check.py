"""Runs Schemathesis with every check against the gateway's two documents and reports whether both passed.

    python3 schemathesis_check.py SCHEMATHESIS HTTP_BASE_URL ADMIN_BASE_URL < admin-key

SCHEMATHESIS is the pinned executable `make deps` installs. The client document (docs/openapi.yaml) runs with a new
guest's token for each test case (schemathesis_hooks.py), the admin document (docs/admin-openapi.yaml) with the admin
key read from stdin; both with schemathesis.toml's exceptions, a fixed seed and one worker, so a failure replays.
Prints one JSON object, {"passed": bool, "runs": [{"document", "exitCode", "tail"}]}; exit 3 when SCHEMATHESIS is
missing (run `make deps`).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.dirname(os.path.dirname(HERE))
EXAMPLES = "25"
SEED = "1"


def run(schemathesis, document, base_url, headers, environment):
    command = [
        schemathesis, "--config-file", os.path.join(HERE, "schemathesis.toml"), "--no-color", "run",
        os.path.join(REPOSITORY, "docs", document), "--url", base_url, "--checks", "all",
        "--max-examples", EXAMPLES, "--seed", SEED, "--workers", "1", "--request-timeout", "30",
    ]
    for header in headers:
        command += ["--header", header]
    result = subprocess.run(
        command, env={**os.environ, **environment}, capture_output=True, text=True, timeout=600, cwd=HERE
    )
    output = (result.stdout + result.stderr).splitlines()
    return {"document": document, "exitCode": result.returncode, "tail": "\n".join(output[-120:])}


def main():
    schemathesis, http_base_url, admin_base_url = sys.argv[1:4]
    if not os.access(schemathesis, os.X_OK):
        print(f"{schemathesis} is missing: run `make deps`", file=sys.stderr)
        sys.exit(3)
    admin_key = sys.stdin.readline().strip()
    client = run(
        schemathesis, "openapi.yaml", http_base_url, [],
        {"SCHEMATHESIS_HOOKS": "schemathesis_hooks", "PYTHONPATH": HERE, "FOYER_HTTP_BASE_URL": http_base_url},
    )
    admin = run(schemathesis, "admin-openapi.yaml", admin_base_url, [f"Authorization: Bearer {admin_key}"], {})
    runs = [client, admin]
    print(json.dumps({"passed": all(run["exitCode"] == 0 for run in runs), "runs": runs}))


if __name__ == "__main__":
    main()
