import FoyerWire
import NIOCore

/// Writes frames to a channel from any task, flushing once per batch rather than once per frame.
///
/// Frames are encoded by the calling task (off the event loop), then written on the event loop; the first
/// write of a batch schedules one flush behind it, so every frame written before that flush runs shares it.
final class FrameWriter: Sendable {
    private let channel: any Channel
    private let flushScheduled: NIOLoopBoundBox<Bool>

    init(channel: any Channel) {
        self.channel = channel
        self.flushScheduled = NIOLoopBoundBox.makeBoxSendingValue(false, eventLoop: channel.eventLoop)
    }

    var allocator: ByteBufferAllocator { channel.allocator }

    func write(_ frame: Frame) {
        var buffer = channel.allocator.buffer(capacity: FrameHeader.byteCount + frame.body.readableBytes)
        frame.encode(into: &buffer)
        write(bytes: buffer)
    }

    func write(bytes: ByteBuffer) {
        if channel.eventLoop.inEventLoop {
            writeOnLoop(bytes)
        } else {
            channel.eventLoop.execute { self.writeOnLoop(bytes) }
        }
    }

    /// Writes `frame`, flushes, and closes the channel once it is written (for a final GOAWAY).
    func writeAndClose(_ frame: Frame) {
        var buffer = channel.allocator.buffer(capacity: FrameHeader.byteCount + frame.body.readableBytes)
        frame.encode(into: &buffer)
        let channel = self.channel
        channel.eventLoop.execute {
            channel.writeAndFlush(buffer).whenComplete { _ in channel.close(promise: nil) }
        }
    }

    private func writeOnLoop(_ bytes: ByteBuffer) {
        channel.write(bytes, promise: nil)
        guard !flushScheduled.value else { return }
        flushScheduled.value = true
        channel.eventLoop.execute {
            self.flushScheduled.value = false
            self.channel.flush()
        }
    }
}
