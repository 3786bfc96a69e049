/// The source addresses guest sign-ins name, so a load generator on one machine looks like many clients to sign-up
/// admission (honoured only by a gateway started with `--load-test-sources`).
///
/// They come from 198.18.0.0/15, the range set aside for benchmarks (RFC 2544): 131,072 addresses, taken in turn,
/// so at the default per-source limit (30 an hour) about 3.9 million sign-ups an hour fit before one repeats often
/// enough to be refused.
public enum LoadSources {
    /// How many distinct addresses there are.
    public static let count = 1 << 17

    /// The `index`-th address, wrapping around after `count`.
    public static func address(_ index: Int) -> String {
        let offset = ((index % count) + count) % count
        return "198.\(18 + offset >> 16).\((offset >> 8) & 0xFF).\(offset & 0xFF)"
    }
}
