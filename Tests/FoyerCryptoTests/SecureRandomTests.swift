import FoyerCrypto
import Testing

@Suite("Secure random")
struct SecureRandomTests {
    @Test("bytes(count:) returns exactly the requested number of bytes", arguments: [0, 1, 16, 32, 4096])
    func bytesHaveRequestedCount(count: Int) {
        #expect(SecureRandom.bytes(count: count).count == count)
    }

    @Test("Successive outputs differ")
    func successiveOutputsDiffer() {
        #expect(SecureRandom.bytes(count: 32) != SecureRandom.bytes(count: 32))
    }

    @Test("fill(_:) overwrites the whole buffer")
    func fillOverwritesWholeBuffer() {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        buffer.withUnsafeMutableBytes { SecureRandom.fill($0) }
        // The chance of any 4 KiB window staying all zero is negligible.
        for start in stride(from: 0, to: buffer.count, by: 4096) {
            #expect(buffer[start..<start + 4096].contains { $0 != 0 })
        }
        SecureRandom.fill(UnsafeMutableRawBufferPointer(start: nil, count: 0))
    }
}
