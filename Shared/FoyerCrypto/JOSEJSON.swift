#if canImport(FoundationEssentials)
internal import FoundationEssentials
#else
internal import Foundation
#endif

/// The JSON conventions shared by the JWS/JWT layer.
enum JOSEJSON {
    /// Compact output with sorted keys (so equal input gives byte-identical tokens), unescaped slashes, and
    /// dates as NumericDate (seconds since the epoch).
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        return encoder
    }

    /// Dates are read as NumericDate (seconds since the epoch).
    static func makeDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }

    /// Encodes `value`, reporting failures as `failure` with the encoder's reason as detail.
    static func encode(_ value: some Encodable, failure: FoyerCryptoError) throws -> [UInt8] {
        do {
            return Array(try makeEncoder().encode(value))
        } catch let error as FoyerCryptoError {
            throw error
        } catch {
            throw failure.withDetail("JSON encoding failed: \(error)")
        }
    }

    /// Decodes `type` from `json`. A ``FoyerCryptoError`` thrown while decoding propagates unchanged; any other
    /// decoding failure becomes `failure`. The underlying error is not echoed, since it may quote the input.
    static func decode<Value: Decodable>(
        _ type: Value.Type,
        from json: [UInt8],
        failure: FoyerCryptoError
    ) throws -> Value {
        do {
            return try makeDecoder().decode(type, from: Data(json))
        } catch let error as FoyerCryptoError {
            throw error
        } catch {
            throw failure
        }
    }
}
