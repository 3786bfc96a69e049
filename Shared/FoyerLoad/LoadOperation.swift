/// One kind of request a scenario makes, named as the report shows it.
public struct LoadOperation: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let name: String

    public init(_ name: String) { self.name = name }

    public var description: String { name }
    public static func < (lhs: LoadOperation, rhs: LoadOperation) -> Bool { lhs.name < rhs.name }

    public static let guestSignIn = LoadOperation("guest-sign-in")
    public static let signIn = LoadOperation("sign-in")
    public static let signOut = LoadOperation("sign-out")
    public static let put = LoadOperation("put")
    public static let get = LoadOperation("get")
    public static let link = LoadOperation("link")
    public static let deleteAccount = LoadOperation("delete-account")
    public static let refresh = LoadOperation("refresh")
}
