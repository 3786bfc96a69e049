public import FoyerWire
public import NIOCore

/// `startPasswordReset` request.
///
/// ```
/// string email                                       <= 320 bytes
/// bool   hasVerifierChallenge, bytes challenge       exactly 32 bytes: SHA-256 of a verifier the client keeps;
///                                                    when given, completing the reset needs that verifier
/// string source                                      <= 64 bytes: the client's address as the gateway saw it;
///                                                    empty for an internal caller
/// ```
public struct StartPasswordResetRequest: WireMessage, Hashable {
    public var email: String
    public var verifierChallenge: [UInt8]?
    /// The client's IP address (text), which the per-source limits count against; empty when there is no client.
    public var source: String

    public init(email: String, verifierChallenge: [UInt8]? = nil, source: String = "") {
        self.email = email
        self.verifierChallenge = verifierChallenge
        self.source = source
    }

    public init(from buffer: inout ByteBuffer) throws(WireError) {
        email = try buffer.readLengthPrefixedString("passwordReset.email", maxBytes: IdentityLimits.emailByteCountMax)
        verifierChallenge = try buffer.readOptional { (buffer) throws(WireError) in
            try buffer.readVerifierChallenge("passwordReset.verifierChallenge")
        }
        source = try buffer.readLengthPrefixedString(
            "passwordReset.source",
            maxBytes: IdentityLimits.sourceByteCountMax
        )
    }

    public func encode(into buffer: inout ByteBuffer) {
        buffer.writeLengthPrefixedString(email)
        buffer.writeOptional(verifierChallenge) { $0.writeLengthPrefixedBytes($1) }
        buffer.writeLengthPrefixedString(source)
    }
}

extension ByteBuffer {
    /// Reads a verifier challenge: exactly `IdentityLimits.verifierChallengeByteCount` bytes.
    mutating func readVerifierChallenge(_ field: String) throws(WireError) -> [UInt8] {
        let challenge = try readLengthPrefixedBytes(field, maxBytes: IdentityLimits.verifierChallengeByteCount)
        guard challenge.count == IdentityLimits.verifierChallengeByteCount else { throw .invalidValue(field) }
        return challenge
    }

    /// Reads a verifier: 1 to `IdentityLimits.verifierByteCountMax` bytes.
    mutating func readVerifier(_ field: String) throws(WireError) -> [UInt8] {
        let verifier = try readLengthPrefixedBytes(field, maxBytes: IdentityLimits.verifierByteCountMax)
        guard !verifier.isEmpty else { throw .invalidValue(field) }
        return verifier
    }

    /// Reads a password as sent: at most `IdentityLimits.passwordByteCountMax` bytes.
    mutating func readPassword(_ field: String) throws(WireError) -> String {
        try readLengthPrefixedString(field, maxBytes: IdentityLimits.passwordByteCountMax)
    }
}
