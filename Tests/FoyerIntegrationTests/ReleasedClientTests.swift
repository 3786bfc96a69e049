import Foundation
import FoyerRPC
import FoyerTestSupport
import FoyerWire
import NIOCore
import Testing

/// Apps in the field keep working: the journey of the client as released, recorded field by field in
/// `Tests/compat/*.journey` (the format is in the file's header), replayed against today's gateway on each engine.
///
/// The replay builds every body from the recording alone, with no type of FoyerAPI, so a message whose layout
/// changed in place (a field added, removed or moved, an outcome's payload reshaped) fails here even when every
/// Swift type still round-trips.
@Suite("A released client's recorded journey against today's gateway", .serialized, .sharedStackPerEngine)
struct ReleasedClientTests {
    static let journeys = ["gateway-client-1.1"]

    @Test(
        "every call of the recorded journey is answered with exactly its recorded layout",
        arguments: testedEngines,
        journeys
    )
    func replay(engine: TestEngine, journey: String) async throws {
        let stack = try SharedStack.get(engine)
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("compat/\(journey).journey")
        let steps = try RecordedJourney.parse(String(contentsOf: file, encoding: .utf8))
        #expect(steps.count >= 10, "the journey has too few calls to say anything")

        let client = RPCClient(
            configuration: RPCClientConfiguration(
                host: "127.0.0.1",
                port: stack.processes.port(of: .gateway),
                serviceName: "gateway",
                peerName: "released-client",
                clusterSecret: nil
            ),
            logger: TestLogging.logger("foyer.test.released-client")
        )
        var replay = JourneyReplay()
        do {
            for step in steps { try await replay.run(step, on: client) }
        } catch {
            await client.shutdown()
            throw error
        }
        await client.shutdown()
    }
}

/// One line of a journey that does something: a fresh value, or a call with the fields it sends and expects.
enum JourneyStep: Sendable {
    case fresh(name: String, kind: FreshValue)
    case call(RecordedCall)
}

enum FreshValue: String, Sendable {
    case id = "@id"
    case email = "@email"
}

struct RecordedCall: Sendable {
    var method: UInt16
    var name: String
    var line: Int
    var request: [RecordedField] = []
    var answer: [RecordedField] = []
    /// The status the call must be refused with instead of an answer.
    var refusal: UInt16?
}

/// A field of a body: its primitive type (docs/PROTOCOL.md §5) and its value.
struct RecordedField: Sendable {
    enum Primitive: String, Sendable {
        case u8, u16, u32, u64, i64, varint, bool, string, bytes
    }

    enum Value: Sendable, Equatable {
        case literal(String)
        case variable(String)
        case capture(String)
        case any
    }

    var type: Primitive
    var value: Value
    var line: Int
}

struct JourneyFormatError: Error, CustomStringConvertible {
    let line: Int
    let reason: String
    var description: String { "journey line \(line): \(reason)" }
}

enum RecordedJourney {
    static func parse(_ text: String) throws -> [JourneyStep] {
        var steps: [JourneyStep] = []
        var call: RecordedCall?
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = index + 1
            let text = raw.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, !text.hasPrefix("#") else { continue }
            let words = text.split(separator: " ", maxSplits: 2).map(String.init)
            switch words[0] {
            case "let":
                guard words.count == 3, let kind = FreshValue(rawValue: words[2]) else {
                    throw JourneyFormatError(line: line, reason: "let NAME @id|@email")
                }
                if let finished = call { steps.append(.call(finished)) }
                call = nil
                steps.append(.fresh(name: words[1], kind: kind))
            case "call":
                guard words.count == 3, let method = hex(words[1]) else {
                    throw JourneyFormatError(line: line, reason: "call 0xMMMM name")
                }
                if let finished = call { steps.append(.call(finished)) }
                call = RecordedCall(method: method, name: words[2], line: line)
            case ">", "<", "!":
                guard call != nil else { throw JourneyFormatError(line: line, reason: "a field outside a call") }
                guard words.count == 3 else { throw JourneyFormatError(line: line, reason: "\(words[0]) TYPE VALUE") }
                if words[0] == "!" {
                    guard let status = hex(words[1]) else { throw JourneyFormatError(line: line, reason: "! 0xSSSS") }
                    call?.refusal = status
                } else {
                    let field = try field(type: words[1], value: words[2], line: line, sent: words[0] == ">")
                    if words[0] == ">" { call?.request.append(field) } else { call?.answer.append(field) }
                }
            default:
                throw JourneyFormatError(line: line, reason: "unknown line")
            }
        }
        if let finished = call { steps.append(.call(finished)) }
        return steps
    }

    private static func field(type: String, value: String, line: Int, sent: Bool) throws -> RecordedField {
        guard let primitive = RecordedField.Primitive(rawValue: type) else {
            throw JourneyFormatError(line: line, reason: "unknown type \(type)")
        }
        let parsed: RecordedField.Value
        if value == "*" {
            parsed = .any
        } else if value.hasPrefix("->") {
            parsed = .capture(String(value.dropFirst(2)))
        } else if value.hasPrefix("$") {
            parsed = .variable(String(value.dropFirst()))
        } else if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
            parsed = .literal(String(value.dropFirst().dropLast()))
        } else {
            parsed = .literal(value)
        }
        switch (sent, parsed) {
        case (true, .any), (true, .capture): throw JourneyFormatError(line: line, reason: "a sent field needs a value")
        default: break
        }
        return RecordedField(type: primitive, value: parsed, line: line)
    }

    private static func hex(_ text: String) -> UInt16? {
        text.hasPrefix("0x") ? UInt16(text.dropFirst(2), radix: 16) : nil
    }
}

/// Runs a journey's steps in order, keeping the values it captures.
struct JourneyReplay {
    private var values: [String: String] = [:]

    mutating func run(_ step: JourneyStep, on client: RPCClient) async throws {
        switch step {
        case .fresh(let name, .id):
            values[name] = "rc" + Self.randomText(count: 22)
        case .fresh(let name, .email):
            values[name] = "released-\(Self.randomText(count: 12).lowercased())@example.com"
        case .call(let call):
            try await run(call, on: client)
        }
    }

    private mutating func run(_ call: RecordedCall, on client: RPCClient) async throws {
        var body = ByteBuffer()
        for field in call.request { try write(field, into: &body) }
        let method = RPCMethod<RawBody, RawBody>(id: call.method, name: call.name, idempotent: false)
        let site = "line \(call.line), \(call.name)"
        do {
            var answer = try await client.call(method, RawBody(body)).bytes
            #expect(call.refusal == nil, "\(site): answered where the recording was refused")
            for field in call.answer { try read(field, from: &answer, call: site) }
            #expect(answer.readableBytes == 0, "\(site): \(answer.readableBytes) bytes past the recorded layout")
        } catch let error as RPCError {
            let expected = try #require(call.refusal, "\(site): refused \(error) where the recording answered")
            #expect(
                error.status.rawValue == expected,
                "\(site): refused \(error), recorded 0x\(String(expected, radix: 16))"
            )
        }
    }

    private func write(_ field: RecordedField, into body: inout ByteBuffer) throws {
        let text: String
        switch field.value {
        case .literal(let literal): text = literal
        case .variable(let name): text = try value(name, line: field.line)
        case .capture, .any: throw JourneyFormatError(line: field.line, reason: "a sent field needs a value")
        }
        switch field.type {
        case .string: body.writeLengthPrefixedString(text)
        case .bytes: body.writeLengthPrefixedBytes(Array(text.utf8))
        case .bool: body.writeBool(text == "true")
        case .u8: body.writeInteger(try number(UInt8.self, text, field))
        case .u16: body.writeInteger(try number(UInt16.self, text, field))
        case .u32: body.writeInteger(try number(UInt32.self, text, field))
        case .u64: body.writeInteger(try number(UInt64.self, text, field))
        case .i64: body.writeInteger(try number(Int64.self, text, field))
        case .varint: body.writeVarint(try number(UInt64.self, text, field))
        }
    }

    private mutating func read(_ field: RecordedField, from answer: inout ByteBuffer, call: String) throws {
        let site = "\(call), field of line \(field.line) (\(field.type.rawValue))"
        let text: String
        do {
            switch field.type {
            case .string: text = try answer.readLengthPrefixedString(site, maxBytes: 1 << 16)
            case .bytes:
                text = String(decoding: try answer.readLengthPrefixedBytes(site, maxBytes: 1 << 16), as: UTF8.self)
            case .bool: text = String(try answer.readBool())
            case .u8: text = String(try answer.readWire(UInt8.self))
            case .u16: text = String(try answer.readWire(UInt16.self))
            case .u32: text = String(try answer.readWire(UInt32.self))
            case .u64: text = String(try answer.readWire(UInt64.self))
            case .i64: text = String(try answer.readWire(Int64.self))
            case .varint: text = String(try answer.readVarint())
            }
        } catch {
            Issue.record("\(site): the answer does not decode as recorded: \(error)")
            throw error
        }
        switch field.value {
        case .any: break
        case .capture(let name): values[name] = text
        case .literal(let expected): #expect(text == expected, "\(site)")
        case .variable(let name): #expect(text == (try value(name, line: field.line)), "\(site)")
        }
    }

    private func value(_ name: String, line: Int) throws -> String {
        guard let value = values[name] else { throw JourneyFormatError(line: line, reason: "$\(name) is not set") }
        return value
    }

    private func number<T: FixedWidthInteger>(_: T.Type, _ text: String, _ field: RecordedField) throws -> T {
        guard let value = T(text) else {
            throw JourneyFormatError(line: field.line, reason: "\(text) is not a \(T.self)")
        }
        return value
    }

    private static func randomText(count: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        return String((0..<count).map { _ in alphabet.randomElement()! })
    }
}
