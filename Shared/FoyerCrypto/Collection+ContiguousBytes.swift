extension Collection<UInt8> {
    /// Calls `body` with the collection's bytes in contiguous memory whose base address is never nil.
    ///
    /// Arrays, slices and other contiguous collections are used in place; anything else is copied into a
    /// temporary array first. An empty collection is presented as a zero-length buffer over a valid address,
    /// because some libcrypto entry points reject a NULL pointer even when the length is zero.
    func withNonNullUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        if let result = try withContiguousStorageIfAvailable({ storage in
            try Self.callWithNonNullBase(UnsafeRawBufferPointer(storage), body)
        }) {
            return result
        }
        return try Array(self).withUnsafeBytes { bytes in
            try Self.callWithNonNullBase(bytes, body)
        }
    }

    private static func callWithNonNullBase<Result>(
        _ bytes: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) throws -> Result
    ) rethrows -> Result {
        if bytes.baseAddress != nil {
            return try body(bytes)
        }
        return try withUnsafeTemporaryAllocation(byteCount: 1, alignment: 1) { placeholder in
            try body(UnsafeRawBufferPointer(start: placeholder.baseAddress, count: 0))
        }
    }
}

extension UnsafeRawBufferPointer {
    /// The buffer's start as the `const unsigned char *` most libcrypto functions take.
    ///
    /// Callers obtain the buffer from ``Swift/Collection/withNonNullUnsafeBytes(_:)``, so the address is
    /// never nil; the bytes are only read through this pointer.
    var bytePointer: UnsafePointer<UInt8> {
        guard let base = baseAddress else {
            preconditionFailure("withNonNullUnsafeBytes always provides a base address")
        }
        return base.assumingMemoryBound(to: UInt8.self)
    }
}
