import ArgumentParser
import FoyerAPI
import FoyerClient

/// `foyer quota`: the session's plan and counters; `consume` and `release` move a counter the app defines.
struct QuotaCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "quota",
        abstract: "The session's plan, counters and features; consume or release a counter the app defines.",
        subcommands: [Show.self, Consume.self, Release.self],
        defaultSubcommand: Show.self
    )

    struct Show: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "The session's plan, counters (limit, used, remaining) and features (the default).",
            discussion:
                #"Output: {"plan", "counters": [{"counter", "limit", "used", "remaining"}], "features": {name: bool}}."#
        )

        @OptionGroup var global: GlobalOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await CommandContext.run(global) { (context) async throws(FoyerError) in
                _ = try context.requireSession()
                return .object(Render.usage(try await context.client.quota()))
            }
        }
    }

    /// The options `consume` and `release` share.
    struct CounterOptions: ParsableArguments {
        @Argument(help: "The counter's name (as in the plans file), e.g. transactions.") var counter: String

        @Option(help: ArgumentHelp("How much, 1 to 2^40.", valueName: "n")) var amount: UInt64 = 1

        @Option(
            help: ArgumentHelp(
                "The idempotency key: the same key again counts once. (default: a new one)",
                valueName: "key"
            )
        )
        var idempotencyKey: String?
    }

    struct Consume: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "consume",
            abstract: "Add to a counter of the session's plan, within its limit.",
            discussion: """
                Output: {"counter", "limit", "used", "remaining"}. Over the limit it fails with quota-exceeded \
                (nothing counted); documents, bytes and documents:<collection> fail with counter-reserved.
                """
        )

        @OptionGroup var counter: CounterOptions
        @OptionGroup var global: GlobalOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await CommandContext.run(global) { (context) async throws(FoyerError) in
                _ = try context.requireSession()
                let usage = try await context.client.consume(
                    counter.counter,
                    amount: counter.amount,
                    idempotencyKey: counter.idempotencyKey ?? OperationID.make()
                )
                return Render.counter(usage)
            }
        }
    }

    struct Release: JSONCommand {
        static let configuration = CommandConfiguration(
            commandName: "release",
            abstract: "Give back an amount of a counter of the session's plan (never below zero).",
            discussion: #"Output: {"counter", "limit", "used", "remaining"}."#
        )

        @OptionGroup var counter: CounterOptions
        @OptionGroup var global: GlobalOptions

        func execute() async throws(FoyerError) -> JSONValue {
            try await CommandContext.run(global) { (context) async throws(FoyerError) in
                _ = try context.requireSession()
                let usage = try await context.client.release(
                    counter.counter,
                    amount: counter.amount,
                    idempotencyKey: counter.idempotencyKey ?? OperationID.make()
                )
                return Render.counter(usage)
            }
        }
    }
}
