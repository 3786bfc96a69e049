/// One libFuzzer target: a parser that reads bytes from outside, the invariants checked on what it makes of them,
/// and the seeds it starts from. `FOYER_FUZZ_TARGET` names the one a run fuzzes (`make fuzz FUZZ_TARGET=name`).
///
/// A target never swallows a violated invariant: it stops the run through `FuzzTarget.violated`, and libFuzzer
/// saves the input as a crash reproducer. An input a parser refuses is not a violation.
struct FuzzTarget: Sendable {
    /// The name on the command line and the corpus directory's name (`fuzz-corpus/<name>/`).
    let name: String
    /// What is fuzzed, for the usage text.
    let summary: String
    /// Runs one input.
    let run: @Sendable (UnsafeRawBufferPointer) -> Void
    /// The starting corpus: a file name and its bytes, each a valid input the fuzzer mutates from.
    let seeds: @Sendable () -> [(name: String, bytes: [UInt8])]

    /// The environment variable that names the target.
    static let environmentVariable = "FOYER_FUZZ_TARGET"

    /// Every target, in the order `make fuzz` runs them.
    static let all: [FuzzTarget] =
        [FrameFuzzing.target] + ServiceBodies.tables.map(\.target) + [
            ProxyHeaderFuzzing.target,
            JWTFuzzing.jwtTarget,
            JWTFuzzing.jwksTarget,
            JSONFuzzing.target,
            LZ4Fuzzing.target,
        ]

    static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }

    /// Stops the run: an invariant that must hold whatever the input did not.
    static func violated(_ target: String, _ message: String) -> Never {
        fatalError("foyer-fuzz \(target): \(message)")
    }
}
