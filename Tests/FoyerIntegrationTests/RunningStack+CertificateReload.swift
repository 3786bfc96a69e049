import Foundation
import FoyerStackProcesses
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension RunningStack {
    /// Sends SIGHUP to `service` and waits until its log has one more line with `message` about the TLS material
    /// named `context` (`listener`, `upstreams`, `http`: the `tls.context` the reload logs). Records an issue if none
    /// comes within a minute.
    func reloadCertificates(
        of service: StackService,
        context: String,
        awaiting message: String
    ) async throws {
        let log = processes.configuration.logFile(of: service)
        func count() -> Int {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").filter { $0.contains(message) && $0.contains("tls.context=\(context)") }
                .count
        }
        let before = count()
        let pid = try #require(processes.processID(of: service))
        #expect(kill(pid, SIGHUP) == 0)
        let deadline = ContinuousClock.now.advanced(by: .seconds(60))
        while count() == before {
            guard ContinuousClock.now < deadline else {
                Issue.record("\(service) logged no '\(message)' after SIGHUP\n\(processes.logTail(of: service))")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
