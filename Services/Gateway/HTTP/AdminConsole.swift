import Foundation
import FoyerCrypto
import NIOCore

/// The operators' console: one page the admin listener serves at `/admin/`, with its script at `/admin/console.js`
/// and its stylesheet at `/admin/console.css`. Plain HTML, JavaScript and CSS, no framework and no build step: the
/// three files live in `Console/` beside this one and are compiled into the executable (SwiftPM's `embedInCode`), so
/// a deployment copies one binary and the console it serves is the one it was built with.
///
/// The page loads with no key; the operator pastes an admin key into a password field, and the script keeps it in a
/// variable (never in storage, a cookie or the URL) and sends it as `Authorization: Bearer` to `/admin/v1/...` on the
/// page's own origin. A 401 answer forgets the key, shows "key refused" and asks again. It shows the live counts
/// (refreshed every 10 s while the page is visible), a user found by uid or email (state, plan, counters, features,
/// credentials: email, verified, password, providers; the API sends no token or secret), revoke sessions, change
/// plan, set roles and delete, each confirmed in the page (delete by typing the uid), the newest audit entries, the
/// admin keys a page at a time with a revoke button for each live one (confirmed too), and on request local mode's
/// outbox (the emails identity keeps instead of sending them). Times are shown in UTC.
///
/// Each file is served with a strong `ETag` (the first 16 bytes of its SHA-256) and `Cache-Control: no-cache`, so a
/// browser revalidates on every load and gets `304 Not Modified` until the gateway is upgraded. The three are served
/// under a strict Content-Security-Policy (``AdminHTTPResponder``: only their own script, style
/// and API; no framing, no `<base>`, no form submission), so the page has no inline script, style attribute or event
/// handler; and every value from the API goes into the page with `textContent` or `createElement`, never as markup
/// (an email is user input). Elements have stable ids, and `<body data-busy>` is "1" while a request is in flight and
/// "0" when idle, for the browser test (`Tests/http/admin_console.py`).
enum AdminConsole {
    /// One of the console's files, as it is served.
    struct File: Sendable {
        let body: ByteBuffer
        let contentType: String
        /// A strong entity tag: `"` + hex of the first 16 bytes of the body's SHA-256 + `"`.
        let entityTag: String

        init(_ bytes: [UInt8], contentType: String) {
            self.body = ByteBuffer(bytes: bytes)
            self.contentType = contentType
            self.entityTag = "\"" + SHA256.hash(bytes).prefix(16).map { String(format: "%02x", $0) }.joined() + "\""
        }
    }

    /// The files by path.
    static let files: [String: File] = [
        "/admin/": File(PackageResources.index_html, contentType: "text/html; charset=utf-8"),
        "/admin/console.js": File(PackageResources.console_js, contentType: "text/javascript; charset=utf-8"),
        "/admin/console.css": File(PackageResources.console_css, contentType: "text/css; charset=utf-8"),
    ]
}
