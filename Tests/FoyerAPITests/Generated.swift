import FoyerWire

/// A message type with a generator of varied valid values (the `<Service>+Generated.swift` files conform every
/// request, response and error-details type of the five operation tables).
protocol Generated: WireMessage, Equatable {
    /// A valid value: every field within what its decoder accepts, drawn from `values`.
    static func generate(_ values: inout WireValues) -> Self
}

extension Empty: Generated {
    static func generate(_ values: inout WireValues) -> Empty { Empty() }
}
