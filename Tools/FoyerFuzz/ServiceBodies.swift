import FoyerAPI
import FoyerWire
import NIOCore

/// The request and response bodies of one service's methods under the fuzzer (the targets `identity`,
/// `guest-quota`, `user-data`, `cleanup`, `gateway`): the first input byte picks a method's request or response
/// type (modulo the number of types), the rest is decoded as its body.
///
/// Whatever decodes must encode back to the very bytes it came from (one encoding per value) and decode again to
/// an equal value; anything else stops the run as a crash, with the input saved.
struct ServiceBodies: Sendable {
    /// A body type's name and its check; the check answers whether the body decoded.
    struct Check: Sendable {
        let name: String
        let run: @Sendable (ByteBuffer) -> Bool
    }

    let service: String
    /// The service's operation table (`<Service>Methods.all`), which `methods` must cover exactly.
    let table: [RPCMethodDescriptor]
    /// The typed methods: the descriptor and the checks of its request and response types.
    let methods: [(descriptor: RPCMethodDescriptor, request: Check, response: Check)]
    /// Bodies that are no method's request or response: the details of the service's errors.
    let details: [Check]

    /// Every type to fuzz, in selector order: each method's request then response, then the error details.
    let checks: [Check]

    init(
        service: String,
        table: [RPCMethodDescriptor],
        methods: [(descriptor: RPCMethodDescriptor, request: Check, response: Check)],
        details: [Check]
    ) {
        self.service = service
        self.table = table
        self.methods = methods
        self.details = details
        self.checks = methods.flatMap { [$0.request, $0.response] } + details
    }

    var target: FuzzTarget {
        FuzzTarget(
            name: service,
            summary: "\(service)'s request, response and error-detail bodies (first byte picks the type)",
            run: { exercise(ByteBuffer(bytes: $0)) },
            seeds: { FuzzSeeds.serviceSeeds(self) }
        )
    }

    /// Decodes `input` after its first byte as the type that byte picks.
    ///
    /// - Returns: the type's name if the body decoded, nil otherwise.
    @discardableResult
    func exercise(_ input: ByteBuffer) -> String? {
        var body = input
        guard let selector = body.readInteger(as: UInt8.self) else { return nil }
        let check = checks[Int(selector) % checks.count]
        return check.run(body) ? check.name : nil
    }

    /// Stops the run if a method of the operation table has no typed entry here, or the other way round, so a new
    /// method cannot go unfuzzed (`foyer-fuzz` checks every table when it starts).
    func checkCoversTable() {
        let typed = methods.map(\.descriptor)
        guard Set(typed) == Set(table), typed.count == table.count else {
            FuzzTarget.violated(
                service,
                "the typed methods \(typed) are not the operation table \(table): update ServiceBodies"
            )
        }
    }

    static func method<Request: WireMessage & Equatable, Response: WireMessage & Equatable>(
        _ method: RPCMethod<Request, Response>,
        of service: String
    ) -> (descriptor: RPCMethodDescriptor, request: Check, response: Check) {
        (method.descriptor, check(Request.self, service), check(Response.self, service))
    }

    static func check<M: WireMessage & Equatable>(_: M.Type, _ service: String) -> Check {
        Check(name: "\(M.self)", run: { body in reencodes(M.self, body, target: service) })
    }

    /// Decodes `body` as `M`; if it decodes, checks that the value encodes to the same bytes and decodes again to an
    /// equal value, and stops the run if not.
    ///
    /// - Returns: whether `body` decoded.
    @discardableResult
    static func reencodes<M: WireMessage & Equatable>(_: M.Type, _ body: ByteBuffer, target: String) -> Bool {
        guard let message = try? M(decoding: body) else { return false }
        let encoded = message.encoded()
        guard encoded == body else {
            FuzzTarget.violated(
                target,
                "\(M.self) encodes a decoded body to other bytes: \(body.hexDump(format: .plain))"
            )
        }
        guard let again = try? M(decoding: encoded), again == message else {
            FuzzTarget.violated(target, "\(M.self) does not decode its own encoding to an equal value")
        }
        return true
    }
}
