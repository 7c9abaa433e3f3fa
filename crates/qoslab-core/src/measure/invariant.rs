//! A measurement invariant found broken after a run: counters that must agree do not.
//!
//! The checks themselves live with the counters ([`super::queue_stats::QueueStats::check`],
//! [`super::quality::Quality::check`], [`super::observers::Observers::check`]); the run
//! reports any failure as a run error and discards its results.

/// Counters that disagree; the message gives both sides.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum InvariantError {
    /// A queue's backlog is not what its counters add up to, or not what it holds.
    #[error(
        "queue backlog identity broken: enqueued − dequeued − dropped from the queue − handed \
         over = {expected}, counted backlog {counted}, packets actually held {held}"
    )]
    QueueBacklog {
        /// Enqueued − dequeued − dropped from the queue − handed over, over the whole run.
        expected: u64,
        /// The backlog counter.
        counted: u64,
        /// Packets the queue actually holds.
        held: u64,
    },
    /// An application's ΔQ accounts at a point disagree with its flows' counters.
    #[error("ΔQ of `{app}` at {point}: in, delivered, lost {got:?}, but its flows count {expected:?}")]
    QualityAccounts {
        /// The application.
        app: String,
        /// The observation point.
        point: String,
        /// Packets in, delivered and lost by the accounts.
        got: (u64, u64, u64),
        /// The same by the flows' counters.
        expected: (u64, u64, u64),
    },
    /// A voice flow's call counts disagree with the flow's counters.
    #[error("voice of flow row {flow_row}: sent, arrived, lost {got:?}, but the flow counts {expected:?}")]
    VoiceCounts {
        /// The flow's row.
        flow_row: crate::ids::FlowId,
        /// Packets sent, arrived (played or late) and lost by the call.
        got: (u64, u64, u64),
        /// Packets sent, received and dropped by the flow.
        expected: (u64, u64, u64),
    },
}
