#!/usr/bin/env python3
"""Runs examples/web/index.html in a real headless Chromium and reports what the page shows.

    web_example.py PAGE_URL

PAGE_URL is the page as the gateway serves it, with its query (`?api=...&run=1` runs the journey at once).
Prints one JSON object: {"status": "passed" | "failed" | ..., "result": text, "steps": [{"ok": bool, "text"}]}.
Exits 3 when Chromium is not installed (`make deps` installs it), 1 when it cannot be run.
"""

import html
import json
import re
import shutil
import subprocess
import sys
import tempfile


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    print("chromium is not installed: run `make deps`", file=sys.stderr)
    sys.exit(3)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(1)
    with tempfile.TemporaryDirectory(prefix="foyer-chromium-") as profile:
        # Virtual time runs the page's script to completion (network waits included) before the DOM is dumped.
        command = [
            chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--user-data-dir=" + profile, "--virtual-time-budget=60000", "--dump-dom", sys.argv[1],
        ]
        try:
            run = subprocess.run(command, capture_output=True, text=True, timeout=180)
        except subprocess.TimeoutExpired:
            print("chromium did not finish within 180 s", file=sys.stderr)
            sys.exit(1)
    if run.returncode != 0:
        print(f"chromium exited {run.returncode}: {run.stderr[-2000:]}", file=sys.stderr)
        sys.exit(1)
    dom = run.stdout
    result = re.search(r'<strong id="result" data-status="([^"]*)">(.*?)</strong>', dom, re.S)
    steps = [
        {"ok": kind == "ok", "text": html.unescape(text)}
        for kind, text in re.findall(r'<li class="(ok|failed)">(.*?)</li>', dom, re.S)
    ]
    print(json.dumps({
        "status": result.group(1) if result else "missing",
        "result": html.unescape(result.group(2)) if result else dom[-2000:],
        "steps": steps,
    }))


if __name__ == "__main__":
    main()
