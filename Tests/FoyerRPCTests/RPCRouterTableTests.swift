import FoyerRPC
import FoyerWire
import Testing

@Suite("A router built from an operation table")
struct RPCRouterTableTests {
    private let table = [TestMethods.sleep.descriptor, TestMethods.sum.descriptor]

    @Test("Lists the table's methods without a handler, in id order, until each has one")
    func unservedUntilRegistered() {
        var router = RPCRouter(serving: table.reversed())
        #expect(router.unservedMethods == table)
        router.register(TestMethods.sum) { request, _ in SumResponse(total: request.values.reduce(0, +)) }
        #expect(router.unservedMethods == [TestMethods.sleep.descriptor])
        router.register(TestMethods.sleep) { _, _ in Empty() }
        #expect(router.unservedMethods.isEmpty)
    }

    @Test("Serves the table's very methods and the built-ins; not another method, nor a table id under another name")
    func servesOnlyTheTable() {
        let router = RPCRouter(serving: table)
        #expect(router.serves(TestMethods.sleep.descriptor))
        #expect(router.serves(BuiltinMethods.health.descriptor))
        #expect(router.serves(BuiltinMethods.echo.descriptor))
        #expect(!router.serves(TestMethods.fail.descriptor))
        #expect(!router.serves(RPCMethodDescriptor(id: TestMethods.sleep.id, name: "test.nap", isIdempotent: false)))
        #expect(!router.serves(RPCMethodDescriptor(id: TestMethods.sleep.id, name: "test.sleep", isIdempotent: true)))
    }

    @Test("A router without a table serves anything and lacks nothing")
    func withoutTable() {
        let router = RPCRouter()
        #expect(router.serves(TestMethods.fail.descriptor))
        #expect(router.unservedMethods.isEmpty)
    }
}
