//! Video as a frame clock: `fps` frames a second, each of a fixed or random size, with
//! scheduled frame-rate changes.
//!
//! Frame k of a segment that began at s with rate f leaves at s + ⌊k · 10⁹ / f⌋ ns, so the
//! rate never drifts. At each `fps_steps` instant a new segment begins with the new rate
//! (its first frame at that instant): the ad-hoc report's camera drops from 30 to 15, 10
//! and 5 frames a second. Frame sizes (payload bytes) are constant — `frame_size` or
//! `rate` / 8 / `fps` — or drawn per frame from an exponential or geometric distribution
//! with the given mean (variable bit rate). Frames are split into packets by
//! [`super::frames`]. The frame-rate steps happen at fixed times: the report's camera
//! lowers its rate as loss rises, a feedback loop not modelled.

use crate::config::error::{join_path, Issue};
use crate::engine::Rng;
use crate::time::{SimTime, NS_PER_S};
use crate::traffic::size_dist::SizeDist;
use crate::units::{Duration, Rate, Size};
use schemars::JsonSchema;
use serde::Deserialize;

/// Default frame rate (the ad-hoc report's QCIF camera).
pub const DEFAULT_FPS: f64 = 30.0;
/// Default largest packet, IP bytes.
pub const DEFAULT_VIDEO_PACKET_BYTES: u64 = 1500;
/// Default headers per packet, bytes (IPv4 and UDP).
pub const DEFAULT_VIDEO_HEADER_BYTES: u64 = 28;

/// A frame-rate change.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FpsStep {
    /// When, since the run began.
    pub at: Duration,
    /// The new frame rate.
    pub fps: f64,
}

/// Video parameters.
#[derive(Clone, Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VideoParams {
    /// Frames per second (default 30; up to three decimals).
    pub fps: Option<f64>,
    /// Payload bytes per frame: `"2533B"`, `{exponential: 2.5kB}` or `{geometric: 2.5kB}`
    /// (give this or `rate`).
    pub frame_size: Option<SizeDist>,
    /// Payload bit rate at the initial frame rate: constant frames of rate / 8 / fps bytes
    /// (give this or `frame_size`).
    pub rate: Option<Rate>,
    /// Largest IP packet (default 1500 B).
    pub packet_size: Option<Size>,
    /// Header bytes in each packet (default 28 B: IPv4 and UDP).
    pub headers: Option<Size>,
    /// Frame-rate changes, in time order.
    #[serde(default)]
    pub fps_steps: Vec<FpsStep>,
}

/// Frames per 10⁶ seconds, exactly: `fps` with up to six decimals.
fn micro_fps(fps: f64, at: &str) -> Result<u128, Issue> {
    let micro = (fps * 1e6).round();
    if !(fps.is_finite() && micro >= 1.0 && fps <= 100_000.0) || (fps * 1e6 - micro).abs() > 1e-3 {
        return Err(Issue::at(at, format!("`{fps}` is not a usable frame rate"))
            .hint("give frames per second above 0, e.g. 30 or 29.97"));
    }
    Ok(micro as u128)
}

/// A running frame clock.
#[derive(Clone, Debug)]
pub struct VideoClock {
    base_micro_fps: u128,
    /// (when, frames per 10⁶ s), in time order.
    steps: Vec<(SimTime, u128)>,
    frame_size: SizeDist,
    segment_start: SimTime,
    micro_fps: u128,
    /// Index of the next step to apply.
    next_step: usize,
    k: u64,
}

impl VideoClock {
    /// Compiles `params` found at key path `at`; returns the clock, the frame payload mean
    /// (bytes) and the initial frame rate (frames/s).
    pub fn build(params: &VideoParams, at: &str) -> Result<(Self, f64, f64), Issue> {
        let fps = params.fps.unwrap_or(DEFAULT_FPS);
        let base_micro_fps = micro_fps(fps, &join_path(at, "fps"))?;
        let frame_size =
            match (params.frame_size, params.rate) {
                (Some(size), None) => size,
                (None, Some(rate)) => {
                    let bytes = (rate.0 as f64 / 8.0 / fps).round() as u64;
                    if bytes == 0 {
                        return Err(Issue::at(join_path(at, "rate"), "the rate gives frames of 0 bytes")
                            .hint("raise the rate or lower the frame rate"));
                    }
                    SizeDist::Constant(bytes)
                }
                _ => return Err(Issue::at(at, "give exactly one of `frame_size` and `rate`").hint(
                    "e.g. `rate: 608kbps` for constant frames, `frame_size: {exponential: 2.5kB}` for VBR",
                )),
            };
        let mut steps = Vec::with_capacity(params.fps_steps.len());
        for (i, step) in params.fps_steps.iter().enumerate() {
            let here = format!("{}[{i}]", join_path(at, "fps_steps"));
            let when = SimTime(step.at.0);
            if steps.last().is_some_and(|&(last, _)| when <= last) {
                return Err(Issue::at(join_path(&here, "at"), "frame-rate steps must be in time order")
                    .hint("list the steps by increasing `at`"));
            }
            steps.push((when, micro_fps(step.fps, &join_path(&here, "fps"))?));
        }
        let clock = VideoClock {
            base_micro_fps,
            steps,
            frame_size,
            segment_start: SimTime::ZERO,
            micro_fps: base_micro_fps,
            next_step: 0,
            k: 0,
        };
        Ok((clock, frame_size.mean_bytes() as f64, fps))
    }

    /// Time between frames at the initial frame rate, ns (rounded down).
    pub fn frame_interval_ns(&self) -> u64 {
        (NS_PER_S as u128 * 1_000_000 / self.base_micro_fps) as u64
    }

    /// Restarts the clock at `origin`: the frame rate in force there, the first frame at
    /// `origin`.
    pub fn restart(&mut self, origin: SimTime) {
        self.next_step = self.steps.partition_point(|&(at, _)| at <= origin);
        self.micro_fps = match self.next_step {
            0 => self.base_micro_fps,
            n => self.steps[n - 1].1,
        };
        self.segment_start = origin;
        self.k = 0;
    }

    /// The next frame: when it leaves and its payload bytes.
    pub fn next_frame(&mut self, rng: &mut Rng) -> (SimTime, u64) {
        let mut at = self.frame_time();
        if let Some(&(step_at, micro_fps)) = self.steps.get(self.next_step) {
            if at >= step_at {
                self.next_step += 1;
                self.micro_fps = micro_fps;
                self.segment_start = step_at;
                self.k = 0;
                at = step_at;
            }
        }
        self.k += 1;
        (at, self.frame_size.sample(rng))
    }

    fn frame_time(&self) -> SimTime {
        self.segment_start.after((self.k as u128 * NS_PER_S as u128 * 1_000_000 / self.micro_fps) as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(yaml: &str) -> VideoClock {
        let (value, _) = crate::config::yaml::parse(yaml).unwrap();
        let params: VideoParams = serde_json::from_value(value).unwrap();
        VideoClock::build(&params, "p").unwrap().0
    }

    const MS: u64 = 1_000_000;

    /// 30 frames/s of 608 kbit/s: frames of 2533 bytes every 33.333 ms (rounded down to the
    /// nanosecond without drift); at 100 ms the rate drops to 10 frames/s, the next frame at
    /// the step itself, then every 100 ms.
    #[test]
    fn frames_follow_the_clock_and_its_steps() {
        let mut c = clock("{fps: 30, rate: 608kbps, fps_steps: [{at: 100ms, fps: 10}]}");
        c.restart(SimTime::ZERO);
        let mut rng = Rng::for_stream(1, 0, "v");
        let frames: Vec<(u64, u64)> = (0..6).map(|_| c.next_frame(&mut rng)).map(|(t, b)| (t.0, b)).collect();
        assert_eq!(
            frames,
            vec![
                (0, 2533),
                (33_333_333, 2533),
                (66_666_666, 2533),
                (100 * MS, 2533),
                (200 * MS, 2533),
                (300 * MS, 2533)
            ]
        );
        // Restarting after the step keeps the stepped rate.
        c.restart(SimTime(1000 * MS));
        let times: Vec<u64> = (0..2).map(|_| c.next_frame(&mut rng).0 .0).collect();
        assert_eq!(times, vec![1000 * MS, 1100 * MS]);
    }

    #[test]
    fn errors_name_the_key() {
        let build = |yaml: &str| {
            let (value, _) = crate::config::yaml::parse(yaml).unwrap();
            let params: VideoParams = serde_json::from_value(value).unwrap();
            VideoClock::build(&params, "p").expect_err("refused").key_path
        };
        assert_eq!(build("{fps: 0, rate: 1Mbps}"), "p.fps");
        assert_eq!(build("{fps: 30}"), "p");
        assert_eq!(
            build("{rate: 1Mbps, fps_steps: [{at: 2s, fps: 10}, {at: 1s, fps: 5}]}"),
            "p.fps_steps[1].at"
        );
        assert_eq!(build("{rate: 1Mbps, fps_steps: [{at: 2s, fps: -1}]}"), "p.fps_steps[0].fps");
    }
}
