extension String {
    /// `bytes` as text if they are valid UTF-8, `nil` otherwise.
    ///
    /// What `String(validating:as:)` does, which needs iOS 18 and macOS 15, while FoyerClient (and so this module)
    /// builds for iOS 16.
    public init?(validatingUTF8Bytes bytes: some Collection<UInt8>) {
        let decoded = String(decoding: bytes, as: UTF8.self)
        // Decoding replaces every invalid sequence with U+FFFD, so the bytes were valid exactly when they come back.
        guard decoded.utf8.elementsEqual(bytes) else { return nil }
        self = decoded
    }
}
