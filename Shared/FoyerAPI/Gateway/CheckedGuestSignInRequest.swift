public import FoyerWire
public import NIOCore

/// `guestSignInWithCheck`: `guestSignIn`'s fields, then the proof for the deployment's sign-up check.
/// ```
/// string          idempotencyKey   as `GuestSignInRequest`
/// optional string loadTestSource   as `GuestSignInRequest`
/// optional SignUpProof proof       absent: no proof (admitted only where the check is `none`)
/// ```
///
/// A new method rather than a field added to `GuestSignInRequest`: released clients send that message, and a
/// message a released client sends never changes (docs/PROTOCOL.md §15). A gateway that predates it answers
/// `unimplemented`.
public struct CheckedGuestSignInRequest: WireMessage, Hashable {
    public var idempotencyKey: String
    public var loadTestSource: String?
    public var proof: SignUpProof?

    public init(idempotencyKey: String, loadTestSource: String? = nil, proof: SignUpProof?) {
        self.idempotencyKey = idempotencyKey
        self.loadTestSource = loadTestSource
        self.proof = proof
    }

    /// `guestSignIn`'s fields.
    public var signIn: GuestSignInRequest {
        GuestSignInRequest(idempotencyKey: idempotencyKey, loadTestSource: loadTestSource)
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        let signIn = try GuestSignInRequest(from: &buffer)
        idempotencyKey = signIn.idempotencyKey
        loadTestSource = signIn.loadTestSource
        proof = try buffer.readOptional { (buffer) throws(WireError) in try SignUpProof(from: &buffer) }
    }

    public func encode(into buffer: inout ByteBuffer) {
        signIn.encode(into: &buffer)
        buffer.writeOptional(proof) { $1.encode(into: &$0) }
    }
}
