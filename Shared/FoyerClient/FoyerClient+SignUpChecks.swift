import Crypto
public import FoyerAPI
import FoyerWire

/// What the client shows for the deployment's sign-up check when it signs in a new guest (`--sign-up-check` on
/// the gateway; the app must know which its deployment runs).
public enum GuestSignUpCheck: Sendable, Hashable {
    /// No proof: what a deployment with the check `none` takes (`guestSignIn`, as released clients call it).
    case none
    /// The client asks for a proof-of-work challenge and solves it itself before signing in (CPU for a fraction of
    /// a second at the default difficulty).
    case proofOfWork
    /// A token from the deployment's captcha widget (Cloudflare Turnstile, hCaptcha, reCAPTCHA), which the gateway
    /// checks with the provider. A token is good for one sign-in: get a new one after a failure.
    case siteverify(token: String)
}

extension FoyerClient {
    /// Signs in as a new guest with the proof the deployment's sign-up check asks for, and adopts its session.
    ///
    /// A deployment that checks sign-ups refuses a guest sign-in without a proof `signUpCheckRequired`, and a wrong
    /// one (a spent, expired or unsolved challenge, a refused token) `signUpCheckFailed`; `unavailable` when its
    /// verifier cannot be reached (nothing was spent: try again later).
    ///
    /// - Parameters:
    ///   - idempotencyKey: as `signInAsGuest(idempotencyKey:loadTestSource:)`; a retry with the same key and the
    ///     same proof returns the same guest.
    ///   - signUpCheck: the proof to show; `.proofOfWork` fetches and solves a challenge first.
    @discardableResult
    public func signInAsGuest(
        idempotencyKey: String = OperationID.make(),
        loadTestSource: String? = nil,
        signUpCheck: GuestSignUpCheck
    ) async throws(FoyerError) -> SessionTokens {
        let proof: SignUpProof
        switch signUpCheck {
        case .none:
            return try await signInAsGuest(idempotencyKey: idempotencyKey, loadTestSource: loadTestSource)
        case .siteverify(let token):
            proof = .siteverify(token: token)
        case .proofOfWork:
            let challenge = try await signUpChallenge()
            guard let nonce = Self.solve(challenge) else {
                throw FoyerError(status: .cancelled, message: "solving the sign-up challenge was cancelled")
            }
            proof = .proofOfWork(challenge: challenge.challenge, nonce: nonce)
        }
        let session = try await call(
            GatewayMethods.guestSignInWithCheck,
            CheckedGuestSignInRequest(idempotencyKey: idempotencyKey, loadTestSource: loadTestSource, proof: proof)
        )
        adopt(session)
        return session
    }

    /// A proof-of-work challenge from a deployment whose sign-up check is proof-of-work (`failedPrecondition` from
    /// another).
    public func signUpChallenge() async throws(FoyerError) -> SignUpChallenge {
        try await call(GatewayMethods.signUpChallenge, Empty())
    }

    /// The first nonce (``ProofOfWork/nonce(_:)``: a counter from 0, 8 bytes big-endian) for which
    /// SHA-256(challenge || nonce) has the challenge's leading zero bits; nil if the task is cancelled first.
    public static func solve(_ challenge: SignUpChallenge) -> [UInt8]? {
        let difficulty = Int(challenge.difficulty)
        var counter: UInt64 = 0
        while true {
            let nonce = ProofOfWork.nonce(counter)
            var hasher = SHA256()
            hasher.update(data: challenge.challenge)
            hasher.update(data: nonce)
            if ProofOfWork.meets(hasher.finalize(), difficulty: difficulty) { return nonce }
            counter &+= 1
            if counter & 0xFFF == 0, Task.isCancelled { return nil }
        }
    }
}
