public import FoyerWire

extension RPCRouter {
    /// Registers a batch method: one call for many elements, done by the service in one transaction (the
    /// `Batch` bodies of FoyerAPI).
    ///
    /// Before `handler` runs, an empty batch is refused `invalidArgument` ("a batch holds 1-`countMax` elements";
    /// the decoder already refuses more than `countMax`) and every element passes `check`, so one bad element
    /// refuses the whole batch and nothing is done. `Failure` errors, from `check` or `handler`, become their
    /// statuses as with ``register(_:mapping:_:)``.
    ///
    /// - Parameters:
    ///   - elements: the request's elements (`\.elements`).
    ///   - countMax: the most elements a batch holds, for the refusal's message.
    ///   - check: the single method's checks of one element.
    ///   - handler: does the whole batch and answers one element per request element.
    public mutating func registerBatch<Request, Response, Element, Failure: RPCStatusMapping>(
        _ method: RPCMethod<Request, Response>,
        mapping: Failure.Type,
        elements: @escaping @Sendable (Request) -> [Element],
        countMax: Int,
        check: @escaping @Sendable (Element) throws(Failure) -> Void,
        _ handler: @escaping @Sendable ([Element]) async throws -> Response
    ) {
        register(method, mapping: mapping) { request in
            let batch = elements(request)
            guard !batch.isEmpty else { throw RPCError.invalidArgument("a batch holds 1-\(countMax) elements") }
            for element in batch { try check(element) }
            return try await handler(batch)
        }
    }
}
