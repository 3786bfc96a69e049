import FoyerRPC
import FoyerWire
import NIOCore
import Synchronization

/// Methods served by the test servers of this target.
enum TestMethods {
    /// Sleeps for the requested milliseconds, then answers; reports cancellation to `SleepProbe`.
    static let sleep = RPCMethod<SleepRequest, Empty>(id: 0x00F1, name: "test.sleep", idempotent: false)
    /// Fails with the requested status.
    static let fail = RPCMethod<FailRequest, Empty>(id: 0x00F2, name: "test.fail", idempotent: false)
    /// Throws an error that is not an RPCError.
    static let crash = RPCMethod<Empty, Empty>(id: 0x00F3, name: "test.crash", idempotent: false)
    /// Sums a list of integers (a body with a count, for bad-count tests).
    static let sum = RPCMethod<SumRequest, SumResponse>(id: 0x00F4, name: "test.sum", idempotent: true)
    /// Fails `unavailable` until called `failures` times, then answers with the number of the attempt.
    static let flaky = RPCMethod<FailRequest, SumResponse>(id: 0x00F5, name: "test.flaky", idempotent: false)
}

struct SleepRequest: WireMessage {
    var milliseconds: UInt32
    init(milliseconds: UInt32) { self.milliseconds = milliseconds }
    init(from buffer: inout ByteBuffer) throws(WireError) { milliseconds = try buffer.readWire() }
    func encode(into buffer: inout ByteBuffer) { buffer.writeInteger(milliseconds) }
}

struct FailRequest: WireMessage {
    var status: UInt16
    var times: UInt32
    init(status: RPCStatus, times: UInt32 = 0) {
        self.status = status.rawValue
        self.times = times
    }
    init(from buffer: inout ByteBuffer) throws(WireError) {
        status = try buffer.readWire()
        times = try buffer.readWire()
    }
    func encode(into buffer: inout ByteBuffer) { buffer.writeMultipleIntegers(status, times) }
}

struct SumRequest: WireMessage {
    static let countMax = 1000
    var values: [UInt64]
    init(values: [UInt64]) { self.values = values }
    init(from buffer: inout ByteBuffer) throws(WireError) {
        let count = try buffer.readCount("sum.values", maxCount: Self.countMax, minElementBytes: 1)
        values = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try buffer.readVarint()) }
    }
    func encode(into buffer: inout ByteBuffer) {
        buffer.writeVarint(UInt64(values.count))
        for value in values { buffer.writeVarint(value) }
    }
}

struct SumResponse: WireMessage {
    var total: UInt64
    init(total: UInt64) { self.total = total }
    init(from buffer: inout ByteBuffer) throws(WireError) { total = try buffer.readWire() }
    func encode(into buffer: inout ByteBuffer) { buffer.writeInteger(total) }
}

/// What the sleeping handler saw, for tests that cancel or time out calls.
final class SleepProbe: Sendable {
    private let state = Mutex((started: 0, cancelled: 0, completed: 0))
    private let flakyCalls = Mutex(0)

    var started: Int { state.withLock { $0.started } }
    var cancelled: Int { state.withLock { $0.cancelled } }
    var completed: Int { state.withLock { $0.completed } }

    func router() -> RPCRouter {
        var router = RPCRouter()
        router.register(TestMethods.sleep) { request, _ in
            self.state.withLock { $0.started += 1 }
            do {
                try await Task.sleep(for: .milliseconds(Int(request.milliseconds)))
            } catch {
                self.state.withLock { $0.cancelled += 1 }
                throw error
            }
            self.state.withLock { $0.completed += 1 }
            return Empty()
        }
        router.register(TestMethods.fail) { request, _ in
            throw RPCError(RPCStatus(rawValue: request.status), "failing as asked", retryAfterMilliseconds: 5)
        }
        router.register(TestMethods.crash) { _, _ in
            struct Secret: Error { let detail = "database password is hunter2" }
            throw Secret()
        }
        router.register(TestMethods.sum) { request, _ in SumResponse(total: request.values.reduce(0, &+)) }
        router.register(TestMethods.flaky) { request, _ in
            let attempt = self.flakyCalls.withLock { calls in
                calls += 1
                return calls
            }
            guard attempt > Int(request.times) else {
                throw RPCError(RPCStatus(rawValue: request.status), "not yet")
            }
            return SumResponse(total: UInt64(attempt))
        }
        return router
    }
}
