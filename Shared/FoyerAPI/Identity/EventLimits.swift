/// The limits of identity's events (`listEvents`, `getEvent`, `replayEvent`, and what `finishMergeWithReport` and
/// `finishDeleteWithReason` carry).
public enum EventLimits {
    /// An event id: `evt_` and 32 hex digits.
    public static let idByteCountMax = 64
    /// An event type (`user.created`, ...).
    public static let typeByteCountMax = 32
    /// An event's JSON body, as delivered.
    public static let bodyByteCountMax = 4096
    /// The last delivery error kept with an event.
    public static let errorByteCountMax = 256
    /// The most events one `listEvents` page holds.
    public static let pageCountMax = 500
}
