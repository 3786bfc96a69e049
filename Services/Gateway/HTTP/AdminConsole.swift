/// The operators' console: one page the admin listener serves at `/admin/`, with its script at `/admin/console.js`
/// and its stylesheet at `/admin/console.css`. Plain HTML, JavaScript and CSS, no framework and no build step.
///
/// The page loads with no key; the operator pastes an admin key into a password field, and the script keeps it in a
/// variable (never in storage, a cookie or the URL) and sends it as `Authorization: Bearer` to `/admin/v1/...` on the
/// page's own origin. A 401 answer forgets the key, shows "key refused" and asks again. It shows the live counts
/// (refreshed every 10 s while the page is visible), a user found by uid or email (state, plan, counters, features,
/// credentials: email, verified, password, providers; the API sends no token or secret), revoke sessions, change
/// plan and delete, each confirmed in the page (delete by typing the uid), the newest audit entries and the admin
/// keys, and on request local mode's outbox (the emails identity keeps instead of sending them). Times are shown in
/// UTC.
///
/// The three are served under a strict Content-Security-Policy (``AdminHTTPResponder``: only their own script, style
/// and API; no framing, no `<base>`, no form submission), so the page has no inline script, style attribute or event
/// handler; and every value from the API goes into the page with `textContent` or `createElement`, never as markup
/// (an email is user input). Elements have stable ids, and `<body data-busy>` is "1" while a request is in flight and
/// "0" when idle, for the browser test (`Tests/http/admin_console.py`).
enum AdminConsole {
    /// The page (`/admin/`, `text/html; charset=utf-8`); the script is in AdminConsole+Script.swift.
    static let html = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="referrer" content="no-referrer">
        <title>Foyer console</title>
        <link rel="stylesheet" href="/admin/console.css">
        <script src="/admin/console.js" defer></script>
        </head>
        <body data-busy="0">
        <header>
          <h1>Foyer console</h1>
          <p id="message" role="status" aria-live="polite" data-kind="info">Paste an admin key to start.</p>
        </header>
        <main>
          <section id="key-section" aria-labelledby="key-heading">
            <h2 id="key-heading">Admin key</h2>
            <form id="key-form" method="post" autocomplete="off">
              <label for="key">Admin key</label>
              <input id="key" name="key" type="password" autocomplete="off" spellcheck="false" maxlength="128"
                placeholder="foyer_admin_…" required>
              <button id="unlock" type="submit">Unlock</button>
              <button id="lock" type="button" hidden>Forget the key</button>
              <span id="key-state">locked</span>
            </form>
          </section>

          <section id="counts" aria-labelledby="counts-heading">
            <h2 id="counts-heading">Live counts</h2>
            <dl>
              <div><dt>Guests</dt><dd id="counts-guests">–</dd></div>
              <div><dt>Members</dt><dd id="counts-members">–</dd></div>
              <div><dt>Sign-ups, last hour</dt><dd id="counts-signups">–</dd></div>
              <div><dt>Quota denials, last hour</dt><dd id="counts-denials">–</dd></div>
              <div><dt>Pending deletions</dt><dd id="counts-deletions">–</dd></div>
              <div><dt>Pending merges</dt><dd id="counts-merges">–</dd></div>
              <div><dt>Last sweep</dt><dd id="counts-sweep">–</dd></div>
            </dl>
            <p class="note">Refreshed every 10 s while this page is visible; last at
              <span id="counts-updated">–</span>. <button id="refresh" type="button">Refresh now</button></p>
          </section>

          <section id="user-section" aria-labelledby="user-heading">
            <h2 id="user-heading">User</h2>
            <form id="search-form" method="post" autocomplete="off">
              <label for="search">uid or email</label>
              <input id="search" name="search" type="search" maxlength="320" spellcheck="false" required
                aria-describedby="search-hint">
              <button id="find" type="submit">Find</button>
              <span id="search-hint" class="note">A value with an @ is looked up as an email.</span>
            </form>
            <div id="user" hidden>
              <dl>
                <div><dt>uid</dt><dd id="user-uid"></dd></div>
                <div><dt>Kind</dt><dd id="user-kind"></dd></div>
                <div><dt>State</dt><dd id="user-state"></dd></div>
                <div><dt>Created</dt><dd id="user-created"></dd></div>
                <div><dt>Last activity</dt><dd id="user-activity"></dd></div>
                <div><dt>Email</dt><dd id="user-email"></dd></div>
                <div><dt>Email verified</dt><dd id="user-verified"></dd></div>
                <div><dt>Password</dt><dd id="user-password"></dd></div>
                <div><dt>Providers</dt><dd><ul id="user-providers"></ul></dd></div>
                <div><dt>Live sessions</dt><dd id="user-sessions"></dd></div>
                <div><dt>Plan</dt><dd id="user-plan"></dd></div>
                <div><dt>Roles</dt><dd><ul id="user-roles"></ul></dd></div>
                <div><dt>Features</dt><dd><ul id="user-features"></ul></dd></div>
              </dl>
              <table id="user-counters">
                <caption>Counters</caption>
                <thead><tr><th scope="col">Counter</th><th scope="col">Used</th><th scope="col">Limit</th></tr></thead>
                <tbody></tbody>
              </table>
              <div id="actions" role="group" aria-label="Actions on this user">
                <button id="revoke" type="button">Revoke sessions</button>
                <label for="plan-input">New plan</label>
                <input id="plan-input" type="text" list="plans" maxlength="64" spellcheck="false" placeholder="member">
                <datalist id="plans"><option value="guest"></option><option value="member"></option></datalist>
                <button id="change-plan" type="button">Change plan</button>
                <button id="delete" type="button" class="danger">Delete user</button>
              </div>
              <div id="confirm-panel" role="alertdialog" aria-labelledby="confirm-text" hidden>
                <p id="confirm-text"></p>
                <label id="confirm-label" for="confirm-input">Type the uid to confirm</label>
                <input id="confirm-input" type="text" autocomplete="off" spellcheck="false" maxlength="128">
                <button id="confirm" type="button">Confirm</button>
                <button id="cancel" type="button">Cancel</button>
              </div>
            </div>
          </section>

          <section id="operations-section" aria-labelledby="operations-heading">
            <h2 id="operations-heading">Merges and deletions in progress, longest-waiting first</h2>
            <table id="operations">
              <thead><tr><th scope="col">uid</th><th scope="col">Kind</th><th scope="col">Since (UTC)</th>
                <th scope="col">Waiting</th><th scope="col">Overdue</th></tr></thead>
              <tbody></tbody>
            </table>
          </section>

          <section id="audit-section" aria-labelledby="audit-heading">
            <h2 id="audit-heading">Audit log, newest first</h2>
            <table id="audit">
              <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Key</th><th scope="col">Action</th>
                <th scope="col">Target</th><th scope="col">Outcome</th></tr></thead>
              <tbody></tbody>
            </table>
          </section>

          <section id="keys-section" aria-labelledby="keys-heading">
            <h2 id="keys-heading">Admin keys</h2>
            <table id="keys">
              <thead><tr><th scope="col">Key id</th><th scope="col">Name</th><th scope="col">Created (UTC)</th>
                <th scope="col">Created by</th><th scope="col">Last used (UTC)</th><th scope="col">Revoked (UTC)</th>
              </tr></thead>
              <tbody></tbody>
            </table>
          </section>

          <section id="outbox-section" aria-labelledby="outbox-heading">
            <h2 id="outbox-heading">Outbox (local mode)</h2>
            <p class="note">The emails identity keeps instead of sending them in local mode, links and all: the part
              after <code>token=</code> completes the flow. Shown to a browser on this machine only; each look is
              audited, so it is read when asked, not refreshed.</p>
            <form id="outbox-form" method="post" autocomplete="off">
              <label for="outbox-to">To (empty: everyone)</label>
              <input id="outbox-to" name="to" type="email" maxlength="320" spellcheck="false">
              <button id="outbox-show" type="submit">Show the newest</button>
            </form>
            <table id="outbox">
              <thead><tr><th scope="col">Sent (UTC)</th><th scope="col">To</th><th scope="col">Subject</th>
                <th scope="col">Body</th></tr></thead>
              <tbody></tbody>
            </table>
          </section>
        </main>
        </body>
        </html>
        """#

    /// The stylesheet (`/admin/console.css`, `text/css; charset=utf-8`).
    static let stylesheet = #"""
        /* The Foyer operators' console. No inline styles anywhere: the page's Content-Security-Policy forbids them. */
        :root {
          color-scheme: light dark;
          --accent: #2457c5;
          --danger: #b3261e;
          --ok: #1e7b34;
          --line: #8884;
          font-family: system-ui, -apple-system, "Segoe UI", sans-serif;
          font-size: 15px;
          line-height: 1.4;
        }
        [hidden] { display: none !important; }
        body { margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem 3rem; }
        body[data-busy="1"] { cursor: progress; }
        header { display: flex; flex-wrap: wrap; align-items: baseline; gap: 0.5rem 2rem; }
        h1 { font-size: 1.4rem; margin: 0.5rem 0; }
        h2 { font-size: 1.1rem; margin: 0 0 0.5rem; }
        section { border-top: 1px solid var(--line); padding: 1rem 0; }
        form, #actions, #confirm-panel { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5rem; }
        input { font: inherit; padding: 0.3rem 0.4rem; min-width: 14rem; }
        button { font: inherit; padding: 0.3rem 0.8rem; cursor: pointer; }
        button:disabled { cursor: not-allowed; }
        button.danger, #confirm { color: #fff; background: var(--danger); border: 1px solid var(--danger); }
        button.danger:disabled, #confirm:disabled { opacity: 0.5; }
        :focus-visible { outline: 2px solid var(--accent); outline-offset: 2px; }
        #message { margin: 0.5rem 0; padding: 0.2rem 0.6rem; border-left: 4px solid var(--line); }
        #message[data-kind="error"] { border-left-color: var(--danger); color: var(--danger); }
        #message[data-kind="ok"] { border-left-color: var(--ok); }
        #key-state { font-weight: 600; }
        dl { display: grid; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr)); gap: 0.5rem 1.5rem; }
        dl { margin: 0; }
        dt { font-size: 0.85rem; opacity: 0.75; }
        dd { margin: 0; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
        dd ul { margin: 0; padding-left: 1.1rem; }
        .note { font-size: 0.85rem; opacity: 0.8; }
        table { border-collapse: collapse; width: 100%; margin: 0.75rem 0; font-variant-numeric: tabular-nums; }
        caption { text-align: left; font-weight: 600; padding-bottom: 0.25rem; }
        th, td { text-align: left; padding: 0.25rem 0.5rem; border-bottom: 1px solid var(--line); }
        th, td { overflow-wrap: anywhere; }
        #outbox td:last-child { white-space: pre-wrap; font-family: monospace; }
        td.empty { opacity: 0.7; font-style: italic; }
        #confirm-panel { margin-top: 0.75rem; padding: 0.75rem; border: 2px solid var(--danger); border-radius: 4px; }
        #confirm-panel p { flex-basis: 100%; margin: 0; }
        """#
}
