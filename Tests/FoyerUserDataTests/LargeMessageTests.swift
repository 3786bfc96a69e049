import FoyerAPI
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

@Suite("large values and pages travel as single bodies, compressed when that saves")
struct LargeMessageTests {
    @Test("a compressible 256 KiB value and a page of them round-trip over a compressing connection")
    func compressibleValues() async throws {
        try await withUserData(.sqlite) { data async throws in
            let uid = testUID()
            let text = ByteBuffer(string: String(repeating: "the same sentence, again and again. ", count: 7282))
            let value = text.getSlice(at: 0, length: 256 * 1024)!
            for index in 0..<3 { try await data.put(uid, "docs", "d\(index)", value) }
            let page = try await data.client.call(
                UserDataMethods.list,
                ListDocumentsRequest(uid: uid, collection: "docs")
            )
            #expect(page.documents.count == 2)
            #expect(page.documents.allSatisfy { $0.value == value })
            #expect(try await data.get(uid, "docs", "d2")?.value == value)
        }
    }
}
