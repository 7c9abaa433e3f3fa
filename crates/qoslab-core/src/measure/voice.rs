//! What a listener hears of one voice flow: talk spurts, packets lost in the network or too
//! late for the playout buffer, the mouth-to-ear delay, and the E-model rating and MOS of
//! the whole call and of each spurt.
//!
//! * **Talk spurts** are cut at the sender: a packet created more than the silence threshold
//!   (the run's `jitter_gap_threshold`, 1 s by default) after the flow's previous one opens
//!   a new spurt. Every packet is charged to the spurt it was sent in.
//! * **Playout**: see [`super::playout`]; the buffer restarts with each spurt. A packet of an
//!   earlier spurt that arrives after a later spurt has begun playing is late.
//! * **Mouth-to-ear delay** = playout offset (network delay + buffer wait) + packetization
//!   (the packet interval: the first sample of a packet waits that long for the last) + the
//!   codec delay (by default its look-ahead, [`crate::traffic::codec::Codec::lookahead_ns`]).
//!   A call's figure is the mean over its played packets.
//! * **Effective loss** Ppl = (network losses + late packets) / packets sent.
//! * **Burst ratio** (G.107): mean length of the observed loss bursts over the mean expected
//!   for random loss at the same rate, 1/(1 − p). Bursts are the runs of packets missing
//!   (lost or late) between two played packets of a spurt, counted from the creation times
//!   of a constant-rate stream. A spurt uses its call's burst ratio.
//! * R and MOS: [`super::emodel`] with T = Ta = mouth-to-ear delay, Tr = 2T.

use super::emodel::{call_inputs, mos, rating, CodecImpairment};
use super::ipdv::Ipdv;
use super::playout::{Playout, PlayoutPolicy};
use crate::time::SimTime;
use crate::traffic::codec::Codec;

/// Fixed facts of a voice flow.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct VoiceSetup {
    /// The codec.
    pub codec: Codec,
    /// The codec's Ie and Bpl.
    pub impairment: CodecImpairment,
    /// Packet interval (packetization delay), ns.
    pub interval_ns: u64,
    /// Codec delay added to the mouth-to-ear delay, ns.
    pub codec_delay_ns: u64,
    /// Silences longer than this separate talk spurts, ns.
    pub silence_ns: u64,
    /// The playout buffer.
    pub playout: PlayoutPolicy,
}

/// Counts of one talk spurt (or of the whole call).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct VoiceCounts {
    /// When its first packet was created.
    pub start: SimTime,
    /// Packets sent.
    pub sent_packets: u64,
    /// Lost in the network.
    pub lost_packets: u64,
    /// Arrived after their playout time.
    pub late_packets: u64,
    /// Played.
    pub played_packets: u64,
    /// Sum over played packets of their playout offset, ns.
    offset_sum_ns: u128,
}

/// E-model figures of a call or spurt.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct VoiceScore {
    /// Effective loss (network + late), percent.
    pub effective_loss_pct: f64,
    /// Mean mouth-to-ear delay, ms.
    pub mouth_to_ear_ms: f64,
    /// Transmission rating.
    pub r: f64,
    /// Mean opinion score.
    pub mos: f64,
}

impl VoiceCounts {
    /// Mean playout offset of the played packets, ns.
    pub fn playout_delay_mean_ns(&self) -> Option<f64> {
        (self.played_packets > 0).then(|| self.offset_sum_ns as f64 / self.played_packets as f64)
    }

    /// Effective loss, percent of the packets sent.
    pub fn effective_loss_pct(&self) -> Option<f64> {
        (self.sent_packets > 0)
            .then(|| 100.0 * (self.lost_packets + self.late_packets) as f64 / self.sent_packets as f64)
    }

    fn score(&self, setup: &VoiceSetup, burst_ratio: f64) -> Option<VoiceScore> {
        let loss_pct = self.effective_loss_pct()?;
        let offset_ns = self.playout_delay_mean_ns()?;
        let mouth_to_ear_ms = (offset_ns + (setup.interval_ns + setup.codec_delay_ns) as f64) / 1e6;
        let r = rating(&call_inputs(mouth_to_ear_ms, loss_pct, burst_ratio, setup.impairment));
        Some(VoiceScore { effective_loss_pct: loss_pct, mouth_to_ear_ms, r, mos: mos(r) })
    }
}

/// Streaming voice-quality state of one flow.
#[derive(Clone, Debug)]
pub struct VoiceStats {
    setup: VoiceSetup,
    playout: Playout,
    /// The whole call.
    pub call: VoiceCounts,
    /// One entry per talk spurt, in order.
    pub spurts: Vec<VoiceCounts>,
    last_sent: Option<SimTime>,
    /// Spurt being played and the creation time of its last played packet.
    playing: Option<(usize, SimTime)>,
    bursts: u64,
    burst_missing_packets: u64,
    /// RFC 3393 IPDV of the received packets.
    pub ipdv: Ipdv,
}

impl VoiceStats {
    /// A flow with `setup`.
    pub fn new(setup: VoiceSetup) -> Self {
        VoiceStats {
            setup,
            playout: Playout::new(setup.playout),
            call: VoiceCounts::default(),
            spurts: Vec::new(),
            last_sent: None,
            playing: None,
            bursts: 0,
            burst_missing_packets: 0,
            ipdv: Ipdv::new(setup.interval_ns),
        }
    }

    /// Its fixed facts.
    pub fn setup(&self) -> &VoiceSetup {
        &self.setup
    }

    /// The spurt a packet created at `created` belongs to.
    fn spurt_of(&self, created: SimTime) -> usize {
        self.spurts.partition_point(|s| s.start <= created).saturating_sub(1)
    }

    /// The flow sent a packet at `created`.
    pub fn on_sent(&mut self, created: SimTime) {
        if self.last_sent.is_none_or(|last| created.since(last) > self.setup.silence_ns) {
            self.spurts.push(VoiceCounts { start: created, ..Default::default() });
        }
        self.last_sent = Some(created);
        self.call.sent_packets += 1;
        self.spurts.last_mut().expect("pushed above").sent_packets += 1;
    }

    /// The packet created at `created` was lost in the network.
    pub fn on_lost(&mut self, created: SimTime) {
        let k = self.spurt_of(created);
        self.call.lost_packets += 1;
        self.spurts[k].lost_packets += 1;
    }

    /// The packet created at `created` arrived at `now`.
    pub fn on_received(&mut self, created: SimTime, now: SimTime) {
        let delay_ns = now.since(created);
        self.ipdv.record(created, delay_ns);
        let k = self.spurt_of(created);
        let late = match self.playing {
            Some((current, _)) if k < current => true,
            Some((current, _)) if k == current => self.playout.on_arrival(delay_ns),
            _ => {
                self.playout.restart();
                self.playing = Some((k, created));
                self.playout.on_arrival(delay_ns)
            }
        };
        let spurt = &mut self.spurts[k];
        if late {
            self.call.late_packets += 1;
            spurt.late_packets += 1;
            return;
        }
        let offset_ns = self.playout.playout_delay_ns().expect("set by the arrival") as u128;
        for counts in [&mut self.call, spurt] {
            counts.played_packets += 1;
            counts.offset_sum_ns += offset_ns;
        }
        let (current, last_played) = self.playing.expect("set above");
        if created > last_played {
            let missing = (created.since(last_played) + self.setup.interval_ns / 2) / self.setup.interval_ns;
            if missing > 1 {
                self.bursts += 1;
                self.burst_missing_packets += missing - 1;
            }
        }
        self.playing = Some((current, created.max(last_played)));
    }

    /// G.107's burst ratio of the call's missing packets (1 when none were missing).
    pub fn burst_ratio(&self) -> f64 {
        if self.bursts == 0 {
            return 1.0;
        }
        let missing = self.burst_missing_packets as f64;
        let p = missing / (missing + self.call.played_packets as f64);
        missing / self.bursts as f64 * (1.0 - p)
    }

    /// The call's score, once a packet was played.
    pub fn call_score(&self) -> Option<VoiceScore> {
        self.call.score(&self.setup, self.burst_ratio())
    }

    /// Spurt `k`'s score.
    pub fn spurt_score(&self, k: usize) -> Option<VoiceScore> {
        self.spurts[k].score(&self.setup, self.burst_ratio())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::emodel::codec_impairment;

    const MS: u64 = 1_000_000;

    fn setup(buffer_ms: u64) -> VoiceSetup {
        VoiceSetup {
            codec: Codec::G711,
            impairment: codec_impairment(Codec::G711).unwrap(),
            interval_ns: 20 * MS,
            codec_delay_ns: 0,
            silence_ns: 1_000 * MS,
            playout: PlayoutPolicy::Fixed { buffer_ns: buffer_ms * MS },
        }
    }

    /// Ten packets every 20 ms with 30 ms network delay, except packet 4 (80 ms): with a
    /// 40 ms buffer (offset 70 ms) it is late and counts as lost; with 60 ms (offset 90 ms)
    /// it is played. Packet 7 is lost in the network either way.
    #[test]
    fn a_late_packet_is_lost_only_beyond_the_buffer() {
        for (buffer_ms, late) in [(40, 1), (60, 0)] {
            let mut voice = VoiceStats::new(setup(buffer_ms));
            for k in 0..10u64 {
                let created = SimTime(k * 20 * MS);
                voice.on_sent(created);
                match k {
                    7 => voice.on_lost(created),
                    4 => voice.on_received(created, SimTime(created.0 + 80 * MS)),
                    _ => voice.on_received(created, SimTime(created.0 + 30 * MS)),
                }
            }
            let c = voice.call;
            assert_eq!((c.sent_packets, c.lost_packets, c.late_packets), (10, 1, late));
            assert_eq!(c.played_packets, 9 - late);
            assert_eq!(c.effective_loss_pct(), Some(10.0 * (1 + late) as f64));
            let score = voice.call_score().unwrap();
            // Offset 30 ms + buffer, plus 20 ms packetization.
            assert_eq!(score.mouth_to_ear_ms, (30 + buffer_ms + 20) as f64);
            let expected_r = rating(&call_inputs(
                score.mouth_to_ear_ms,
                score.effective_loss_pct,
                voice.burst_ratio(),
                codec_impairment(Codec::G711).unwrap(),
            ));
            assert_eq!(score.r, expected_r);
        }
    }

    /// Two spurts 5 s apart: each packet is charged to its own spurt, and the second spurt
    /// sets its own playout offset.
    #[test]
    fn spurts_are_cut_at_silences() {
        let mut voice = VoiceStats::new(setup(40));
        for (start, delay) in [(0, 10), (5_000, 50)] {
            for k in 0..5 {
                let created = SimTime((start + k * 20) * MS);
                voice.on_sent(created);
                voice.on_received(created, SimTime(created.0 + delay * MS));
            }
        }
        assert_eq!(voice.spurts.len(), 2);
        assert_eq!(voice.spurts[1].start, SimTime(5_000 * MS));
        assert_eq!(voice.spurts[0].playout_delay_mean_ns(), Some(50e6));
        assert_eq!(voice.spurts[1].playout_delay_mean_ns(), Some(90e6));
        assert_eq!(voice.call.late_packets, 0);
    }

    /// Missing runs of 2 and 1 packets among 8 played: bursts 2, missing 3, p = 3/11,
    /// burst ratio = 1.5 × (1 − 3/11).
    #[test]
    fn burst_ratio_by_hand() {
        let mut voice = VoiceStats::new(setup(40));
        for k in 0..11u64 {
            let created = SimTime(k * 20 * MS);
            voice.on_sent(created);
            if [3, 4, 8].contains(&k) {
                voice.on_lost(created);
            } else {
                voice.on_received(created, SimTime(created.0 + 10 * MS));
            }
        }
        assert!((voice.burst_ratio() - 1.5 * (1.0 - 3.0 / 11.0)).abs() < 1e-12);
    }
}
