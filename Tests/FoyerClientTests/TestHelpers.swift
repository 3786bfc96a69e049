import FoyerClient
import Testing

/// Expects `body` to fail with `expected` (compared by code) and returns the error for further checks.
@discardableResult
func expectError<T>(
    _ expected: FoyerError,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> FoyerError? {
    do {
        _ = try await body()
        Issue.record("expected \(expected.name), got an answer", sourceLocation: sourceLocation)
        return nil
    } catch let error as FoyerError {
        #expect(error == expected, "expected \(expected.name), got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a FoyerError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Expects `body` to fail with some `FoyerError` and returns it.
func anyError<T>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T) async -> FoyerError? {
    do {
        _ = try await body()
        Issue.record("expected an error, got an answer", sourceLocation: sourceLocation)
        return nil
    } catch let error as FoyerError {
        return error
    } catch {
        Issue.record("expected a FoyerError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A unique address per test, so stacks never share accounts.
func uniqueEmail(_ name: String = "user") -> String {
    "\(name)-\(OperationID.make().lowercased().filter { $0.isLetter || $0.isNumber })@example.com"
}

let strongPassword = "correct horse battery staple"
