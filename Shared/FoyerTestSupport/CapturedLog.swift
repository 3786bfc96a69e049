public import Logging
import Synchronization

/// Log records kept in memory, for tests that check what a component logs (and what it must never log).
public final class CapturedLog: Sendable {
    public struct Record: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: [String: String]
    }

    private let records = Mutex<[Record]>([])

    public init() {}

    /// Everything logged so far, in order.
    public var all: [Record] { records.withLock { $0 } }

    /// Every record as one line (message, then `key=value` metadata sorted by key), for searching the whole log.
    public var text: String {
        all.map { record in
            ([record.message] + record.metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
                .joined(separator: " ")
        }.joined(separator: "\n")
    }

    /// The records with `message`.
    public func records(_ message: String) -> [Record] { all.filter { $0.message == message } }

    /// A logger (every level) whose records land here.
    public func logger(_ label: String = "foyer.test.server") -> Logger {
        var logger = Logger(label: label) { _ in Handler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ record: Record) { records.withLock { $0.append(record) } }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            log.append(
                Record(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" })
            )
        }
    }
}
