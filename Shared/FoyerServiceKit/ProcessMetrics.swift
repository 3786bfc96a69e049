import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The process's own resources, read when `/metrics` is scraped: on Linux from `/proc/self`; elsewhere nothing
/// (the gauges are then absent from the scrape).
enum ProcessMetrics {
    /// Resident memory in bytes: the second field of `/proc/self/statm` (pages) times the page size.
    static func residentMemoryBytes() -> Int? {
        #if os(Linux)
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count >= 2, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return nil
        #endif
    }

    /// Open file descriptors: the entries of `/proc/self/fd`, less the one the listing itself holds.
    static func openFileDescriptors() -> Int? {
        #if os(Linux)
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return nil }
        return max(0, entries.count - 1)
        #else
        return nil
        #endif
    }
}
