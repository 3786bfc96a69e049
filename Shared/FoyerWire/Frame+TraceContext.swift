public import NIOCore

extension Frame {
    /// This REQUEST with `context` in front of its body (after compression: the prefix is never compressed) and the
    /// `TRACE_CONTEXT` flag set.
    public func addingTraceContext(_ context: TraceContext, allocator: ByteBufferAllocator) -> Frame {
        var body = allocator.buffer(capacity: TraceContext.byteCount + self.body.readableBytes)
        context.encode(into: &body)
        var rest = self.body
        body.writeBuffer(&rest)
        var header = header
        header.flags.insert(.traceContext)
        return Frame(header: header, body: body)
    }

    /// This frame without its trace context, and the context; the frame as it is and `nil` without the flag.
    ///
    /// - Parameter negotiated: whether the connection agreed on trace context (HELLO_ACK `features` bit 0).
    /// - Throws: `WireError.traceContextNotNegotiated` for the flag on a connection that did not agree on it,
    ///   `WireError.invalidTraceContext` for a malformed prefix.
    public func removingTraceContext(negotiated: Bool) throws(WireError) -> (Frame, TraceContext?) {
        guard header.flags.contains(.traceContext) else { return (self, nil) }
        guard negotiated else { throw .traceContextNotNegotiated }
        var body = self.body
        let context = try TraceContext(from: &body)
        var header = header
        header.flags.remove(.traceContext)
        return (Frame(header: header, body: body), context)
    }
}
