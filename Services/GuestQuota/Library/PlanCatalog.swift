public import Foundation
import FoyerAPI

/// A plan: a limit per counter and features on or off.
public struct Plan: Sendable, Hashable {
    /// The limit of each counter (`documents`, `bytes`, ...). A counter the plan does not name is unknown to its
    /// accounts (`unknown-counter`).
    public var counters: [String: Int64]
    /// Each feature's state. A feature that some other plan names is off in this one unless listed here.
    public var features: [String: Bool]

    public init(counters: [String: Int64], features: [String: Bool] = [:]) {
        self.counters = counters
        self.features = features
    }
}

/// The configured plans, by name.
///
/// Names of plans, counters and features: 1–64 bytes of `a-z 0-9 _ . -`; a counter may also be scoped to a
/// collection (`documents:notes`). Limits: 0 … 2^62.
public struct PlanCatalog: Sendable, Hashable {
    public static let limitMax: Int64 = 1 << 62

    public var plans: [String: Plan]

    public init(plans: [String: Plan]) { self.plans = plans }

    /// `guest`: 20 documents, 1 MiB of bytes, `import` off. `member`: 100,000 documents, 1 GiB, `import` on.
    public static let defaults = PlanCatalog(plans: [
        "guest": Plan(counters: ["documents": 20, "bytes": 1 << 20], features: ["import": false]),
        "member": Plan(counters: ["documents": 100_000, "bytes": 1 << 30], features: ["import": true]),
    ])

    /// Every feature any plan names, sorted.
    public var featureNames: [String] {
        Set(plans.values.flatMap(\.features.keys)).sorted()
    }

    /// Reads the JSON form: an object of plans by name, each with optional `counters` (name to integer limit) and
    /// `features` (name to boolean). Unknown fields are refused, so a typo is not silently ignored.
    ///
    /// ```json
    /// {
    ///   "guest":  { "counters": { "documents": 20, "bytes": 1048576 }, "features": { "import": false } },
    ///   "member": { "counters": { "documents": 100000, "bytes": 1073741824 }, "features": { "import": true } }
    /// }
    /// ```
    public init(json: Data) throws {
        let raw: [String: RawPlan]
        do {
            raw = try JSONDecoder().decode([String: RawPlan].self, from: json)
        } catch let error as DecodingError {
            throw GuestQuotaConfigurationError.invalidPlans(Self.describe(error))
        } catch let error as GuestQuotaConfigurationError {
            throw error
        } catch {
            throw GuestQuotaConfigurationError.invalidPlans("not valid JSON: \(error)")
        }
        var plans: [String: Plan] = [:]
        for (name, plan) in raw {
            if let unknown = plan.unknownFields.first {
                throw GuestQuotaConfigurationError.invalidPlans(
                    "plan '\(name)': unknown field '\(unknown)' (a plan has 'counters' and 'features')"
                )
            }
            plans[name] = Plan(counters: plan.counters?.mapValues(\.value) ?? [:], features: plan.features ?? [:])
        }
        self.init(plans: plans)
        try validate()
    }

    /// Checks names and limits.
    public func validate() throws {
        guard !plans.isEmpty else { throw GuestQuotaConfigurationError.invalidPlans("no plans are defined") }
        for (name, plan) in plans.sorted(by: { $0.key < $1.key }) {
            guard Self.isValidName(name) else {
                throw GuestQuotaConfigurationError.invalidPlans(
                    "plan name '\(name)' is not 1-64 bytes of a-z 0-9 _ . -"
                )
            }
            guard plan.counters.count <= GuestQuotaLimits.entriesMax, plan.features.count <= GuestQuotaLimits.entriesMax
            else {
                throw GuestQuotaConfigurationError.invalidPlans(
                    "plan '\(name)' has more than \(GuestQuotaLimits.entriesMax) counters or features"
                )
            }
            for (counter, limit) in plan.counters {
                guard Self.isValidCounterName(counter) else {
                    throw GuestQuotaConfigurationError.invalidPlans(
                        "plan '\(name)': counter name '\(counter)' is not 1-64 bytes of a-z 0-9 _ . - "
                            + "(or a scoped counter such as documents:notes)"
                    )
                }
                guard (0...Self.limitMax).contains(limit) else {
                    throw GuestQuotaConfigurationError.invalidPlans(
                        "plan '\(name)': the limit of '\(counter)' is \(limit); it must be between 0 and 2^62"
                    )
                }
            }
            for feature in plan.features.keys where !Self.isValidName(feature) {
                throw GuestQuotaConfigurationError.invalidPlans(
                    "plan '\(name)': feature name '\(feature)' is not 1-64 bytes of a-z 0-9 _ . -"
                )
            }
        }
        guard featureNames.count <= GuestQuotaLimits.entriesMax else {
            throw GuestQuotaConfigurationError.invalidPlans("more than \(GuestQuotaLimits.entriesMax) features in all")
        }
    }

    /// A counter's name: a name, or a scoped counter `<name>:<scope>` whose scope has user-data's collection
    /// characters (`documents:notes`, `documents:Notes.v2`), 1–64 bytes in all.
    static func isValidCounterName(_ counter: String) -> Bool {
        guard let colon = counter.firstIndex(of: ":") else { return isValidName(counter) }
        let scope = counter[counter.index(after: colon)...]
        return counter.utf8.count <= GuestQuotaLimits.nameByteCountMax && isValidName(String(counter[..<colon]))
            && !scope.isEmpty && UserDataLimits.isValidCollection(String(scope))
    }

    /// Whether `counter` is scoped (`documents:notes`): charged by the gateway, and skipped by a consume whose
    /// account's plan does not name it.
    public static func isScoped(_ counter: String) -> Bool { counter.contains(":") }

    static func isValidName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard (1...GuestQuotaLimits.nameByteCountMax).contains(bytes.count) else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"),
                UInt8(ascii: "."), UInt8(ascii: "-"):
                true
            default: false
            }
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let components = context.codingPath.map(\.stringValue)
            return components.isEmpty ? "the top level" : components.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(_, let context):
            return "\(path(context)): wrong type (limits are integers, features are true or false, plans are objects)"
        case .valueNotFound(_, let context):
            return "\(path(context)): missing value"
        case .keyNotFound(let key, let context):
            return "\(path(context)): missing '\(key.stringValue)'"
        case .dataCorrupted(let context):
            let cause = context.underlyingError.map { " (\($0))" } ?? ""
            return "\(path(context)): \(context.debugDescription)\(cause)"
        @unknown default:
            return "\(error)"
        }
    }
}

/// A plan as the file spells it, keeping unknown fields so they can be refused by name.
private struct RawPlan: Decodable {
    var counters: [String: RawLimit]?
    var features: [String: Bool]?
    var unknownFields: [String] = []

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        for key in container.allKeys {
            switch key.stringValue {
            case "counters": counters = try container.decode([String: RawLimit].self, forKey: key)
            case "features": features = try container.decode([String: Bool].self, forKey: key)
            default: unknownFields.append(key.stringValue)
            }
        }
        unknownFields.sort()
    }
}

/// A counter's limit as the file spells it: an integer. Anything else is refused naming its place in the file
/// (the JSON decoder's own message for a fraction does not).
private struct RawLimit: Decodable {
    var value: Int64

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let path = decoder.codingPath.map(\.stringValue).joined(separator: ".")
        if let flag = try? container.decode(Bool.self) {
            throw GuestQuotaConfigurationError.invalidPlans("\(path): \(flag) is not a limit (limits are integers)")
        }
        if let integer = try? container.decode(Int64.self) {
            value = integer
            return
        }
        if let number = try? container.decode(Double.self) {
            throw GuestQuotaConfigurationError.invalidPlans("\(path): \(number) is not an integer limit")
        }
        throw GuestQuotaConfigurationError.invalidPlans("\(path): a limit must be an integer")
    }
}
