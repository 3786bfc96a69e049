import FoyerAPI
import FoyerTestSupport
import FoyerWire

/// One service's operation table with the round-trip checks of its methods' request and response types, looked
/// up by method id, and of its error details.
struct ServiceGenerators: Sendable {
    /// The checks of one method: its request type and its response type.
    struct MethodChecks: Sendable {
        let descriptor: RPCMethodDescriptor
        let request: RoundTripCheck
        let response: RoundTripCheck

        init<Request: Generated, Response: Generated>(_ method: RPCMethod<Request, Response>) {
            descriptor = method.descriptor
            request = RoundTripCheck(Request.self)
            response = RoundTripCheck(Response.self)
        }
    }

    let service: String
    /// `<Service>Methods.all`: every method here must have its checks in `methods`.
    let table: [RPCMethodDescriptor]
    /// The checks by method id.
    let methods: [UInt16: MethodChecks]
    /// The service's error-details types.
    let details: [RoundTripCheck]

    init(service: String, table: [RPCMethodDescriptor], methods: [MethodChecks], details: [RoundTripCheck]) {
        self.service = service
        self.table = table
        self.methods = Dictionary(methods.map { ($0.descriptor.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.details = details
    }

    /// Runs `count` generated values through each request, response and error-details check of the service.
    ///
    /// - Returns: one line per failure: the method (or methods without checks), the type, what failed and the
    ///   seed that generates the failing value again.
    func failures(valuesPerType count: Int, seed: UInt64) -> [String] {
        var failures: [String] = []
        var seeds = SplitMix64(seed: seed)
        var checked: [(String, RoundTripCheck)] = []
        for descriptor in table {
            guard let checks = methods[descriptor.id], checks.descriptor == descriptor else {
                failures.append("\(descriptor.name) (0x\(String(descriptor.id, radix: 16))) has no generator")
                continue
            }
            checked += [
                ("\(descriptor.name) request", checks.request), ("\(descriptor.name) response", checks.response),
            ]
        }
        checked += details.map { ("\(service) error details", $0) }
        for (label, check) in checked {
            for _ in 0..<count {
                let valueSeed = seeds.next()
                do {
                    try check.run(valueSeed)
                } catch {
                    failures.append(
                        "\(label) \(check.typeName), value seed 0x\(String(valueSeed, radix: 16)): \(error)"
                    )
                    break
                }
            }
        }
        return failures
    }
}
