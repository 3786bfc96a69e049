import Foundation

/// `foyer-fuzz`: one libFuzzer program for every target; `FOYER_FUZZ_TARGET` names the one to run
/// (`FOYER_FUZZ_TARGET=jwt foyer-fuzz fuzz-corpus/jwt -max_total_time=30`), and `foyer-fuzz seed DIR` writes every
/// target's seeds into `DIR/<target>/`, and `foyer-fuzz list` prints the targets' names.
enum FuzzCommandLine {
    /// The target `FOYER_FUZZ_TARGET` names, after checking that the typed method tables cover the services'
    /// operation tables; exits with the list of targets if the variable is missing or names none.
    static func selectedTarget() -> FuzzTarget {
        for table in ServiceBodies.tables { table.checkCoversTable() }
        let name = ProcessInfo.processInfo.environment[FuzzTarget.environmentVariable] ?? ""
        guard let target = FuzzTarget.named(name) else {
            FileHandle.standardError.write(Data(usage.utf8))
            exit(2)
        }
        return target
    }

    /// Handles `seed DIR` and `list`, the commands that do not fuzz.
    ///
    /// - Returns: whether the arguments were one of them.
    static func runCommand(_ arguments: [String]) throws -> Bool {
        switch arguments.dropFirst().first {
        case "seed" where arguments.count == 3:
            try FuzzSeeds.write(into: arguments[2])
        case "list" where arguments.count == 2:
            print(FuzzTarget.all.map(\.name).joined(separator: "\n"))
        default:
            return false
        }
        return true
    }

    static var usage: String {
        let targets = FuzzTarget.all.map {
            "  \($0.name.padding(toLength: 12, withPad: " ", startingAt: 0))\($0.summary)"
        }
        return """
            usage: \(FuzzTarget.environmentVariable)=TARGET foyer-fuzz [CORPUS...] [libFuzzer flags]
                   foyer-fuzz seed DIR   (writes every target's seeds into DIR/<target>/)
                   foyer-fuzz list       (prints the targets' names)
            targets:
            \(targets.joined(separator: "\n"))

            """
    }
}

#if FOYER_FUZZING
/// libFuzzer's entry for programs that keep their own `main` (SwiftPM always generates one for an executable).
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// The target the driver's callback runs (set once, before the driver starts).
nonisolated(unsafe) var selected: FuzzTarget?

/// The callback libFuzzer's own `main` looks for (linked in by some linkers whatever main the program has).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    if selected == nil { selected = FuzzCommandLine.selectedTarget() }
    selected!.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

@main
struct FuzzMain {
    static func main() throws {
        // `foyer-fuzz seed DIR` writes the starting corpus (`make fuzz` runs it first) instead of fuzzing.
        if try FuzzCommandLine.runCommand(CommandLine.arguments) { return }
        selected = FuzzCommandLine.selectedTarget()
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
            selected!.run(UnsafeRawBufferPointer(start: data, count: size))
            return 0
        }
        exit(status)
    }
}
#else
/// Without libFuzzer (a normal build), replays the files given as arguments through the target: a corpus or a
/// crash reproducer.
@main
struct FuzzMain {
    static func main() throws {
        if try FuzzCommandLine.runCommand(CommandLine.arguments) { return }
        let paths = CommandLine.arguments.dropFirst()
        let target = FuzzCommandLine.selectedTarget()
        guard !paths.isEmpty else {
            print("usage: \(FuzzTarget.environmentVariable)=TARGET foyer-fuzz FILE...   (replays inputs)")
            return
        }
        for path in paths {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            data.withUnsafeBytes { target.run($0) }
        }
        print("\(target.name): replayed \(paths.count) input(s) without a crash")
    }
}
#endif
