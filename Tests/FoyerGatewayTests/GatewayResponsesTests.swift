import FoyerAPI
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("Gateway contract: responses refuse what the contract does not allow")
struct GatewayResponsesTests {
    typealias Samples = GatewaySamples
    typealias Expect = WireExpectations

    private let session = GatewaySamples.sessions[0]
    private let user = GatewaySamples.users[0]
    private let usage = GatewaySamples.usages[0]

    private func me(user: UserInfo? = nil, usage: QuotaUsageResponse? = nil) -> MeResponse {
        MeResponse(user: user ?? self.user, usage: usage ?? self.usage)
    }

    private func merged(_ report: MergeReport) -> LinkResult {
        .merged(session, report)
    }

    private func conflicts(_ count: Int) -> [MergeReport.Conflict] {
        Array(repeating: .init(collection: "", key: "", resolution: .keptAccount), count: count)
    }

    @Test("Lists of the smallest elements the encoding allows decode, up to their caps")
    func smallestElements() throws {
        let document = StoredDocument(
            collection: "",
            key: "",
            value: ByteBuffer(),
            version: 0,
            updatedAtMicroseconds: 0
        )
        let documents = DocumentPage(
            documents: Array(repeating: document, count: UserDataLimits.pageSizeLimit),
            nextCursor: nil
        )
        #expect(try DocumentPage(decoding: documents.encoded()) == documents)
        let usage = QuotaUsageResponse(
            plan: "",
            counters: Array(
                repeating: CounterUsage(counter: "", limit: 0, used: 0),
                count: GuestQuotaLimits.entriesMax
            ),
            features: Array(repeating: FeatureFlag(feature: "", enabled: false), count: GuestQuotaLimits.entriesMax)
        )
        #expect(try QuotaUsageResponse(decoding: usage.encoded()) == usage)
        let providers = Array(
            repeating: LinkedIdentity(provider: .apple, subject: "", email: nil, emailTrusted: false),
            count: IdentityLimits.providersCountMax
        )
        var user = self.user
        user.providers = providers
        #expect(try MeResponse(decoding: me(user: user).encoded()) == me(user: user))
        let report = merged(MergeReport(listedConflicts: conflicts(UserDataLimits.listedConflictsMax)))
        #expect(try LinkResult(decoding: report.encoded()) == report)
        try WireMessageChecks.roundTrip(DocumentPage(documents: [document, document], nextCursor: nil))
        try WireMessageChecks.roundTrip(
            QuotaUsageResponse(
                plan: "",
                counters: Array(repeating: CounterUsage(counter: "", limit: 0, used: 0), count: 2),
                features: Array(repeating: FeatureFlag(feature: "", enabled: true), count: 2)
            )
        )
    }

    @Test("Lists over their caps are refused")
    func countCaps() {
        let document = Samples.documents[1]
        Expect.cap(UserDataLimits.pageSizeLimit) {
            DocumentPage(documents: Array(repeating: document, count: $0), nextCursor: nil)
        }
        Expect.cap(GuestQuotaLimits.entriesMax) {
            me(
                usage: QuotaUsageResponse(
                    plan: "p",
                    counters: Array(repeating: .init(counter: "c", limit: 1, used: 0), count: $0),
                    features: []
                )
            )
        }
        Expect.cap(GuestQuotaLimits.entriesMax) {
            me(
                usage: QuotaUsageResponse(
                    plan: "p",
                    counters: [],
                    features: Array(repeating: .init(feature: "f", enabled: true), count: $0)
                )
            )
        }
        Expect.cap(IdentityLimits.providersCountMax) { count in
            var user = self.user
            user.providers = Array(repeating: Samples.linkedIdentities[0], count: count)
            return me(user: user)
        }
        Expect.cap(UserDataLimits.listedConflictsMax) { merged(MergeReport(listedConflicts: conflicts($0))) }
    }

    @Test("A count no body could hold is refused before any element is read or allocated")
    func hostileCounts() {
        for count in Expect.hostileVarints {
            #expect(throws: WireError.lengthOverLimit) {
                try DocumentPage(decoding: Expect.body { $0.writeVarint(count) })
            }
            let usage = Expect.body {
                $0.writeLengthPrefixedString("guest")
                $0.writeVarint(count)
            }
            #expect(throws: WireError.lengthOverLimit) { try QuotaUsageResponse(decoding: usage) }
            let report = Expect.body {
                for _ in 0..<5 { $0.writeVarint(0) }
                $0.writeVarint(count)
            }
            #expect(throws: WireError.lengthOverLimit) { try MergeReport(decoding: report) }
        }
        // Counts at the cap with too few bytes left for that many of the smallest elements.
        var page = Expect.body { $0.writeVarint(UInt64(UserDataLimits.pageSizeLimit)) }
        page.writeRepeatingByte(0, count: 12 * UserDataLimits.pageSizeLimit - 1)
        #expect(throws: WireError.countOverRemaining) { try DocumentPage(decoding: page) }
        var counters = Expect.body {
            $0.writeLengthPrefixedString("guest")
            $0.writeVarint(UInt64(GuestQuotaLimits.entriesMax))
        }
        counters.writeRepeatingByte(0, count: 4 * GuestQuotaLimits.entriesMax - 1)
        #expect(throws: WireError.countOverRemaining) { try QuotaUsageResponse(decoding: counters) }
        var report = Expect.body { for _ in 0..<5 { $0.writeVarint(0) } }
        report.writeVarint(UInt64(UserDataLimits.listedConflictsMax))
        report.writeRepeatingByte(0, count: 4 * UserDataLimits.listedConflictsMax - 1)
        #expect(throws: WireError.countOverRemaining) { try MergeReport(decoding: report) }
    }

    @Test("Strings and bytes over their caps are refused")
    func lengthCaps() {
        Expect.cap(IdentityLimits.accessTokenByteCountMax) { count in
            var session = self.session
            session.accessToken = Samples.ascii(count)
            return LinkResult.linked(session)
        }
        Expect.cap(IdentityLimits.emailByteCountMax) { count in
            var user = self.user
            user.email = Samples.multibyte(count)
            return me(user: user)
        }
        Expect.cap(GuestQuotaLimits.nameByteCountMax) {
            me(usage: QuotaUsageResponse(plan: Samples.ascii($0), counters: [], features: []))
        }
        Expect.cap(UserDataLimits.collectionByteCountMax) {
            merged(
                MergeReport(listedConflicts: [.init(collection: Samples.ascii($0), key: "k", resolution: .keptGuest)])
            )
        }
        Expect.cap(UserDataLimits.keyByteCountMax) {
            merged(
                MergeReport(listedConflicts: [
                    .init(collection: "c", key: "k", resolution: .keptBoth, derivedKey: Samples.multibyte($0))
                ])
            )
        }
        Expect.cap(UserDataLimits.cursorByteCountMax) { DocumentPage(documents: [], nextCursor: Samples.bytes($0)) }
        Expect.cap(UserDataLimits.valueWireByteCountMax) { count in
            var document = Samples.documents[0]
            document.value = Samples.bytes(count)
            return GetDocumentResponse(document: document)
        }
        Expect.cap(IdentityLimits.jwksByteCountMax) { JWKSResponse(json: Array(repeating: 0x20, count: $0)) }
    }

    @Test("Outcomes, resolutions, account states, booleans and presence flags the contract does not define are refused")
    func unknownTags() {
        Expect.tag(
            of: LinkResult.linked(session),
            at: 0,
            valid: Set(LinkOutcome.allCases.map(\.rawValue)),
            validKeepLayout: false
        )
        // The outcome and the session, then the report: moved…keptBoth (5 one-byte varints), count, collection (""),
        // key (""), then the resolution and the derived key's flag.
        let reportStart = Expect.body {
            $0.writeInteger(LinkOutcome.merged.rawValue)
            session.encode(into: &$0)
        }.readableBytes
        let report = merged(MergeReport(listedConflicts: conflicts(1)))
        Expect.tag(of: report, at: reportStart + 8, valid: [0, 1, 2])
        Expect.tag(of: report, at: reportStart + 9, valid: [0, 1], validKeepLayout: false)

        Expect.tag(of: SignOutResponse(accountDeleted: true), at: 0, valid: [0, 1])
        Expect.tag(of: DeleteDocumentResponse(deleted: false), at: 0, valid: [0, 1])
        Expect.tag(of: GetDocumentResponse(document: nil), at: 0, valid: [0, 1], validKeepLayout: false)
        Expect.tag(of: DocumentPage(documents: [], nextCursor: nil), at: 1, valid: [0, 1], validKeepLayout: false)

        // uid ("u1"), isAnonymous, then the state: uid ("u1"), kind.
        let response = me()
        Expect.tag(of: response, at: 3, valid: [0, 1])
        Expect.tag(of: response, at: 7, valid: Set(AccountStateKind.allCases.map(\.rawValue)))
        var user = self.user
        user.providers = [Samples.linkedIdentities[0]]
        let provider = Expect.body {
            var head = user
            head.providers = []
            head.encode(into: &$0)
        }.readableBytes
        Expect.tag(of: me(user: user), at: provider, valid: Set(IdentityProvider.allCases.map(\.rawValue)))
        let feature =
            Expect.body {
                me(usage: QuotaUsageResponse(plan: "p", counters: [], features: [])).encode(into: &$0)
            }.readableBytes + 1
        Expect.tag(
            of: me(usage: QuotaUsageResponse(plan: "p", counters: [], features: [.init(feature: "", enabled: true)])),
            at: feature,
            valid: [0, 1]
        )
    }
}
