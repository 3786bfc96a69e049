import NIOConcurrencyHelpers
public import NIOSSL

/// A TLS context that can be rebuilt from its files while connections use it: each new connection takes
/// ``current``; ``reload()`` builds a new context and swaps it in, so connections opened before keep theirs. A
/// reload that fails (a file missing or unreadable, a key that does not match) throws and leaves the old context.
public final class ReloadableTLSContext: Sendable, Equatable {
    private let make: @Sendable () throws -> NIOSSLContext
    private let context: NIOLockedValueBox<NIOSSLContext>

    /// Builds the first context now.
    /// - Parameter make: reads the files and builds a context; called again by every ``reload()``.
    /// - Throws: what `make` throws.
    public init(make: @escaping @Sendable () throws -> NIOSSLContext) throws {
        self.make = make
        self.context = NIOLockedValueBox(try make())
    }

    /// The context for a new connection.
    public var current: NIOSSLContext { context.withLockedValue { $0 } }

    /// Rebuilds the context from the files; on failure the old one stays in use.
    /// - Throws: what `make` throws.
    public func reload() throws {
        let fresh = try make()
        context.withLockedValue { $0 = fresh }
    }

    /// Identity: two values are equal when they are the same object.
    public static func == (lhs: ReloadableTLSContext, rhs: ReloadableTLSContext) -> Bool { lhs === rhs }
}
