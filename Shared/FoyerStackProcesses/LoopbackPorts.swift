#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Free ports on 127.0.0.1, and whether something listens on one.
public enum LoopbackPorts {
    /// `count` distinct ports the kernel had free a moment ago: each is bound to port 0 and read back, and all are
    /// held until every one is known, so they differ. Another process may still take one before a service binds it.
    public static func reserve(_ count: Int) throws(StackProcessesError) -> [Int] {
        var sockets: [Int32] = []
        defer { for socket in sockets { close(socket) } }
        var ports: [Int] = []
        for _ in 0..<count {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw .noFreePort("socket() failed: \(lastError())") }
            sockets.append(descriptor)
            var address = loopback(port: 0)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw .noFreePort("bind(127.0.0.1:0) failed: \(lastError())") }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
            }
            guard named == 0 else { throw .noFreePort("getsockname() failed: \(lastError())") }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }

    /// Whether a TCP connection to 127.0.0.1:`port` is accepted (a refused connect on loopback answers at once).
    public static func accepts(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return connected == 0
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}
