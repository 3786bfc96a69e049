import FoyerAPI

/// What a user's access tokens grant beyond its uid and kind: the plan an operator set, if any, and the
/// app-defined roles (columns `plan` and `roles` of `identity_users`).
struct UserGrants: Sendable, Hashable {
    /// The plan an operator set; nil: the guest or member plan, by the user's kind.
    var plan: String?
    /// Sorted, without duplicates.
    var roles: [String]

    /// A new user's: no plan of its own, no roles.
    static let none = UserGrants(plan: nil, roles: [])

    init(plan: String?, roles: [String]) {
        self.plan = plan
        self.roles = roles
    }

    /// Reads the columns: `roles` holds the names joined by commas, or '' for none.
    init(plan: String?, rolesText: String) {
        self.init(plan: plan, roles: rolesText.isEmpty ? [] : rolesText.split(separator: ",").map(String.init))
    }

    /// The `roles` column's text.
    var rolesText: String { roles.joined(separator: ",") }

    /// A plan or role name: 1–64 bytes of `a-z 0-9 _ . -`, and `:` in roles (`app:editor`). Plans use guest-quota's
    /// alphabet so that any plan guest-quota knows can be named; roles never contain the column's comma.
    static func isValidName(_ name: String, allowingColon: Bool) -> Bool {
        let bytes = name.utf8
        guard (1...IdentityLimits.grantNameByteCountMax).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"),
                UInt8(ascii: "."), UInt8(ascii: "-"):
                true
            case UInt8(ascii: ":"): allowingColon
            default: false
            }
        }
    }
}
