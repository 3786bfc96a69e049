import Foundation
import FoyerRPC
import FoyerStackProcesses

/// The stack a soak run drives: the five executables built beside `foyer-soak`, on SQLite files in a temporary
/// directory (or in fresh schemas of one PostgreSQL database), configured as deployed but for what a load
/// generator on one machine needs.
enum SoakStack {
    /// The stack's settings. As deployed (default plans, so guests still meet their quota), except: the gateway
    /// takes sign-up sources from the load generator (`--load-test-sources`, as `make run` does), and the per-source
    /// limits are lifted, since every virtual user connects from 127.0.0.1 (as `foyer-bench` does).
    static func configuration(directory: URL, database: StackDatabase) throws -> StackConfiguration {
        var configuration = StackConfiguration(
            binDirectory: try StackProcesses.locateExecutables(),
            dataDirectory: directory,
            database: database
        )
        configuration.sharedEnvironment = [
            "FOYER_CLUSTER_SECRET": ClusterSecret.generate().text,
            "FOYER_LOG_LEVEL": "warning",
        ]
        configuration.arguments[.gateway] = ["--load-test-sources"]
        configuration.environment[.gateway] = [
            "FOYER_REFRESH_PER_MINUTE": "100000000",
            "FOYER_SIGN_IN_PER_MINUTE": "100000000",
        ]
        configuration.environment[.guestQuota] = ["FOYER_SIGNUPS_PER_HOUR": "100000000"]
        configuration.environment[.identity] = [
            "FOYER_PASSWORD_HASHES_PER_SOURCE_PER_MINUTE": "100000000",
            "FOYER_PASSWORD_HASH_BURST_PER_SOURCE": "100000000",
        ]
        return configuration
    }
}
