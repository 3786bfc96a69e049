/// Fields every gateway request shares, with their caps.
public enum GatewayLimits {
    /// Idempotency keys and operation ids: 1–128 bytes chosen by the client (a UUID is typical).
    public static let operationIDByteCountMax = 128
    /// Documents in one `importDocuments`.
    public static let importCountMax = 100
}
