import FoyerCrypto
import Testing

@Suite("Constant-time comparison")
struct ConstantTimeTests {
    @Test("Equal bytes compare equal, whatever the collection type")
    func equalBytesAreEqual() {
        #expect(ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2, 3] as [UInt8]))
        #expect(ConstantTime.equals([UInt8](), [UInt8]()))
        #expect(ConstantTime.equals(([0, 1, 2, 3] as [UInt8])[1...], [1, 2, 3].lazy.map { UInt8($0) }))
    }

    @Test("Any differing byte makes the inputs unequal")
    func differentContentIsUnequal() {
        let reference: [UInt8] = Array(0..<32)
        for index in reference.indices {
            #expect(!ConstantTime.equals(reference, flippingBit(in: reference, at: index)))
        }
    }

    @Test("Inputs of different lengths are unequal, even as prefixes")
    func differentLengthsAreUnequal() {
        #expect(!ConstantTime.equals([1, 2, 3] as [UInt8], [1, 2] as [UInt8]))
        #expect(!ConstantTime.equals([UInt8](), [0] as [UInt8]))
    }
}
