//! Frames split into packets: the emission schedule of video, from a frame clock
//! ([`super::video`]) or a trace ([`super::trace`]).
//!
//! A frame of F payload bytes leaves as ⌈F / P⌉ packets, P = `packet_size` − `headers`,
//! all at the frame's instant and in order (a sender hands a whole frame to its interface
//! at once; the first queue serializes them): ⌊F / P⌋ full packets and one with the rest.
//! Each packet carries the headers on top of its share of the payload, so the flow's
//! packets have different sizes. Frames of 0 bytes send nothing.

use super::trace::TraceCursor;
use super::video::VideoClock;
use crate::engine::Rng;
use crate::time::SimTime;

/// Where frames come from.
#[derive(Clone, Debug)]
pub enum FrameSource {
    /// A frame clock with random or fixed frame sizes.
    Video(VideoClock),
    /// A recorded or synthetic trace.
    Trace(TraceCursor),
}

impl FrameSource {
    fn restart(&mut self, origin: SimTime) {
        match self {
            FrameSource::Video(clock) => clock.restart(origin),
            FrameSource::Trace(cursor) => cursor.restart(origin),
        }
    }

    fn next_frame(&mut self, rng: &mut Rng) -> (SimTime, u64) {
        match self {
            FrameSource::Video(clock) => clock.next_frame(rng),
            FrameSource::Trace(cursor) => cursor.next_frame(),
        }
    }
}

/// Frames being split into packets.
#[derive(Clone, Debug)]
pub struct FrameState {
    source: FrameSource,
    /// Payload bytes per full packet.
    payload_per_packet_bytes: u64,
    headers_bytes: u32,
    frame_at: SimTime,
    remaining_bytes: u64,
    /// Size of the packet the last `next` emitted, IP bytes.
    current_size_bytes: u32,
}

impl FrameState {
    /// Frames from `source`, in packets of at most `packet_size_bytes` (IP) carrying
    /// `headers_bytes` of headers each.
    pub fn new(source: FrameSource, packet_size_bytes: u32, headers_bytes: u32) -> Self {
        debug_assert!(packet_size_bytes > headers_bytes);
        FrameState {
            source,
            payload_per_packet_bytes: (packet_size_bytes - headers_bytes) as u64,
            headers_bytes,
            frame_at: SimTime::ZERO,
            remaining_bytes: 0,
            current_size_bytes: packet_size_bytes,
        }
    }

    /// Restarts the frames at `origin` (the first frame is due there).
    pub fn restart(&mut self, origin: SimTime) {
        self.source.restart(origin);
        self.remaining_bytes = 0;
    }

    /// The time of the next packet; its size is then [`FrameState::size_bytes`].
    pub fn next(&mut self, rng: &mut Rng) -> SimTime {
        while self.remaining_bytes == 0 {
            let (at, bytes) = self.source.next_frame(rng);
            self.frame_at = at;
            self.remaining_bytes = bytes;
        }
        let chunk = self.remaining_bytes.min(self.payload_per_packet_bytes);
        self.remaining_bytes -= chunk;
        self.current_size_bytes = chunk as u32 + self.headers_bytes;
        self.frame_at
    }

    /// Size of the packet the last [`FrameState::next`] emitted, IP bytes.
    pub fn size_bytes(&self) -> u32 {
        self.current_size_bytes
    }
}
