import FoyerCrypto

/// Parses hexadecimal test-vector text (whitespace ignored) into bytes.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace }.utf8)
    precondition(digits.count % 2 == 0, "odd number of hex digits in a test vector")
    return stride(from: 0, to: digits.count, by: 2).map { index in
        UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16)!
    }
}

/// The UTF-8 bytes of `text`.
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// Decodes base64url test data that is known to be valid.
func base64URL(_ text: String) -> [UInt8] {
    do {
        return try Base64URL.decode(text)
    } catch {
        preconditionFailure("test vector is not base64url: \(error)")
    }
}

/// `bytes` with one bit flipped at `index`.
func flippingBit(in bytes: [UInt8], at index: Int) -> [UInt8] {
    var copy = bytes
    copy[index] ^= 0x01
    return copy
}

/// Published JOSE examples (RFC 7515 Appendix A, RFC 8037 Appendix A).
enum JOSEExamples {
    /// RFC 7515 A.2/A.3: the JWS Payload shared by the RS256 and ES256 examples.
    static let payloadSegment =
        "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFt"
        + "cGxlLmNvbS9pc19yb290Ijp0cnVlfQ"

    /// RFC 7515 A.2.1: the RSA public key (n, e) as JWK members.
    static let rsaModulus =
        "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0B"
        + "m4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5"
        + "z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7"
        + "aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
    static let rsaExponent = "AQAB"

    /// RFC 7515 A.2.1: the complete RS256 JWS.
    static let rs256Token =
        "eyJhbGciOiJSUzI1NiJ9." + payloadSegment + "."
        + "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujG"
        + "bds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K"
        + "0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6"
        + "LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"

    /// RFC 7515 A.3.1: the P-256 public key coordinates.
    static let p256X = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let p256Y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"

    /// RFC 7515 A.3.1: the complete ES256 JWS.
    static let es256Token =
        "eyJhbGciOiJFUzI1NiJ9." + payloadSegment + "."
        + "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    /// RFC 8037 A.1/A.2: the Ed25519 private seed `d` and public key `x`.
    static let ed25519D = "nWGxne_9WmC6hEr0kuwsxERJxWl7MmkZcDusAxyuf2A"
    static let ed25519X = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"

    /// RFC 8037 A.4: the payload and the resulting EdDSA JWS.
    static let ed25519Payload = "Example of Ed25519 signing"
    static let ed25519Token =
        "eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc."
        + "hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg"

    /// The claims of the RFC 7515 examples, as raw JSON (note the CRLF line breaks in the original).
    static let payloadJSON = "{\"iss\":\"joe\",\r\n \"exp\":1300819380,\r\n \"http://example.com/is_root\":true}"

    static func rsaKey() throws -> RSAPublicKey {
        try RSAPublicKey(modulus: base64URL(rsaModulus), exponent: base64URL(rsaExponent))
    }

    static func p256Key() throws -> P256PublicKey {
        try P256PublicKey(x: base64URL(p256X), y: base64URL(p256Y))
    }

    static func ed25519PrivateKey() throws -> Ed25519PrivateKey {
        try Ed25519PrivateKey(rawRepresentation: base64URL(ed25519D))
    }
}
