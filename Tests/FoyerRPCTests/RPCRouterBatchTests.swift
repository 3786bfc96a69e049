import FoyerAPI
import FoyerWire
import Logging
import NIOCore
import Synchronization
import Testing

@testable import FoyerRPC

@Suite("RPCRouter.registerBatch")
struct RPCRouterBatchTests {
    /// Doubles each total; a zero total is refused by the check, a total of 13 by the handler.
    static let double = RPCMethod<Batch<SumResponse>, Batch<SumResponse>>(
        id: 0x00F9,
        name: "test.doubleBatch",
        idempotent: true
    )

    struct Refusal: RPCStatusMapping {
        let message: String
        var rpcError: RPCError { RPCError(.failedPrecondition, message) }
    }

    /// The batches the handler was called with.
    final class Calls: Sendable {
        private let batches = Mutex<[[UInt64]]>([])
        var all: [[UInt64]] { batches.withLock { $0 } }
        func record(_ batch: [UInt64]) { batches.withLock { $0.append(batch) } }
    }

    /// A router serving `double`, and the batches its handler was called with.
    static func router() -> (RPCRouter, Calls) {
        let calls = Calls()
        var router = RPCRouter()
        router.registerBatch(
            double,
            mapping: Refusal.self,
            elements: \.elements,
            countMax: 1000,
            check: { element throws(Refusal) in
                guard element.total != 0 else { throw Refusal(message: "zero") }
            }
        ) { elements in
            calls.record(elements.map(\.total))
            guard !elements.contains(where: { $0.total == 13 }) else { throw Refusal(message: "unlucky") }
            return Batch(elements.map { SumResponse(total: $0.total * 2) })
        }
        return (router, calls)
    }

    static func call(_ router: RPCRouter, _ totals: [UInt64]) async throws -> [UInt64] {
        let route = try #require(router.route(for: double.id))
        let context = RPCContext(
            method: double.id,
            callID: 1,
            deadline: nil,
            peerAddress: nil,
            peerName: "test",
            isIdempotent: true,
            logger: Logger(label: "foyer.test.router"),
            allocator: ByteBufferAllocator()
        )
        let body = Batch(totals.map { SumResponse(total: $0) }).encoded()
        return try Batch<SumResponse>(decoding: try await route.handler(body, context)).elements.map(\.total)
    }

    @Test("a batch of good elements reaches the handler once, whole and in order")
    func wholeBatch() async throws {
        let (router, calls) = Self.router()
        #expect(try await Self.call(router, [3, 1, 2]) == [6, 2, 4])
        #expect(calls.all == [[3, 1, 2]])
    }

    @Test("an empty batch is refused invalid-argument without calling the handler")
    func emptyBatch() async throws {
        let (router, calls) = Self.router()
        await #expect(throws: RPCError.invalidArgument("a batch holds 1-1000 elements")) {
            try await Self.call(router, [])
        }
        #expect(calls.all.isEmpty)
    }

    @Test("one element failing the check refuses the whole batch with its status; nothing is done")
    func badElement() async throws {
        let (router, calls) = Self.router()
        await #expect(throws: RPCError(.failedPrecondition, "zero")) {
            try await Self.call(router, [1, 0, 2])
        }
        #expect(calls.all.isEmpty)
    }

    @Test("the handler's refusal becomes its status")
    func handlerRefusal() async throws {
        let (router, calls) = Self.router()
        await #expect(throws: RPCError(.failedPrecondition, "unlucky")) {
            try await Self.call(router, [13])
        }
        #expect(calls.all == [[13]])
    }
}
