public import FoyerClient

/// How one request ended, for the report.
public enum LoadOutcome: Equatable, Sendable {
    /// The request did what it was asked.
    case success
    /// The request was refused, as the scenario expected (the guest's 21st write): counted under the status name,
    /// not as an error.
    case expected(String)
    /// The request failed: counted under the status name.
    case error(String)

    /// `success` for an answer; for an error, `expected` when it is one of `expecting` (compared by code), else
    /// `error`.
    public static func classify(_ error: FoyerError?, expecting: Set<FoyerError> = []) -> LoadOutcome {
        guard let error else { return .success }
        return expecting.contains(error) ? .expected(error.name) : .error(error.name)
    }

    /// Why the whole run should stop after `error` on `operation`, or `nil` to carry on: a gateway that counts every
    /// sign-up against this machine's address, or one that cannot be reached before any request succeeded.
    public static func stopReason(
        for error: FoyerError,
        operation: LoadOperation,
        anySucceeded: Bool
    ) -> String? {
        if error == .signupRateLimited, operation == .guestSignIn {
            return """
                the gateway refused guest sign-ups (signup-rate-limited): it counts them against this machine's \
                address. Start it with --load-test-sources (or FOYER_LOAD_TEST_SOURCES=1) so each virtual user \
                is counted under its own test address; `make run` does. Never in production.
                """
        }
        if error == .unavailable, !anySucceeded {
            return "the gateway could not be reached (\(error.name): \(error.message)); is it running?"
        }
        return nil
    }
}
