import Foundation
import SQLKit

extension IdentityCore {
    /// The notice to the account's address `email` that its password was changed (`changePassword`) or reset
    /// (`completePasswordReset`) at `now` and every other device signed out, kept in the change's transaction `sql`
    /// (`keepNotice`) and sent after the commit (`sendNotice`). It names no link, token or password.
    func keepPasswordChangedNotice(
        _ sql: any SQLDatabase,
        to email: EmailAddress,
        now: Date
    ) async throws -> MailMessage {
        let settings = configuration.emailLink
        return try await keepNotice(
            sql,
            to: email.value,
            subject: settings.passwordChangedSubject,
            body: settings.passwordChangedBody.replacingOccurrences(of: "{time}", with: Self.noticeTime(now)),
            now: now
        )
    }

    /// `date` as a notice shows it: "25 November 2026, 04:10 UTC".
    static func noticeTime(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "d MMMM yyyy, HH:mm 'UTC'"
        return formatter.string(from: date)
    }
}
