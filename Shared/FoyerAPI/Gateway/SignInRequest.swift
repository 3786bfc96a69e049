public import FoyerWire
public import NIOCore

/// `signIn`: a `Credential`.
public struct SignInRequest: WireMessage, Hashable {
    public var credential: Credential

    public init(credential: Credential) { self.credential = credential }

    public init(from buffer: inout ByteBuffer) throws(WireError) { credential = try Credential(from: &buffer) }

    public func encode(into buffer: inout ByteBuffer) { credential.encode(into: &buffer) }
}
