import FoyerWire
import NIOConcurrencyHelpers
import NIOCore

/// Writes frames to a channel from any task, with one event-loop hop and one flush per batch.
///
/// Frames are encoded by the calling task (off the event loop) and queued; the first frame of a batch
/// schedules one event-loop task that writes everything queued by then and flushes once. Under load, many
/// answers share a hop and a syscall instead of paying one each.
final class FrameWriter: Sendable {
    private struct Queue {
        var pending: [ByteBuffer] = []
        var drainScheduled = false
    }

    private let channel: any Channel
    private let queue = NIOLockedValueBox(Queue())

    init(channel: any Channel) {
        self.channel = channel
    }

    var allocator: ByteBufferAllocator { channel.allocator }

    func write(_ frame: Frame) {
        var buffer = channel.allocator.buffer(capacity: FrameHeader.byteCount + frame.body.readableBytes)
        frame.encode(into: &buffer)
        write(bytes: buffer)
    }

    func write(bytes: ByteBuffer) {
        let scheduleDrain = queue.withLockedValue { queue in
            queue.pending.append(bytes)
            guard !queue.drainScheduled else { return false }
            queue.drainScheduled = true
            return true
        }
        guard scheduleDrain else { return }
        channel.eventLoop.execute { self.drain() }
    }

    /// Writes `frame` after everything queued, flushes, and closes the channel once it is written (a final GOAWAY).
    func writeAndClose(_ frame: Frame) {
        var encoded = channel.allocator.buffer(capacity: FrameHeader.byteCount + frame.body.readableBytes)
        frame.encode(into: &encoded)
        let bytes = encoded
        let channel = self.channel
        channel.eventLoop.execute {
            self.drain()
            channel.writeAndFlush(bytes).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private func drain() {
        let batch = queue.withLockedValue { queue in
            queue.drainScheduled = false
            return queue.pending.isEmpty ? [] : exchange(&queue.pending, with: [])
        }
        guard !batch.isEmpty else { return }
        for bytes in batch { channel.write(bytes, promise: nil) }
        channel.flush()
    }
}

private func exchange<T>(_ value: inout T, with newValue: T) -> T {
    let old = value
    value = newValue
    return old
}
