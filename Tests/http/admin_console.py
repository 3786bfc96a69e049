#!/usr/bin/env python3
"""Drives the operators' console (the admin listener's /admin/) in a real headless Chromium and reports what it shows.

    admin_console.py CONSOLE_URL [--key-file FILE] [--lines] < steps.json

The admin key is read from FILE, or else from the environment variable FOYER_ADMIN_KEY; never from the command line
(any user of the machine can read a process's arguments). stdin is a JSON list of steps, run in order in one page:

    {"do": "unlock"}               the admin key into #key, then Unlock ({"key": "..."} unlocks with that text instead)
    {"do": "search", "uid": U}     U (or {"email": E}: E) into #search, then Find
    {"do": "revoke"}               Revoke sessions, then Confirm
    {"do": "plan", "plan": P}      P into #plan-input, Change plan, then Confirm
    {"do": "roles", "roles": R}    R into #roles-input, Set roles, then Confirm
    {"do": "revoke-key", "keyID": K}  the Revoke button of admin key K (on the page shown), then Confirm
    {"do": "keys-page", "to": D}   the keys table's Next (D "next") or Previous (D "previous") button
    {"do": "delete"}               Delete, the shown uid typed into #confirm-input, then Confirm
    {"do": "refresh"}              Refresh now (counts, audit log, admin keys)
    {"do": "outbox", "to": E}      E into #outbox-to, then Show the newest (local mode's outbox)
    {"do": "read"}                 nothing: only what the page shows

After each step the script waits for <body data-busy="0"> and records what the page shows: the message, the key's
state, the counts, the user (null when none is shown), the newest audit rows, the admin keys of the page shown and
the pager's text, whether the confirm
button was disabled before the uid was typed, and what the page keeps (storage, cookies, its URL). It prints one JSON
object, {"steps": [...], "pageErrors": [...]}, pageErrors being the page's script errors and console errors
(Content-Security-Policy violations among them; answers with an error status, which the page handles, are not).

With --lines, the same page serves steps one at a time, for a caller that acts through the API between them: each
line of stdin is one step, each answered by one line of stdout (the step's report); {"do": "quit"} or the end of
stdin closes the browser, the last line being {"pageErrors": [...]}.

Chromium is driven over the DevTools protocol on --remote-debugging-pipe (fds 3 and 4, NUL-terminated JSON), so no
Python package is needed. Exits 3 when Chromium is not installed (`make deps` installs it), 1 on any failure, with
the step and the reason on stderr.
"""

import ctypes
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

STEP_SECONDS = 30
RUN_SECONDS = 300
AUDIT_ROWS = 5
KEY_ROWS = 20


class Failure(Exception):
    """A reason to stop with exit status 1."""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    print("chromium is not installed: run `make deps`", file=sys.stderr)
    sys.exit(3)


def read_arguments():
    """The console's URL, the admin key ("" when none is given) and whether steps come one per line."""
    arguments = sys.argv[1:]
    lines = "--lines" in arguments
    if lines:
        arguments.remove("--lines")
    key_file = None
    if len(arguments) == 3 and arguments[1] == "--key-file":
        key_file = arguments[2]
    elif len(arguments) != 1 or arguments[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        sys.exit(1)
    if key_file is not None:
        with open(key_file, encoding="utf-8") as file:
            key = file.read().strip()
    else:
        key = os.environ.get("FOYER_ADMIN_KEY", "").strip()
    return arguments[0], key, lines


def checked(step):
    if not isinstance(step, dict) or not isinstance(step.get("do"), str):
        raise Failure(f'a step is a JSON object like {{"do": "unlock"}}, not {json.dumps(step)}')
    return step


def child_processes():
    """The ids of this script's child processes (zombies included)."""
    children = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="utf-8") as file:
                    # pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
                    fields = file.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid():
                children.append(int(entry))
    return children


class DevTools:
    """One Chromium with its DevTools pipe: commands with answers, and the events the report needs."""

    def __init__(self, profile):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()
        self.log = tempfile.TemporaryFile()

        def child_setup():
            # The pipe ends become fds 3 and 4 (through fresh numbers, in case one of them already is 3 or 4), and the
            # browser dies with this script, whatever kills it.
            read_end, write_end = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)
            ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG

        # What the browser starts and leaves behind becomes this script's to reap (PR_SET_CHILD_SUBREAPER), not init's.
        ctypes.CDLL(None).prctl(36, 1)
        command = [
            chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
            "--disable-extensions", "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--mute-audio", "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank",
        ]
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log, close_fds=False,
            preexec_fn=child_setup, start_new_session=True,
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.session = None
        self.loaded = False
        self.page_errors = []

    def close(self):
        if self.process.poll() is None:
            try:
                self.send("Browser.close", timeout=5)
            except Failure:
                pass
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        # Whatever the browser started (renderer, zygote) is in its process group, or else now a child of this script.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        for _ in range(10):
            children = child_processes()
            if not children:
                break
            for pid in children:
                try:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                except (ProcessLookupError, ChildProcessError):
                    pass
        os.close(self.to_browser)
        os.close(self.from_browser)

    def browser_log(self):
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")[-1500:]

    def send(self, method, params=None, timeout=STEP_SECONDS, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session is not None:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self.receive(deadline, method)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise Failure(f"{method}: {answer['error'].get('message')}")
                return answer.get("result", {})
            self.event(answer)

    def receive(self, deadline, waiting_for):
        while b"\0" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Failure(f"chromium did not answer {waiting_for} in time")
            ready, _, _ = select.select([self.from_browser], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise Failure(f"chromium closed its DevTools pipe (exit {self.process.poll()}): {self.browser_log()}")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def event(self, message):
        method, params = message.get("method"), message.get("params", {})
        if method == "Page.loadEventFired":
            self.loaded = True
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.page_errors.append(details.get("exception", {}).get("description") or details.get("text"))
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.page_errors.append(" ".join(str(a.get("value", a.get("description"))) for a in params["args"]))
        elif method == "Log.entryAdded":
            entry = params.get("entry", {})
            # A failed fetch is logged too; the page shows those itself (a 401 is "key refused").
            if entry.get("level") == "error" and entry.get("source") != "network":
                self.page_errors.append(f"{entry.get('source')}: {entry.get('text')}")

    def open(self, url):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)[
            "sessionId"
        ]
        for domain in ("Page", "Runtime", "Log"):
            self.send(domain + ".enable")
        self.loaded = False
        navigation = self.send("Page.navigate", {"url": url})
        if navigation.get("errorText"):
            raise Failure(f"could not load {url}: {navigation['errorText']}")
        deadline = time.monotonic() + STEP_SECONDS
        while not self.loaded:
            self.event(self.receive(deadline, "the page's load event"))

    def evaluate(self, expression):
        result = self.send(
            "Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True}
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise Failure(details.get("exception", {}).get("description") or details.get("text"))
        return result.get("result", {}).get("value")


# Helpers every action runs with: elements by id, typing (value and an input event) and clicking what is shown.
HELPERS = """
const $ = (id) => {
  const element = document.getElementById(id);
  if (!element) throw new Error("the page has no #" + id);
  return element;
};
const shown = (id) => {
  const element = $(id);
  if (element.closest("[hidden]") || element.getClientRects().length === 0) throw new Error("#" + id + " is not shown");
  return element;
};
const type = (id, text) => {
  const element = shown(id);
  element.focus();
  element.value = text;
  element.dispatchEvent(new Event("input", { bubbles: true }));
};
const click = (id) => {
  const element = shown(id);
  if (element.disabled) throw new Error("#" + id + " is disabled");
  element.click();
};
"""

WAIT_IDLE = """
new Promise((resolve, reject) => {
  const idle = () => document.body.dataset.busy === "0";
  if (idle()) return resolve(true);
  const timer = setTimeout(() => { observer.disconnect(); reject(new Error("still busy after %d s")); }, %d);
  const observer = new MutationObserver(() => {
    if (idle()) { observer.disconnect(); clearTimeout(timer); resolve(true); }
  });
  observer.observe(document.body, { attributes: true, attributeFilter: ["data-busy"] });
})
""" % (STEP_SECONDS, STEP_SECONDS * 1000)

READ = """
(() => {
  const text = (id) => {
    const element = document.getElementById(id);
    return element ? element.textContent.trim() : null;
  };
  const rows = (id, limit) => Array.from(document.querySelectorAll("#" + id + " tbody tr"))
    .filter((row) => !row.querySelector("td.empty"))
    .slice(0, limit)
    .map((row) => Array.from(row.cells).map((cell) => cell.textContent.trim()));
  const user = document.getElementById("user");
  const confirmPanel = document.getElementById("confirm-panel");
  return {
    message: text("message"),
    messageKind: document.getElementById("message").dataset.kind,
    keyState: text("key-state"),
    keyFieldLength: document.getElementById("key").value.length,
    counts: {
      guests: text("counts-guests"), members: text("counts-members"), signups: text("counts-signups"),
      denials: text("counts-denials"), deletions: text("counts-deletions"), merges: text("counts-merges"),
      sweep: text("counts-sweep"), updated: text("counts-updated"),
    },
    user: user.hidden ? null : {
      uid: text("user-uid"), kind: text("user-kind"), state: text("user-state"), created: text("user-created"),
      activity: text("user-activity"), email: text("user-email"), verified: text("user-verified"),
      password: text("user-password"), sessions: text("user-sessions"), plan: text("user-plan"),
      providers: Array.from(document.querySelectorAll("#user-providers li")).map((item) => item.textContent.trim()),
      features: Array.from(document.querySelectorAll("#user-features li")).map((item) => item.textContent.trim()),
      roles: Array.from(document.querySelectorAll("#user-roles li")).map((item) => item.textContent.trim()),
      counters: rows("user-counters", 50).map(([name, used, limit]) => ({ name, used, limit })),
    },
    confirmShown: !confirmPanel.hidden,
    audit: rows("audit", %d).map(([time, key, action, target, outcome]) => ({ time, key, action, target, outcome })),
    keys: rows("keys", %d).map(([keyID, name, created, createdBy, lastUsed, revoked, action]) =>
      ({ keyID, name, created, createdBy, lastUsed, revoked, action })),
    keysPage: text("keys-page"),
    outbox: rows("outbox", 5).map(([sent, to, subject, body]) => ({ sent, to, subject, body })),
    kept: {
      localStorage: localStorage.length, sessionStorage: sessionStorage.length, cookie: document.cookie,
      url: location.href,
    },
  };
})()
""" % (AUDIT_ROWS, KEY_ROWS)


def action(step, key):
    """The JavaScript of one step (run with HELPERS), returning what the step itself observed."""
    kind = step["do"]
    if kind == "unlock":
        text = step.get("key", key)
        if not text:
            raise Failure("no admin key: give --key-file FILE or set FOYER_ADMIN_KEY")
        return f'type("key", {json.dumps(text)}); click("unlock"); return {{}};'
    if kind == "search":
        value = step.get("uid", step.get("email"))
        if not isinstance(value, str):
            raise Failure('a search step needs "uid" or "email"')
        return f'type("search", {json.dumps(value)}); click("find"); return {{}};'
    if kind == "revoke":
        return (
            'click("revoke"); const question = shown("confirm-text").textContent; click("confirm");'
            " return { question };"
        )
    if kind == "plan":
        return (
            f'type("plan-input", {json.dumps(step["plan"])}); click("change-plan");'
            ' const question = shown("confirm-text").textContent; click("confirm"); return { question };'
        )
    if kind == "roles":
        return (
            f'type("roles-input", {json.dumps(step["roles"])}); click("set-roles");'
            ' const question = shown("confirm-text").textContent; click("confirm"); return { question };'
        )
    if kind == "revoke-key":
        return (
            f'click("revoke-key-" + {json.dumps(step["keyID"])});'
            ' const question = shown("confirm-text").textContent; click("confirm"); return { question };'
        )
    if kind == "keys-page":
        if step.get("to") not in ("next", "previous"):
            raise Failure('a keys-page step needs "to": "next" or "previous"')
        return f'click("keys-{step["to"]}"); return {{}};'
    if kind == "delete":
        return """
            const uid = shown("user-uid").textContent.trim();
            click("delete");
            const question = shown("confirm-text").textContent;
            const disabledBeforeTyping = $("confirm").disabled;
            type("confirm-input", uid.slice(0, -1));
            const disabledWithWrongUID = $("confirm").disabled;
            type("confirm-input", uid);
            click("confirm");
            return { question, disabledBeforeTyping, disabledWithWrongUID };
        """
    if kind == "refresh":
        return 'click("refresh"); return {};'
    if kind == "outbox":
        return f'type("outbox-to", {json.dumps(step.get("to", ""))}); click("outbox-show"); return {{}};'
    if kind == "read":
        return "return {};"
    raise Failure(f"unknown step {json.dumps(step)}")


class Console:
    """The console open in one Chromium page: steps in, what the page shows out."""

    def __init__(self, browser, url, key):
        self.browser = browser
        self.key = key
        self.count = 0
        browser.open(url)
        if browser.evaluate('document.body && document.body.dataset.ready === "1"') is not True:
            raise Failure(f"the console's script did not start; page errors: {browser.page_errors}")

    def step(self, step):
        self.count += 1
        try:
            observed = self.browser.evaluate("(async () => {" + HELPERS + action(step, self.key) + "})()")
            self.browser.evaluate(WAIT_IDLE)
            report = self.browser.evaluate(READ)
        except Failure as failure:
            raise Failure(f"step {self.count} {json.dumps(step)}: {failure}") from None
        return {"do": step["do"], **(observed or {}), **report}


def run(url, key, lines):
    """Runs the steps; the last line is printed once the browser is closed, so a caller that has it may go on."""
    with tempfile.TemporaryDirectory(prefix="foyer-chromium-") as profile:
        browser = DevTools(profile)
        try:
            if lines:
                console = Console(browser, url, key)
                for line in sys.stdin:
                    if not line.strip():
                        continue
                    step = checked(json.loads(line))
                    if step["do"] == "quit":
                        break
                    print(json.dumps(console.step(step)), flush=True)
                last = {"pageErrors": browser.page_errors}
            else:
                steps = json.load(sys.stdin)
                if not isinstance(steps, list):
                    raise Failure('stdin must be a JSON list of steps like [{"do": "unlock"}]')
                console = Console(browser, url, key)
                reports = [console.step(checked(step)) for step in steps]
                last = {"steps": reports, "pageErrors": browser.page_errors}
        finally:
            browser.close()
    print(json.dumps(last), flush=True)


def main():
    def out_of_time(*_):
        raise Failure(f"the run took longer than {RUN_SECONDS} s")

    signal.signal(signal.SIGALRM, out_of_time)
    signal.alarm(RUN_SECONDS)
    try:
        run(*read_arguments())
    except (Failure, OSError, ValueError) as error:
        print(f"admin_console.py: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
