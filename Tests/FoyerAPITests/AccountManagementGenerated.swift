import FoyerAPI
import FoyerWire

/// The messages of account management (password reset and change, removing a credential, changing the email
/// address), identity's and the gateway's.
extension WireValues {
    mutating func password() -> String { text(maxBytes: IdentityLimits.passwordByteCountMax) }
    mutating func verifierChallenge() -> [UInt8]? {
        optional {
            $0.bytes(
                minBytes: IdentityLimits.verifierChallengeByteCount,
                maxBytes: IdentityLimits.verifierChallengeByteCount
            )
        }
    }
    mutating func verifier() -> [UInt8]? {
        optional { $0.bytes(minBytes: 1, maxBytes: IdentityLimits.verifierByteCountMax) }
    }
    mutating func sessionID() -> String { text(.uid, maxBytes: IdentityLimits.sessionIDByteCountMax) }
}

extension StartPasswordResetRequest: Generated {
    static func generate(_ values: inout WireValues) -> StartPasswordResetRequest {
        StartPasswordResetRequest(
            email: values.email(),
            verifierChallenge: values.verifierChallenge(),
            source: values.source()
        )
    }
}

extension CompletePasswordResetRequest: Generated {
    static func generate(_ values: inout WireValues) -> CompletePasswordResetRequest {
        CompletePasswordResetRequest(
            token: values.secretToken(),
            verifier: values.verifier(),
            newPassword: values.password(),
            source: values.source()
        )
    }
}

extension ChangePasswordRequest: Generated {
    static func generate(_ values: inout WireValues) -> ChangePasswordRequest {
        ChangePasswordRequest(
            uid: values.uid(),
            sessionID: values.sessionID(),
            currentPassword: values.optional { $0.password() },
            newPassword: values.password(),
            source: values.source()
        )
    }
}

extension UnlinkCredentialRequest: Generated {
    static func generate(_ values: inout WireValues) -> UnlinkCredentialRequest {
        UnlinkCredentialRequest(
            uid: values.uid(),
            sessionID: values.sessionID(),
            credential: values.anyCase(of: CredentialKind.self)
        )
    }
}

extension PasswordResetStartRequest: Generated {
    static func generate(_ values: inout WireValues) -> PasswordResetStartRequest {
        PasswordResetStartRequest(email: values.email(), verifierChallenge: values.verifierChallenge())
    }
}

extension PasswordResetCompleteRequest: Generated {
    static func generate(_ values: inout WireValues) -> PasswordResetCompleteRequest {
        PasswordResetCompleteRequest(
            token: values.secretToken(),
            verifier: values.verifier(),
            newPassword: values.password()
        )
    }
}

extension PasswordChangeRequest: Generated {
    static func generate(_ values: inout WireValues) -> PasswordChangeRequest {
        PasswordChangeRequest(
            accessToken: values.accessToken(),
            currentPassword: values.optional { $0.password() },
            newPassword: values.password()
        )
    }
}

extension UnlinkRequest: Generated {
    static func generate(_ values: inout WireValues) -> UnlinkRequest {
        UnlinkRequest(accessToken: values.accessToken(), credential: values.anyCase(of: CredentialKind.self))
    }
}

extension StartEmailChangeRequest: Generated {
    static func generate(_ values: inout WireValues) -> StartEmailChangeRequest {
        StartEmailChangeRequest(
            uid: values.uid(),
            sessionID: values.sessionID(),
            currentPassword: values.optional { $0.password() },
            newEmail: values.email(),
            verifierChallenge: values.verifierChallenge(),
            source: values.source()
        )
    }
}

extension CompleteEmailChangeRequest: Generated {
    static func generate(_ values: inout WireValues) -> CompleteEmailChangeRequest {
        CompleteEmailChangeRequest(token: values.secretToken(), verifier: values.verifier())
    }
}

extension EmailChangeStartRequest: Generated {
    static func generate(_ values: inout WireValues) -> EmailChangeStartRequest {
        EmailChangeStartRequest(
            accessToken: values.accessToken(),
            currentPassword: values.optional { $0.password() },
            newEmail: values.email(),
            verifierChallenge: values.verifierChallenge()
        )
    }
}
