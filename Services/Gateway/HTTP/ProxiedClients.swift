import NIOCore
import Synchronization

/// The client addresses that PROXY headers named, per open connection of the HTTP listener: recorded before the
/// connection's first request is read, forgotten when it closes (so at most one entry per open connection).
final class ProxiedClients: Sendable {
    private let addresses = Mutex<[ObjectIdentifier: SocketAddress]>([:])

    /// Records `address` as the client of `connection` (`ObjectIdentifier` of its channel).
    func set(_ address: SocketAddress, for connection: ObjectIdentifier) {
        addresses.withLock { $0[connection] = address }
    }

    func remove(_ connection: ObjectIdentifier) {
        _ = addresses.withLock { $0.removeValue(forKey: connection) }
    }

    /// The client a PROXY header named for `connection`; nil when it sent none.
    func address(of connection: ObjectIdentifier) -> SocketAddress? {
        addresses.withLock { $0[connection] }
    }
}
