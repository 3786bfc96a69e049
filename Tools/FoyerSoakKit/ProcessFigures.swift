import Foundation

/// A process's resident memory and open file descriptors over a minute, from samples of Linux's /proc.
///
/// The memory check uses `residentBytes`, the lowest RSS sampled: what the process holds between requests. A leak
/// raises it; working memory held for a moment does not (identity's password hashing takes tens of MiB per hash
/// in flight, and a single sample may catch it).
public struct ProcessFigures: Codable, Equatable, Sendable {
    /// The lowest `VmRSS` (of /proc/PID/status) sampled, in bytes.
    public var residentBytes: UInt64
    /// The highest `VmRSS` sampled, in bytes.
    public var residentPeakBytes: UInt64
    /// Entries of /proc/PID/fd at the last sample.
    public var openFiles: Int

    public init(residentBytes: UInt64, residentPeakBytes: UInt64? = nil, openFiles: Int) {
        self.residentBytes = residentBytes
        self.residentPeakBytes = residentPeakBytes ?? residentBytes
        self.openFiles = openFiles
    }

    /// The figures of several samples of one process, in the order taken; nil for none.
    public init?(samples: [ProcessFigures]) {
        guard let last = samples.last else { return nil }
        self.init(
            residentBytes: samples.map(\.residentBytes).min() ?? 0,
            residentPeakBytes: samples.map(\.residentPeakBytes).max() ?? 0,
            openFiles: last.openFiles
        )
    }

    /// One sample of process `pid`, or nil if it does not run or the system has no /proc.
    public static func read(pid: Int32) -> ProcessFigures? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let resident = residentBytes(status: status),
            let files = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
        else { return nil }
        return ProcessFigures(residentBytes: resident, openFiles: files.count)
    }

    /// The `VmRSS:` line of a /proc/PID/status text, in bytes (the kernel writes kibibytes: `VmRSS:  1234 kB`).
    public static func residentBytes(status: String) -> UInt64? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 2, let kibibytes = UInt64(fields[1]) else { return nil }
        return kibibytes * 1024
    }
}
