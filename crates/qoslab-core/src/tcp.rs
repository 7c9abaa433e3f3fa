//! TCP: connection set-up and tear-down, reliable delivery with real sequence numbers,
//! RTT estimation and retransmission timeouts, slow start, congestion avoidance and NewReno
//! fast recovery, with CUBIC as an alternative window growth and SACK-based recovery
//! (RFC 2018, RFC 6675) as an alternative to NewReno's.
//!
//! Segments are ordinary packets (IP + 20-byte TCP header, no options), so they queue, get
//! classified, policed and dropped like any other traffic, in both directions. What is not
//! modelled, and says so: TCP options other than SACK (timestamps, window scaling beyond the
//! advertised window), Nagle's algorithm (applications write whole messages), ECN feedback
//! (ECE/CWR), the persist timer (the receive window never closes: applications read at once)
//! and TIME-WAIT.
pub mod congestion;
pub mod cubic;
pub mod endpoint;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod stack;

pub use congestion::CongestionControl;
pub use sender::Retransmit;
pub use stack::{TcpConfig, TcpStack};
