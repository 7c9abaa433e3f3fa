//! Active queue management: droppers that decide, packet by packet, whether a queue
//! accepts an arrival before it is full — random early detection in its RED, WRED
//! (per-precedence and per-DSCP) and RIO forms, with optional ECN marking — and CoDel
//! ([`codel`], RFC 8289), which judges a queue by its packets' sojourn time at dequeue.
//!
//! A dropper belongs to one queue (a FIFO, a CBWFQ class, an MDRR queue, a CBQ, DRR or
//! HTB class) and replaces that queue's plain tail-drop check: the discipline offers each
//! arrival with the queue's length and whether it is full, and tells the dropper about each
//! departure.

pub mod codel;
pub mod red;
pub mod red_average;
pub mod red_profile;
pub mod wred_defaults;

pub use red::{Admission, Red, RedSpec};
