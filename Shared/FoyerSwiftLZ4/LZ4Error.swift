/// The one way an LZ4 block can fail to decode.
public struct LZ4Error: Error, Hashable, CustomStringConvertible {
    private enum Code: Hashable { case corruptBlock }
    private let code: Code

    /// The block is malformed, truncated, or does not expand to the declared length.
    public static let corruptBlock = LZ4Error(code: .corruptBlock)

    public var description: String { "LZ4 block is corrupt or does not match its declared length" }
}
