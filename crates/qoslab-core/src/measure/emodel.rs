//! The ITU-T G.107 E-model: a voice call's transmission rating R, and the mean opinion
//! score it predicts, from the call's delay, loss and codec.
//!
//! R = Ro − Is − Id − Ie,eff + A: the basic signal-to-noise ratio Ro less the impairments
//! that come with the signal (Is: loudness, sidetone, quantizing), with delay (Id: talker
//! echo, listener echo, absolute delay) and with the equipment (Ie,eff: the codec's own
//! impairment Ie raised by packet loss Ppl according to the codec's robustness Bpl and the
//! burstiness BurstR), plus an advantage factor A. The formulas and default inputs are
//! those of ITU-T G.107 (defaults: its Table 3; `docs/reference/voice.md`); with every
//! default the rating is 93.2. MOS follows from R by G.107 Annex B: 1 below 0, 4.5 above
//! 100, and 1 + 0.035 R + 7×10⁻⁶ R (R − 60)(100 − R) in between (never below the scale's 1).
//!
//! qoslab's mapping onto a simulated call (a modelling choice, not G.107's): T = Ta = the
//! mouth-to-ear delay, Tr = 2T, Ppl = the packets lost in the network or too late for the
//! playout buffer, in percent.

use crate::traffic::codec::Codec;

/// The E-model's inputs (G.107 names; loudness ratings and levels in dB, delays in ms).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct EModelInputs {
    /// Send loudness rating.
    pub slr: f64,
    /// Receive loudness rating.
    pub rlr: f64,
    /// Sidetone masking rating.
    pub stmr: f64,
    /// Listener sidetone rating.
    pub lstr: f64,
    /// D-value of the telephone, send side.
    pub ds: f64,
    /// Talker echo loudness rating.
    pub telr: f64,
    /// Weighted echo path loss.
    pub wepl: f64,
    /// Mean one-way delay of the echo path, ms.
    pub t_ms: f64,
    /// Round-trip delay in a 4-wire loop, ms.
    pub tr_ms: f64,
    /// Absolute one-way delay, ms.
    pub ta_ms: f64,
    /// Quantizing distortion units.
    pub qdu: f64,
    /// Equipment impairment factor of the codec.
    pub ie: f64,
    /// Packet-loss robustness factor of the codec.
    pub bpl: f64,
    /// Random packet-loss probability, percent.
    pub ppl_pct: f64,
    /// Burst ratio (1 for random loss).
    pub burst_r: f64,
    /// Circuit noise, dBm0p.
    pub nc: f64,
    /// Noise floor at the receive side, dBmp.
    pub nfor: f64,
    /// Room noise at the send side, dB(A).
    pub ps: f64,
    /// Room noise at the receive side, dB(A).
    pub pr: f64,
    /// Advantage factor.
    pub a: f64,
}

impl Default for EModelInputs {
    /// G.107's default values (its Table 3; `docs/reference/voice.md`).
    fn default() -> Self {
        EModelInputs {
            slr: 8.0,
            rlr: 2.0,
            stmr: 15.0,
            lstr: 18.0,
            ds: 3.0,
            telr: 65.0,
            wepl: 110.0,
            t_ms: 0.0,
            tr_ms: 0.0,
            ta_ms: 0.0,
            qdu: 1.0,
            ie: 0.0,
            bpl: 1.0,
            ppl_pct: 0.0,
            burst_r: 1.0,
            nc: -70.0,
            nfor: -64.0,
            ps: 35.0,
            pr: 35.0,
            a: 0.0,
        }
    }
}

/// A codec's equipment impairment and loss robustness (ITU-T G.113 Appendix I values as
/// commonly quoted, unverified against the Recommendation; `docs/reference/voice.md`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CodecImpairment {
    /// Ie.
    pub ie: f64,
    /// Bpl.
    pub bpl: f64,
}

/// The impairment of `codec`, where G.113 gives both figures: G.711 (with packet-loss
/// concealment), G.729A, G.723.1 at 6.3 kbit/s. For G.723.1 at 5.3 kbit/s (Ie 19) and
/// GSM-FR (Ie 20) no Bpl is recalled, so there is none.
pub fn codec_impairment(codec: Codec) -> Option<CodecImpairment> {
    let (ie, bpl) = match codec {
        Codec::G711 => (0.0, 25.1),
        Codec::G729 => (11.0, 19.0),
        Codec::G7231 => (15.0, 16.1),
        Codec::G7231Low | Codec::GsmFr => return None,
    };
    Some(CodecImpairment { ie, bpl })
}

fn p10(x: f64) -> f64 {
    10f64.powf(x / 10.0)
}

/// The effective equipment impairment: Ie raised by the loss, Ie,eff = Ie + (95 − Ie) ×
/// Ppl / (Ppl / BurstR + Bpl).
pub fn ie_eff(ie: f64, ppl_pct: f64, burst_r: f64, bpl: f64) -> f64 {
    ie + (95.0 - ie) * ppl_pct / (ppl_pct / burst_r + bpl)
}

/// The transmission rating R of `x`.
pub fn rating(x: &EModelInputs) -> f64 {
    // Basic signal-to-noise ratio.
    let olr = x.slr + x.rlr;
    let nfo = x.nfor + x.rlr;
    let pre = x.pr + 10.0 * (1.0 + p10(10.0 - x.lstr)).log10();
    let nor = x.rlr - 121.0 + pre + 0.008 * (pre - 35.0).powi(2);
    let nos = x.ps - x.slr - x.ds - 100.0 + 0.004 * (x.ps - olr - x.ds - 14.0).powi(2);
    let no = 10.0 * (p10(x.nc) + p10(nos) + p10(nor) + p10(nfo)).log10();
    let ro = 15.0 - 1.5 * (x.slr + no);
    // Simultaneous impairments.
    let xolr = olr + 0.2 * (64.0 + no - x.rlr);
    let iolr = 20.0 * ((1.0 + (xolr / 8.0).powi(8)).powf(1.0 / 8.0) - xolr / 8.0);
    let stmro = -10.0 * (p10(-x.stmr) + (-x.t_ms / 4.0).exp() * p10(-x.telr)).log10();
    let ist = 12.0 * (1.0 + ((stmro - 13.0) / 6.0).powi(8)).powf(1.0 / 8.0)
        - 28.0 * (1.0 + ((stmro + 1.0) / 19.4).powi(35)).powf(1.0 / 35.0)
        - 13.0 * (1.0 + ((stmro - 3.0) / 33.0).powi(13)).powf(1.0 / 13.0)
        + 29.0;
    let q = 37.0 - 15.0 * x.qdu.log10();
    let g = 1.07 + 0.258 * q + 0.0602 * q * q;
    let z = 46.0 / 30.0 - g / 40.0;
    let y = (ro - 100.0) / 15.0 + 46.0 / 8.4 - g / 9.0;
    let iq = 15.0 * (1.0 + 10f64.powf(y) + 10f64.powf(z)).log10();
    let is = iolr + ist + iq;
    // Delay impairments: talker echo, listener echo, absolute delay.
    let roe = -1.5 * (no - x.rlr);
    let t = x.t_ms;
    let mut terv =
        x.telr - 40.0 * ((1.0 + t / 10.0) / (1.0 + t / 150.0)).log10() + 6.0 * (-0.3 * t * t).exp();
    if x.stmr < 9.0 {
        terv += ist / 2.0;
    }
    let re = 80.0 + 2.5 * (terv - 14.0);
    let mut idte = ((roe - re) / 2.0 + ((roe - re).powi(2) / 4.0 + 100.0).sqrt() - 1.0) * (1.0 - (-t).exp());
    if x.stmr > 20.0 {
        idte = (idte * idte + ist * ist).sqrt();
    }
    let rle = 10.5 * (x.wepl + 7.0) * (x.tr_ms + 1.0).powf(-0.25);
    let idle = (ro - rle) / 2.0 + ((ro - rle).powi(2) / 4.0 + 169.0).sqrt();
    let idd = if x.ta_ms <= 100.0 {
        0.0
    } else {
        let xx = (x.ta_ms / 100.0).log2();
        25.0 * ((1.0 + xx.powi(6)).powf(1.0 / 6.0) - 3.0 * (1.0 + (xx / 3.0).powi(6)).powf(1.0 / 6.0) + 2.0)
    };
    let id = idte + idle + idd;
    ro - is - id - ie_eff(x.ie, x.ppl_pct, x.burst_r, x.bpl) + x.a
}

/// The mean opinion score R predicts (G.107 Annex B). Just above R = 0 the polynomial
/// dips below 1 (to 0.993 near R = 3); the score is held at the scale's floor of 1 there.
pub fn mos(r: f64) -> f64 {
    if r < 0.0 {
        1.0
    } else if r > 100.0 {
        4.5
    } else {
        (1.0 + 0.035 * r + r * (r - 60.0) * (100.0 - r) * 7e-6).max(1.0)
    }
}

/// The inputs for a call with mouth-to-ear delay `delay_ms`, loss `loss_pct` (network and
/// late) and `codec`'s impairment, the other inputs at G.107's defaults.
pub fn call_inputs(delay_ms: f64, loss_pct: f64, burst_r: f64, codec: CodecImpairment) -> EModelInputs {
    EModelInputs {
        t_ms: delay_ms,
        tr_ms: 2.0 * delay_ms,
        ta_ms: delay_ms,
        ie: codec.ie,
        bpl: codec.bpl,
        ppl_pct: loss_pct,
        burst_r,
        ..EModelInputs::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const G711: CodecImpairment = CodecImpairment { ie: 0.0, bpl: 25.1 };

    /// G.107's default inputs give R = 93.2.
    #[test]
    fn default_rating_is_93_2() {
        let r = rating(&EModelInputs::default());
        assert!((r - 93.2).abs() < 0.1, "{r}");
    }

    /// MOS by hand: R 0 → 1; R 50 → 1 + 1.75 + 50 × (−10) × 50 × 7e-6 = 2.575;
    /// R 93.2 → 1 + 3.262 + 93.2 × 33.2 × 6.8 × 7e-6 = 4.4093; R 100 → 4.5.
    #[test]
    fn mos_by_hand() {
        assert_eq!(mos(0.0), 1.0);
        assert!((mos(50.0) - 2.575).abs() < 1e-9);
        assert!((mos(93.2) - (1.0 + 0.035 * 93.2 + 93.2 * 33.2 * 6.8 * 7e-6)).abs() < 1e-12);
        assert!((mos(93.2) - 4.4093).abs() < 1e-4);
        assert!((mos(100.0) - 4.5).abs() < 1e-12);
        assert_eq!((mos(-5.0), mos(120.0)), (1.0, 4.5));
        // 1 + 0.105 + 3 × (−57) × 97 × 7e-6 = 0.9889: held at 1.
        assert_eq!(mos(3.0), 1.0);
        assert!(mos(7.0) > 1.0);
    }

    /// Ie,eff by hand: G.729A (Ie 11, Bpl 19) at 2 % random loss is 11 + 84 × 2 / 21 =
    /// 19.0; with BurstR 2, 11 + 84 × 2 / 20 = 19.4.
    #[test]
    fn effective_equipment_impairment_by_hand() {
        assert!((ie_eff(11.0, 2.0, 1.0, 19.0) - 19.0).abs() < 1e-9);
        assert!((ie_eff(11.0, 2.0, 2.0, 19.0) - 19.4).abs() < 1e-9);
        assert_eq!(ie_eff(0.0, 0.0, 1.0, 25.1), 0.0);
    }

    /// The G.711 ratings `docs/reference/voice.md` tabulates without loss (T = Ta = d,
    /// Tr = 2d) and gives with loss at d = 0, and the codecs' Ie,eff at 2 % loss, are what
    /// this model computes, to the digit the page shows.
    #[test]
    fn the_reference_tables() {
        let page = include_str!("../../../../docs/reference/voice.md");
        let row = |first: &str| -> Vec<String> {
            let line = page.lines().find(|line| line.starts_with(first)).expect("the delay table");
            line.trim_matches('|').split('|').skip(1).map(|cell| cell.trim().to_owned()).collect()
        };
        let delays = row("| one-way delay d (ms) |");
        let ratings = row("| R |");
        assert_eq!(delays.len(), ratings.len());
        for (d, shown) in delays.iter().zip(&ratings) {
            let r = rating(&call_inputs(d.parse().expect("a delay"), 0.0, 1.0, G711));
            assert_eq!(&format!("{r:.1}"), shown, "d {d} ms: {r}");
        }
        let with_loss: Vec<String> = [1.0, 2.0, 5.0]
            .iter()
            .map(|&loss| format!("{:.1}", rating(&call_inputs(0.0, loss, 1.0, G711))))
            .collect();
        let told =
            format!("R = {}, {} and {} at 1 %, 2 % and 5 % loss", with_loss[0], with_loss[1], with_loss[2]);
        let page = page.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(page.contains(&told), "docs/reference/voice.md does not say `{told}`");
        let effective: Vec<String> = [(0.0, 25.1), (11.0, 19.0), (15.0, 16.1)]
            .iter()
            .map(|&(ie, bpl)| format!("{:.1}", ie_eff(ie, 2.0, 1.0, bpl)))
            .collect();
        let told = format!("Ie,eff {}, {} and {} at 2 % loss", effective[0], effective[1], effective[2]);
        assert!(page.contains(&told), "docs/reference/voice.md does not say `{told}`");
    }

    /// R falls as delay or loss grows.
    #[test]
    fn monotonic_in_delay_and_loss() {
        let mut last = f64::INFINITY;
        for d in (0..=800).step_by(10) {
            let r = rating(&call_inputs(d as f64, 0.0, 1.0, G711));
            assert!(r <= last + 1e-9, "delay {d}");
            last = r;
        }
        let mut last = f64::INFINITY;
        for loss in 0..=30 {
            let r = rating(&call_inputs(50.0, loss as f64, 1.0, G711));
            assert!(r < last, "loss {loss}");
            last = r;
        }
    }

    #[test]
    fn codec_table() {
        assert_eq!(codec_impairment(Codec::G729), Some(CodecImpairment { ie: 11.0, bpl: 19.0 }));
        assert_eq!(codec_impairment(Codec::GsmFr), None);
    }
}
