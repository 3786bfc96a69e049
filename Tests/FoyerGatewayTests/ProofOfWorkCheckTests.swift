import Foundation
import FoyerAPI
import FoyerCrypto
import Testing

@testable import FoyerGateway

@Suite("The proof-of-work sign-up check")
struct ProofOfWorkCheckTests {
    private static let key = [UInt8](0..<32)
    private static let id = [UInt8](0xA0..<0xB0)
    /// 2027-01-15T08:02:00Z: the test vector's expiry.
    private static let expiresAt: UInt64 = 1_800_000_120_000
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    private func check(difficulty: Int = 12, spentMax: Int = 100) -> ProofOfWorkCheck {
        var settings = ProofOfWorkSettings()
        settings.difficulty = difficulty
        settings.spentChallengesMax = spentMax
        return ProofOfWorkCheck(settings: settings, key: Self.key)
    }

    private static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// The first nonce that solves `challenge`, as the clients search.
    private static func solve(_ challenge: SignUpChallenge) -> [UInt8] {
        var counter: UInt64 = 0
        while !ProofOfWork.meets(
            SHA256.hash(challenge.challenge + ProofOfWork.nonce(counter)),
            difficulty: Int(challenge.difficulty)
        ) { counter += 1 }
        return ProofOfWork.nonce(counter)
    }

    @Test("The worked example of docs/PROTOCOL.md: the challenge's bytes, the first nonce and its digest")
    func testVector() {
        let challenge = check().challenge(id: Self.id, expiresAtMilliseconds: Self.expiresAt)
        #expect(
            challenge.challenge
                == Self.hex(
                    "01a0a1a2a3a4a5a6a7a8a9aaabacadaeaf0c000001a3185e24c0"
                        + "f56d56821f886627020d27edd733e4bfde3d6d8bd1dd7850c9ff44c1ddfe8ab8"
                )
        )
        #expect(challenge.difficulty == 12)
        let nonce = Self.solve(challenge)
        #expect(nonce == [0, 0, 0, 0, 0, 0, 0x06, 0x0C])
        let digest = SHA256.hash(challenge.challenge + nonce)
        #expect(digest == Self.hex("0008eaffc0995ec03936fedef2a3d1b9a528da1f68845213e91a9e3a3802d855"))
        #expect(ProofOfWork.leadingZeroBits(digest) == 12)
        // The nonce before it: 2 leading zero bits only.
        #expect(ProofOfWork.leadingZeroBits(SHA256.hash(challenge.challenge + ProofOfWork.nonce(1547))) == 2)
    }

    @Test("Leading zero bits count from the first byte's most significant bit")
    func leadingZeroBits() {
        #expect(ProofOfWork.leadingZeroBits([0x80]) == 0)
        #expect(ProofOfWork.leadingZeroBits([0x7F, 0]) == 1)
        #expect(ProofOfWork.leadingZeroBits([0x00, 0x01]) == 15)
        #expect(ProofOfWork.leadingZeroBits([0x00, 0x00]) == 16)
        #expect(ProofOfWork.leadingZeroBits([0x00, 0x10, 0x00]) == 11)
        #expect(ProofOfWork.meets([0x00, 0x10], difficulty: 11))
        #expect(!ProofOfWork.meets([0x00, 0x10], difficulty: 12))
        #expect(ProofOfWork.nonce(0x0102_0304_0506_0708) == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    @Test("A solved challenge passes once; the same key may spend it again (a retry), another key may not")
    func singleUse() async {
        let check = check()
        let challenge = check.challenge(id: Self.id, expiresAtMilliseconds: Self.expiresAt)
        let proof = SignUpProof.proofOfWork(challenge: challenge.challenge, nonce: Self.solve(challenge))
        #expect(await check.verify(proof, idempotencyKey: "key-one", source: "192.0.2.1", now: now) == .passed)
        #expect(await check.verify(proof, idempotencyKey: "key-one", source: "192.0.2.1", now: now) == .passed)
        let reused = await check.verify(proof, idempotencyKey: "key-two", source: "192.0.2.1", now: now)
        #expect(reused == .refused("the challenge was already used; ask for a new one"))
        #expect(check.spentCount == 1)
    }

    @Test("A wrong nonce is refused and spends nothing")
    func wrongNonce() async {
        let check = check()
        let challenge = check.challenge(id: Self.id, expiresAtMilliseconds: Self.expiresAt)
        let wrong = SignUpProof.proofOfWork(challenge: challenge.challenge, nonce: ProofOfWork.nonce(1547))
        #expect(
            await check.verify(wrong, idempotencyKey: "k", source: "s", now: now)
                == .refused("the nonce does not solve the challenge")
        )
        #expect(check.spentCount == 0)
        let right = SignUpProof.proofOfWork(challenge: challenge.challenge, nonce: ProofOfWork.nonce(1548))
        #expect(await check.verify(right, idempotencyKey: "k", source: "s", now: now) == .passed)
    }

    @Test("A challenge is good until its expiry, to the millisecond, and refused after")
    func expiry() async {
        let check = check()
        let challenge = check.challenge(id: Self.id, expiresAtMilliseconds: Self.expiresAt)
        let proof = SignUpProof.proofOfWork(challenge: challenge.challenge, nonce: Self.solve(challenge))
        let late = Date(timeIntervalSince1970: 1_800_000_120.001)
        #expect(
            await check.verify(proof, idempotencyKey: "k", source: "s", now: late)
                == .refused("the challenge has expired; ask for a new one")
        )
        let last = Date(timeIntervalSince1970: 1_800_000_120)
        #expect(await check.verify(proof, idempotencyKey: "k", source: "s", now: last) == .passed)
        // Issued now, it lives for the configured lifetime.
        let issued = try? check.challenge(now: now)
        #expect(issued?.expiresAtMilliseconds == 1_800_000_000_000 + 120_000)
    }

    @Test("A forged or altered challenge is refused: another key, an eased difficulty, a later expiry, a bad length")
    func forged() async {
        let ours = check()
        let other = ProofOfWorkCheck(settings: ProofOfWorkSettings(), key: [UInt8](repeating: 9, count: 32))
        let foreign = other.challenge(id: Self.id, expiresAtMilliseconds: Self.expiresAt)
        let refusal = SignUpCheckOutcome.refused("the challenge was not issued by this deployment")
        #expect(
            await ours.verify(
                .proofOfWork(challenge: foreign.challenge, nonce: Self.solve(foreign)),
                idempotencyKey: "k",
                source: "s",
                now: now
            ) == refusal
        )
        let genuine = ours.challenge(id: Self.id, expiresAtMilliseconds: Self.expiresAt).challenge
        var eased = genuine
        eased[17] = 0
        var extended = genuine
        extended[25] ^= 0xFF
        var unversioned = genuine
        unversioned[0] = 2
        for altered in [eased, extended, unversioned, Array(genuine.dropLast()), genuine + [0]] {
            let proof = SignUpProof.proofOfWork(challenge: altered, nonce: [0])
            #expect(await ours.verify(proof, idempotencyKey: "k", source: "s", now: now) == refusal)
        }
        #expect(ours.spentCount == 0)
    }

    @Test("Difficulty boundaries: 0 takes any nonce, and a digest one bit short of the difficulty is refused")
    func difficultyBoundaries() async {
        let free = check(difficulty: 0)
        let anything = free.challenge(id: Self.id, expiresAtMilliseconds: Self.expiresAt)
        #expect(
            await free.verify(
                .proofOfWork(challenge: anything.challenge, nonce: [0xFF]),
                idempotencyKey: "k",
                source: "s",
                now: now
            ) == .passed
        )
        // The vector's nonce has exactly 12 zero bits: good for 12, not for 13.
        let thirteen = check(difficulty: 13)
        let harder = thirteen.challenge(id: Self.id, expiresAtMilliseconds: Self.expiresAt)
        var counter: UInt64 = 0
        while ProofOfWork.leadingZeroBits(SHA256.hash(harder.challenge + ProofOfWork.nonce(counter))) != 12 {
            counter += 1
        }
        #expect(
            await thirteen.verify(
                .proofOfWork(challenge: harder.challenge, nonce: ProofOfWork.nonce(counter)),
                idempotencyKey: "k",
                source: "s",
                now: now
            ) == .refused("the nonce does not solve the challenge")
        )
        #expect(
            await thirteen.verify(
                .proofOfWork(challenge: harder.challenge, nonce: Self.solve(harder)),
                idempotencyKey: "k",
                source: "s",
                now: now
            ) == .passed
        )
    }

    @Test("No proof, or a proof of another kind, is missing")
    func missing() async {
        let check = check()
        #expect(await check.verify(nil, idempotencyKey: "k", source: "s", now: now) == .missing)
        #expect(await check.verify(.siteverify(token: "t"), idempotencyKey: "k", source: "s", now: now) == .missing)
    }

    @Test("The memory of spent challenges is bounded: full of live ones it answers unavailable, expired ones make room")
    func boundedMemory() async {
        let check = check(difficulty: 0, spentMax: 2)
        func proof(_ index: UInt8, expiresAt: UInt64) -> SignUpProof {
            let challenge = check.challenge(
                id: [UInt8](repeating: index, count: 16),
                expiresAtMilliseconds: expiresAt
            )
            return .proofOfWork(challenge: challenge.challenge, nonce: [0])
        }
        let soon: UInt64 = 1_800_000_010_000
        #expect(await check.verify(proof(1, expiresAt: soon), idempotencyKey: "a", source: "s", now: now) == .passed)
        #expect(
            await check.verify(proof(2, expiresAt: Self.expiresAt), idempotencyKey: "b", source: "s", now: now)
                == .passed
        )
        let full = await check.verify(proof(3, expiresAt: Self.expiresAt), idempotencyKey: "c", source: "s", now: now)
        #expect(full == .unavailable("too many sign-up challenges in flight; try again shortly"))
        // Once the first has expired, its place is free.
        let later = Date(timeIntervalSince1970: 1_800_000_011)
        #expect(
            await check.verify(proof(3, expiresAt: Self.expiresAt), idempotencyKey: "c", source: "s", now: later)
                == .passed
        )
        #expect(check.spentCount == 2)
    }
}
