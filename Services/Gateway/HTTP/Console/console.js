// The Foyer operators' console. Plain JavaScript, no framework: every value from the API reaches the page
// through textContent or createElement (emails are user input), the admin key lives in this script's memory
// only, and <body data-busy> is "1" while a request is in flight, "0" when idle.
"use strict";

(function () {
  const countsIntervalMilliseconds = 10000;
  const auditRowsShown = 20;
  const keysPerPage = 20;
  const requestTimeoutMilliseconds = 30000;

  let adminKey = null;
  let shownUser = null;
  let pendingAction = null;
  let keys = [];
  let keysPage = 0;
  let inFlight = 0;

  const element = (id) => document.getElementById(id);

  // MARK: - Requests

  /** Runs `work` with <body data-busy="1">; the attribute goes back to "0" when nothing else is running. */
  async function busy(work) {
    inFlight += 1;
    document.body.dataset.busy = "1";
    try {
      return await work();
    } catch (error) {
      showError(error);
      return undefined;
    } finally {
      inFlight -= 1;
      if (inFlight === 0) document.body.dataset.busy = "0";
    }
  }

  /** A failure the page shows: `refused` when the key was not accepted (401). */
  class ConsoleError extends Error {
    constructor(message, status, refused) {
      super(message);
      this.status = status;
      this.refused = refused;
    }
  }

  /** Calls the admin API with the key as a bearer token and returns the JSON answer; throws ConsoleError. */
  async function api(method, path, body) {
    if (adminKey === null) throw new ConsoleError("paste an admin key first", 0, true);
    const headers = { "Authorization": "Bearer " + adminKey, "Accept": "application/json" };
    const init = { method, headers, cache: "no-store", credentials: "omit", referrerPolicy: "no-referrer" };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), requestTimeoutMilliseconds);
    init.signal = controller.signal;
    let response;
    try {
      response = await fetch(path, init);
    } catch (error) {
      throw new ConsoleError("the gateway did not answer (" + error.name + ")", 0, false);
    } finally {
      clearTimeout(timer);
    }
    let answer = null;
    try {
      answer = await response.json();
    } catch (error) {
      answer = null;
    }
    if (response.status === 401) throw new ConsoleError("key refused: paste a valid admin key", 401, true);
    if (!response.ok) throw new ConsoleError(problemText(response.status, answer), response.status, false);
    return answer;
  }

  /** An application/problem+json answer as one line: its code, status and detail. */
  function problemText(status, problem) {
    if (problem === null || typeof problem !== "object") return "the gateway answered " + status;
    const code = typeof problem.code === "string" ? problem.code : String(problem.title || status);
    const detail = typeof problem.detail === "string" && problem.detail !== "" ? ": " + problem.detail : "";
    return code + " (" + status + ")" + detail;
  }

  // MARK: - Messages and formatting

  function showMessage(text, kind) {
    const message = element("message");
    message.textContent = text;
    message.dataset.kind = kind;
  }

  function showError(error) {
    if (error instanceof ConsoleError && error.refused) {
      forgetKey();
      showMessage(error.message, "error");
      element("key-state").textContent = error.status === 401 ? "key refused" : "locked";
      element("key").focus();
      return;
    }
    showMessage(error instanceof ConsoleError ? error.message : "the console failed: " + error, "error");
  }

  /** An RFC 3339 time as "2026-01-02 03:04:05 UTC"; anything else as it is, absent as "–". */
  function utc(text) {
    if (text === null || text === undefined || text === "") return "–";
    const date = new Date(text);
    if (Number.isNaN(date.getTime())) return String(text);
    return date.toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC");
  }

  function display(value) {
    if (value === null || value === undefined) return "–";
    return String(value);
  }

  function yesNo(value) {
    return value === true ? "yes" : value === false ? "no" : "–";
  }

  function setText(id, value) {
    element(id).textContent = value;
  }

  /** Replaces a table's body with one row per item, each cell from `cells(item)`: a text, or an element. */
  function fillTable(id, items, cells, emptyText) {
    const body = element(id).tBodies[0];
    body.replaceChildren();
    for (const item of items) {
      const row = document.createElement("tr");
      for (const content of cells(item)) {
        const cell = document.createElement("td");
        if (content instanceof Node) cell.append(content);
        else cell.textContent = content;
        row.append(cell);
      }
      body.append(row);
    }
    if (items.length === 0) {
      const row = document.createElement("tr");
      const cell = document.createElement("td");
      cell.colSpan = element(id).tHead.rows[0].cells.length;
      cell.className = "empty";
      cell.textContent = emptyText;
      row.append(cell);
      body.append(row);
    }
  }

  /** Replaces a list's items with one per item, its text from `text(item)`; "none" when there is none. */
  function fillList(id, items, text) {
    const list = element(id);
    list.replaceChildren();
    for (const item of items.length === 0 ? [null] : items) {
      const entry = document.createElement("li");
      entry.textContent = item === null ? "none" : text(item);
      list.append(entry);
    }
  }

  // MARK: - Key

  function forgetKey() {
    adminKey = null;
    element("key").value = "";
    element("lock").hidden = true;
    element("unlock").hidden = false;
    element("key").disabled = false;
    hideUser();
  }

  async function unlock(event) {
    event.preventDefault();
    const key = element("key").value.trim();
    if (key === "") return;
    adminKey = key;
    element("key").value = "";
    element("key").disabled = true;
    element("unlock").hidden = true;
    element("lock").hidden = false;
    element("key-state").textContent = "unlocked";
    await busy(async () => {
      await refreshCounts();
      showMessage("unlocked", "ok");
      await refreshLists();
    });
  }

  function lock() {
    forgetKey();
    element("key-state").textContent = "locked";
    showMessage("the key is forgotten; paste one to continue", "info");
  }

  // MARK: - Counts, audit log and keys

  async function refreshCounts() {
    const counts = await api("GET", "/admin/v1/counts");
    setText("counts-guests", display(counts.guests));
    setText("counts-members", display(counts.members));
    setText("counts-signups", display(counts.signupsLastHour));
    setText("counts-denials", display(counts.quotaDenialsLastHour));
    setText("counts-deletions", display(counts.pendingDeletions));
    setText("counts-merges", display(counts.pendingMerges));
    setText("counts-sweep", sweepText(counts.lastSweep));
    setText("counts-updated", utc(new Date().toISOString()));
  }

  function sweepText(sweep) {
    if (sweep === null || sweep === undefined || typeof sweep !== "object") return "none yet";
    const parts = [utc(sweep.finishedAt || sweep.startedAt)];
    if (sweep.dryRun === true) parts.push("dry run");
    if (sweep.expiredGuests !== undefined) parts.push(display(sweep.expiredGuests) + " idle guests deleted");
    if (sweep.errors !== undefined) parts.push(display(sweep.errors) + " errors");
    return parts.join(", ");
  }

  async function refreshLists() {
    const operations = await api("GET", "/admin/v1/operations?limit=100");
    fillTable("operations", operations.operations || [], (operation) => [
      display(operation.uid), display(operation.kind), utc(operation.since),
      display(operation.waitingSeconds) + " s", operation.overdue === true ? "overdue" : "no",
    ], "none");
    const audit = await api("GET", "/admin/v1/audit?limit=" + auditRowsShown);
    fillTable("audit", audit.actions || [], (action) => [
      utc(action.at),
      display(action.keyName) + " (" + display(action.keyID) + ")",
      display(action.action),
      display(action.target),
      action.outcome === null || action.outcome === undefined ? "unfinished" : String(action.outcome),
    ], "no admin actions yet");
    keys = (await api("GET", "/admin/v1/keys")).keys || [];
    showKeys(keysPage);
  }

  /** Page `page` of the admin keys (newest first, as the API sends them), kept within the pages there are. */
  function showKeys(page) {
    const pages = Math.max(1, Math.ceil(keys.length / keysPerPage));
    keysPage = Math.min(Math.max(0, page), pages - 1);
    const shown = keys.slice(keysPage * keysPerPage, (keysPage + 1) * keysPerPage);
    fillTable("keys", shown, (key) => [
      display(key.keyID), display(key.name), utc(key.createdAt), display(key.createdBy),
      utc(key.lastUsedAt), key.revokedAt ? utc(key.revokedAt) : "active", key.revokedAt ? "" : revokeKeyButton(key),
    ], "no admin keys");
    setText("keys-page", "page " + (keysPage + 1) + " of " + pages + " (" + keys.length + " keys)");
    element("keys-previous").disabled = keysPage === 0;
    element("keys-next").disabled = keysPage === pages - 1;
  }

  function revokeKeyButton(key) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "danger";
    button.id = "revoke-key-" + key.keyID;
    button.textContent = "Revoke";
    button.addEventListener("click", () => revokeKey(key));
    return button;
  }

  function refreshAll() {
    return busy(async () => {
      await refreshCounts();
      await refreshLists();
      showMessage("refreshed", "ok");
    });
  }

  /** The periodic refresh: the counts only, only while unlocked and visible, never over another request. */
  function tick() {
    if (adminKey === null || document.visibilityState !== "visible" || inFlight > 0) return;
    busy(refreshCounts);
  }

  // MARK: - User

  function hideUser() {
    shownUser = null;
    hideConfirmation();
    element("user").hidden = true;
  }

  async function search(event) {
    event.preventDefault();
    const value = element("search").value.trim();
    if (value === "") return;
    hideConfirmation();
    await busy(async () => {
      try {
        await loadUser(value);
        showMessage("found " + shownUser.uid, "ok");
      } catch (error) {
        if (!(error instanceof ConsoleError) || error.status !== 404) throw error;
        hideUser();
        showMessage("no user with that " + (value.includes("@") ? "email" : "uid"), "error");
      }
    });
  }

  async function loadUser(value) {
    const path = value.includes("@")
      ? "/admin/v1/users?email=" + encodeURIComponent(value)
      : "/admin/v1/users/" + encodeURIComponent(value);
    showUser(await api("GET", path));
  }

  function showUser(user) {
    shownUser = user;
    setText("user-uid", display(user.uid));
    setText("user-kind", user.isAnonymous ? "guest" : "member");
    setText("user-state", display(user.state));
    setText("user-created", utc(user.createdAt));
    setText("user-activity", utc(user.lastActivityAt));
    setText("user-email", display(user.email));
    setText("user-verified", yesNo(user.emailVerified));
    setText("user-password", user.hasPassword ? "set" : "none");
    fillList("user-providers", user.providers || [],
      (provider) => display(provider.provider) + (provider.email ? ": " + provider.email : ""));
    setText("user-sessions", display(user.liveSessions));
    setText("user-plan", display(user.plan));
    fillList("user-roles", user.roles || [], (role) => display(role));
    fillList("user-features", (user.features || []).filter((feature) => feature.enabled),
      (feature) => display(feature.feature));
    fillTable("user-counters", user.counters || [], (counter) => [
      display(counter.counter || counter.name), display(counter.used),
      counter.limit === null || counter.limit === undefined ? "no limit" : String(counter.limit),
    ], "no counters");
    element("user").hidden = false;
  }

  // MARK: - Actions, each confirmed in the page

  /** Shows the confirmation of `action` under the element `action.after` (the user's actions when absent). */
  function askToConfirm(action) {
    pendingAction = action;
    element(action.after || "actions").after(element("confirm-panel"));
    setText("confirm-text", action.question);
    element("confirm-label").hidden = !action.typeUID;
    element("confirm-input").hidden = !action.typeUID;
    element("confirm-input").value = "";
    element("confirm").textContent = action.button;
    element("confirm").disabled = action.typeUID;
    element("confirm-panel").hidden = false;
    (action.typeUID ? element("confirm-input") : element("cancel")).focus();
  }

  function hideConfirmation() {
    pendingAction = null;
    element("confirm-panel").hidden = true;
    element("confirm-input").value = "";
  }

  function confirmInputChanged() {
    if (pendingAction === null || !pendingAction.typeUID) return;
    element("confirm").disabled = element("confirm-input").value.trim() !== pendingAction.uid;
  }

  async function confirmAction() {
    const action = pendingAction;
    if (action === null) return;
    if (action.typeUID && element("confirm-input").value.trim() !== action.uid) return;
    hideConfirmation();
    await busy(async () => {
      await action.run();
      await refreshCounts();
      await refreshLists();
    });
  }

  function path(uid) {
    return "/admin/v1/users/" + encodeURIComponent(uid);
  }

  function revoke() {
    const uid = shownUser.uid;
    askToConfirm({
      uid, typeUID: false, button: "Revoke sessions",
      question: "Revoke every session of " + uid + "? Its apps must sign in again.",
      run: async () => {
        await api("POST", path(uid) + "/revoke-sessions");
        await loadUser(uid);
        showMessage("revoked the sessions of " + uid, "ok");
      },
    });
  }

  function changePlan() {
    const uid = shownUser.uid;
    const plan = element("plan-input").value.trim();
    if (plan === "") {
      showMessage("type the new plan first", "error");
      element("plan-input").focus();
      return;
    }
    askToConfirm({
      uid, typeUID: false, button: "Change plan",
      question: "Change the plan of " + uid + " from " + display(shownUser.plan) + " to " + plan + "?",
      run: async () => {
        const answer = await api("PUT", path(uid) + "/plan", { plan });
        await loadUser(uid);
        element("plan-input").value = "";
        showMessage("the plan of " + uid + " is now " + display(answer.plan), "ok");
      },
    });
  }

  /** The roles typed, as the API takes them: split on spaces and commas, without empty ones. */
  function typedRoles() {
    return element("roles-input").value.split(/[\s,]+/).filter((role) => role !== "");
  }

  function setRoles() {
    const uid = shownUser.uid;
    const roles = typedRoles();
    const now = (shownUser.roles || []).join(" ") || "none";
    askToConfirm({
      uid, typeUID: false, button: "Set roles",
      question: roles.length === 0
        ? "Remove every role of " + uid + " (now " + now + ")? Tokens already issued keep them until they expire."
        : "Set the roles of " + uid + " to " + roles.join(" ") + " (now " + now + ")? Tokens already issued keep the "
          + "old ones until they expire.",
      run: async () => {
        const answer = await api("PUT", path(uid) + "/roles", { roles });
        await loadUser(uid);
        element("roles-input").value = "";
        const stored = (answer.roles || []).join(" ");
        showMessage(stored === "" ? "removed the roles of " + uid : "the roles of " + uid + " are now " + stored, "ok");
      },
    });
  }

  function revokeKey(key) {
    askToConfirm({
      uid: key.keyID, typeUID: false, button: "Revoke key", after: "keys-pager",
      question: "Revoke the admin key " + key.keyID + " (" + display(key.name) + ")? Whoever holds it loses "
        + "access at once" + (key.keyID === ownKeyID() ? "; it is the key this page uses, so the page locks." : "."),
      run: async () => {
        await api("DELETE", "/admin/v1/keys/" + encodeURIComponent(key.keyID));
        showMessage("revoked the admin key " + key.keyID, "ok");
      },
    });
  }

  /** The id of the key this page holds: the part between `foyer_admin_` and the next `_`. */
  function ownKeyID() {
    const match = /^foyer_admin_([^_]+)_/.exec(adminKey || "");
    return match === null ? null : match[1];
  }

  function deleteUser() {
    const uid = shownUser.uid;
    askToConfirm({
      uid, typeUID: true, button: "Delete for good",
      question: "Delete " + uid + " and everything it owns, in every service? This cannot be undone.",
      run: async () => {
        const answer = await api("DELETE", path(uid));
        hideUser();
        const count = answer.documentsDeleted;
        const documents = count === 1 ? "1 document" : display(count) + " documents";
        showMessage("deleted " + uid + " with " + documents, "ok");
      },
    });
  }

  // MARK: - Outbox

  /** The newest messages of identity's outbox (local mode), to the address in the field or to everyone. */
  async function showOutbox(event) {
    event.preventDefault();
    const to = element("outbox-to").value.trim();
    await busy(async () => {
      try {
        const query = "?limit=20" + (to === "" ? "" : "&to=" + encodeURIComponent(to));
        const outbox = await api("GET", "/admin/v1/outbox" + query);
        fillTable("outbox", outbox.messages || [], (message) => [
          utc(message.createdAt), display(message.to), display(message.subject), display(message.body),
        ], "no messages");
        showMessage((outbox.messages || []).length + " message(s) in the outbox", "ok");
      } catch (error) {
        if (!(error instanceof ConsoleError) || error.status !== 404) throw error;
        fillTable("outbox", [], () => [], "no outbox: identity sends real mail");
        showMessage("identity is not in local mode: it sends real mail", "info");
      }
    });
  }

  // MARK: - Start

  function start() {
    element("key-form").addEventListener("submit", unlock);
    element("lock").addEventListener("click", lock);
    element("refresh").addEventListener("click", () => adminKey === null ? lock() : refreshAll());
    element("search-form").addEventListener("submit", search);
    element("outbox-form").addEventListener("submit", showOutbox);
    element("revoke").addEventListener("click", revoke);
    element("change-plan").addEventListener("click", changePlan);
    element("set-roles").addEventListener("click", setRoles);
    element("keys-previous").addEventListener("click", () => showKeys(keysPage - 1));
    element("keys-next").addEventListener("click", () => showKeys(keysPage + 1));
    element("delete").addEventListener("click", deleteUser);
    element("confirm-input").addEventListener("input", confirmInputChanged);
    element("confirm").addEventListener("click", confirmAction);
    element("cancel").addEventListener("click", () => {
      hideConfirmation();
      showMessage("cancelled", "info");
    });
    document.addEventListener("visibilitychange", tick);
    setInterval(tick, countsIntervalMilliseconds);
    document.body.dataset.ready = "1";
  }

  start();
})();
