import FoyerAPI
import FoyerWire
import NIOCore

/// The gateway's client-facing bodies under the fuzzer: the first input byte picks a request or response type
/// (modulo the number of types), the rest is decoded as its body.
///
/// Whatever decodes must encode back to the very bytes it came from (one encoding per value) and decode again to
/// an equal value; anything else stops the run as a crash, with the input saved.
enum GatewayBodies {
    /// A type's name and its check; the check answers whether the body decoded.
    typealias Check = (name: String, run: @Sendable (ByteBuffer) -> Bool)

    /// Every body a client sends the gateway or gets back from it, including the details of its errors.
    static let checks: [Check] = [
        // Requests
        check(AuthenticatedRequest.self),
        check(OperationRequest.self),
        check(GuestSignInRequest.self),
        check(SignInRequest.self),
        check(RefreshSessionRequest.self),
        check(EmailLinkStartRequest.self),
        check(LinkRequest.self),
        check(ResolveConflictRequest.self),
        check(GatewayPutRequest.self),
        check(GatewayDocumentRequest.self),
        check(GatewayListRequest.self),
        check(GatewayExportRequest.self),
        check(GatewayImportRequest.self),
        check(Empty.self),
        // Responses and error details
        check(SessionTokens.self),
        check(SignOutResponse.self),
        check(MeResponse.self),
        check(QuotaUsageResponse.self),
        check(LinkResult.self),
        check(DeletionReport.self),
        check(PutDocumentResponse.self),
        check(GetDocumentResponse.self),
        check(DocumentPage.self),
        check(DeleteDocumentResponse.self),
        check(ImportResponse.self),
        check(JWKSResponse.self),
        check(ConflictDetails.self),
        check(QuotaExceededDetails.self),
    ]

    /// Decodes `input` after its first byte as the type that byte picks.
    ///
    /// - Returns: the type's name if the body decoded, nil otherwise.
    @discardableResult
    static func exercise(_ input: ByteBuffer) -> String? {
        var body = input
        guard let selector = body.readInteger(as: UInt8.self) else { return nil }
        let check = checks[Int(selector) % checks.count]
        return check.run(body) ? check.name : nil
    }

    private static func check<M: WireMessage & Equatable>(_: M.Type) -> Check {
        ("\(M.self)", { body in reencodes(M.self, body) })
    }

    private static func reencodes<M: WireMessage & Equatable>(_: M.Type, _ body: ByteBuffer) -> Bool {
        guard let message = try? M(decoding: body) else { return false }
        let encoded = message.encoded()
        guard encoded == body else {
            preconditionFailure("\(M.self) encodes a decoded body to other bytes: \(body.hexDump(format: .plain))")
        }
        guard let again = try? M(decoding: encoded), again == message else {
            preconditionFailure("\(M.self) does not decode its own encoding to an equal value")
        }
        return true
    }
}
