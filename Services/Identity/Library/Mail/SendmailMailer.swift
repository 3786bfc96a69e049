import Foundation

/// Delivers through a `sendmail`-compatible program: `path -t -i` with the RFC 5322 message on stdin (`-t`
/// takes the recipient from the To header, `-i` keeps a lone "." line from ending the message). Exit status 0
/// is success. The program runs on a dispatch thread and is killed after `timeout`.
struct SendmailMailer: Mailer {
    let path: String
    let timeout: Duration

    func send(_ message: MailMessage) async throws {
        let input = Data(message.rfc5322.utf8)
        let path = self.path
        let timeout = self.timeout
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try Self.run(path: path, input: input, timeout: timeout) })
            }
        }
    }

    private static func run(path: String, input: Data, timeout: Duration) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["-t", "-i"]
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        do {
            try process.run()
        } catch {
            throw MailerError("cannot run the sendmail program at \(path): \(error)")
        }
        try? stdin.fileHandleForWriting.write(contentsOf: input)
        try? stdin.fileHandleForWriting.close()
        if exited.wait(timeout: .now() + timeout.timeInterval) == .timedOut {
            process.terminate()
            exited.wait()
            throw MailerError("the sendmail program did not finish within \(timeout)")
        }
        guard process.terminationReason == .exit, process.terminationStatus == 0 else {
            throw MailerError("the sendmail program failed (status \(process.terminationStatus))")
        }
    }
}
