//! Queuing disciplines: the contract every discipline implements, and the registry that
//! builds one from its scenario `kind`.
//!
//! A discipline sits between the routing decision and the transmit ring of an egress port.
//! The port offers it every arriving packet (`enqueue`) and asks it for a packet whenever
//! the ring has room (`dequeue`). A discipline only decides; all counting goes through
//! [`QdiscCtx`], which records every enqueue, dequeue and drop (with its reason) per class.
//! Dispatch is static: [`AnyQdisc`] is an enum over the concrete disciplines, so the
//! per-packet path has no virtual calls.
//!
//! Adding a discipline: a file here with its header essay, params, state, unit tests and
//! its [`QdiscKind`] implementation; its `pub mod` and one entry in the `registry!` list
//! below; a page in `docs/qdisc/`; tests against theory or a hand-computed trace; an example
//! (see `docs/adding-a-qdisc.md`).

pub mod cbq;
pub mod cbwfq;
pub mod cbwfq_plan;
pub mod class_queue;
pub mod class_queue_limit;
pub mod custom;
pub mod drr;
pub mod fair_flows;
pub mod fifo;
pub mod fq_codel;
pub mod hqf_policy;
pub mod htb;
pub mod linux_charge;
pub mod mdrr;
pub mod packet_queue;
pub mod prio;
#[cfg(test)]
mod reference;
pub mod scfq;
pub mod shaper_credit;
pub mod tbf;
pub mod three_parameter;
pub mod wfq;
pub mod xe_policy;

pub use crate::measure::QdiscCtx;
pub use fifo::FifoParams;
pub use packet_queue::QueueLimit;
pub use wfq::WfqParams;

use crate::aqm::{Red, RedSpec};
use crate::config::error::{join_path, Issue};
use crate::config::tagged::kind_enum;
use crate::engine::rng::Rng;
use crate::packet::Packet;
use crate::time::SimTime;

/// The answer to "give me the next packet to transmit".
#[derive(Debug, PartialEq, Eq)]
pub enum Dequeue {
    /// Send this packet next.
    Packet(Packet),
    /// Packets are held, but none may leave before this instant (a shaper or a rate
    /// ceiling): the port asks again then.
    NotBefore(SimTime),
    /// Nothing to send.
    Empty,
}

/// What a discipline's build needs to know about the interface it is attached to.
#[derive(Copy, Clone, Debug)]
pub struct Interface {
    /// The interface's QoS bandwidth (IOS `bandwidth`), bit/s: the base of percentages and
    /// reservations. For a child policy under a shaper, the shaping rate.
    pub bandwidth_bps: u64,
    /// Whether to run attachment-time checks such as CBWFQ's reservation limit (false when
    /// a named policy is only being validated on its own).
    pub admission: bool,
    /// Seed of the interface's random streams (its random early detection droppers), from
    /// the run's seed, the replication and the port's name.
    pub random_seed: u64,
    /// The link-layer header a Linux device holds in front of the IP packet on this link,
    /// bytes: 14 on Ethernet, none on others ([`linux_charge`]).
    pub device_header_bytes: u32,
    /// The layer-2 framing IOS's policers and shapers count on this link, bytes: 14 on
    /// Ethernet, 4 on HDLC and PPP ([`crate::net::l2::L2Framing::ios_header_bytes`]).
    pub ios_header_bytes: u32,
}

impl Interface {
    /// The dropper `spec` (found at `at`) asks for on the queue numbered `queue` of this
    /// interface's discipline, with a random stream of its own; `None` without a spec.
    pub fn dropper(&self, spec: Option<&RedSpec>, at: &str, queue: usize) -> Result<Option<Red>, Issue> {
        spec.map(|spec| {
            Red::build(
                spec,
                &join_path(at, "random_detect"),
                Rng::from_seed_words(self.random_seed, queue as u64),
            )
        })
        .transpose()
    }

    /// Builds a policy nested in another on this interface (whose bandwidth is what the
    /// parent gives the child: a shaping rate): the child's own text first, without the
    /// admission check; then, if this interface is attached, with it — a failure there is a
    /// problem of parent and child together, which `reframe` words.
    pub fn build_nested<T>(
        self,
        build: impl Fn(Interface) -> Result<T, Issue>,
        reframe: impl FnOnce(Issue) -> Issue,
    ) -> Result<T, Issue> {
        let own = build(Interface { admission: false, ..self })?;
        if !self.admission {
            return Ok(own);
        }
        build(self).map_err(reframe)
    }
}

/// What every discipline does.
pub trait Qdisc {
    /// Names of the discipline's classes (bands, queues), in index order, for results.
    fn class_names(&self) -> Vec<String>;
    /// Accepts `packet` or drops it, through `ctx`.
    fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx);
    /// The next packet to hand to the transmit ring.
    fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue;
    /// Packets held now.
    fn len_packets(&self) -> usize;
    /// The next packet of the discipline's strict-priority queue, if it has one and it
    /// holds a packet: what link fragmentation may send between two fragments of another
    /// packet ([`crate::net::lfi`]). Disciplines without such a queue never interleave.
    fn dequeue_interleaved(&mut self, _ctx: &mut QdiscCtx) -> Option<Packet> {
        None
    }
    /// Removes and returns every packet held, in no particular order. Used when the
    /// interface's discipline is replaced: the discipline is discarded afterwards, so its
    /// scheduling state need not stay consistent.
    fn take_packets(&mut self) -> Vec<Packet>;
}

/// What the registry needs of a discipline: its scenario name, its parameters, how it is
/// built from them, and whether it depends on the interface's bandwidth.
pub trait QdiscKind: Qdisc + Sized {
    /// The name users write after `kind:`; also the discipline's file and documentation page.
    const KIND: &'static str;
    /// Whether the built discipline depends on the interface's QoS bandwidth (percentages,
    /// reservations, class weights, link-sharing rates), so that a change of bandwidth must
    /// build it again.
    const DEPENDS_ON_BANDWIDTH: bool;
    /// The parameters as written in a scenario; their schema is the kind's JSON Schema.
    type Params: Clone + std::fmt::Debug + serde::de::DeserializeOwned + schemars::JsonSchema;

    /// Builds from `params` found at key path `at` for `interface`, checking what the types
    /// cannot; node names in match conditions resolve through `node_address`.
    fn build(
        params: &Self::Params,
        at: &str,
        interface: Interface,
        node_address: &dyn Fn(&str) -> Option<u32>,
    ) -> Result<Self, Issue>;
}

/// Declares the registry from one list of `module::Type` entries, each a [`QdiscKind`]:
/// [`PolicySpec`] (reading `kind: <name>` into the type's parameters with key paths kept,
/// and the JSON Schema), its `build` and `depends_on_bandwidth`, and [`AnyQdisc`] with its
/// `kind` and static dispatch.
macro_rules! registry {
    ($($(#[$doc:meta])* $module:ident :: $variant:ident,)+) => {
        kind_enum! {
            @named
            /// An interface output policy as written in a scenario.
            pub enum PolicySpec {
                $($(#[$doc])* [<$module::$variant as QdiscKind>::KIND]
                    => $variant(<$module::$variant as QdiscKind>::Params),)+
            }
        }

        impl PolicySpec {
            /// Whether the discipline built from this policy depends on the interface's QoS
            /// bandwidth, so that a change of bandwidth must build it again.
            pub fn depends_on_bandwidth(&self) -> bool {
                match self {
                    $(PolicySpec::$variant(_) => <$module::$variant as QdiscKind>::DEPENDS_ON_BANDWIDTH,)+
                }
            }

            /// Builds the discipline for `interface`; `at` is the key path for errors.
            pub fn build(
                &self,
                at: &str,
                interface: Interface,
                node_address: &dyn Fn(&str) -> Option<u32>,
            ) -> Result<AnyQdisc, Issue> {
                Ok(match self {
                    $(PolicySpec::$variant(p) => AnyQdisc::$variant(
                        <$module::$variant as QdiscKind>::build(p, at, interface, node_address)?,
                    ),)+
                })
            }
        }

        /// Any discipline, statically dispatched.
        #[derive(Clone, Debug)]
        pub enum AnyQdisc {
            $($(#[$doc])* $variant($module::$variant),)+
        }

        impl AnyQdisc {
            /// Whether a dequeue now would surely hand out nothing and change nothing: said
            /// of an empty FIFO, whose dequeue then touches no state, so that the port need
            /// not ask it. Other disciplines are always asked (some keep rounds or credit
            /// even when empty).
            #[inline(always)]
            pub fn surely_empty(&self) -> bool {
                matches!(self, AnyQdisc::Fifo(q) if q.is_empty())
            }

            /// Lets an arriving packet straight through an empty FIFO that would hand it out
            /// at once ([`fifo::Fifo::pass_through`]); false for any other discipline.
            #[inline(always)]
            pub fn pass_through(&mut self, packet: &Packet, ctx: &mut QdiscCtx) -> bool {
                match self {
                    AnyQdisc::Fifo(q) => q.pass_through(packet, ctx),
                    _ => false,
                }
            }

            /// [`Qdisc::enqueue`] through a call: every discipline but the inlined FIFO.
            #[inline(never)]
            fn enqueue_called(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
                match self {
                    $(AnyQdisc::$variant(q) => q.enqueue(packet, ctx),)+
                }
            }

            /// [`Qdisc::dequeue`] through a call: every discipline but the inlined FIFO.
            #[inline(never)]
            fn dequeue_called(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
                match self {
                    $(AnyQdisc::$variant(q) => q.dequeue(ctx),)+
                }
            }

            /// The scenario `kind` of the discipline.
            pub fn kind(&self) -> &'static str {
                match self {
                    $(AnyQdisc::$variant(_) => <$module::$variant as QdiscKind>::KIND,)+
                }
            }
        }

        impl Qdisc for AnyQdisc {
            fn class_names(&self) -> Vec<String> {
                match self {
                    $(AnyQdisc::$variant(q) => q.class_names(),)+
                }
            }
            // The FIFO, every interface's output queue unless configured otherwise and so
            // most of a run's hops, is inlined into the port; the others are called.
            #[inline(always)]
            fn enqueue(&mut self, packet: Packet, ctx: &mut QdiscCtx) {
                match self {
                    AnyQdisc::Fifo(q) => q.enqueue(packet, ctx),
                    other => other.enqueue_called(packet, ctx),
                }
            }
            #[inline(always)]
            fn dequeue(&mut self, ctx: &mut QdiscCtx) -> Dequeue {
                match self {
                    AnyQdisc::Fifo(q) => q.dequeue(ctx),
                    other => other.dequeue_called(ctx),
                }
            }
            fn len_packets(&self) -> usize {
                match self {
                    $(AnyQdisc::$variant(q) => q.len_packets(),)+
                }
            }
            fn take_packets(&mut self) -> Vec<Packet> {
                match self {
                    $(AnyQdisc::$variant(q) => q.take_packets(),)+
                }
            }
            #[inline]
            fn dequeue_interleaved(&mut self, ctx: &mut QdiscCtx) -> Option<Packet> {
                match self {
                    $(AnyQdisc::$variant(q) => q.dequeue_interleaved(ctx),)+
                }
            }
        }
    };
}

// The registry: one entry per discipline, in the order of the schema and of error messages.
registry! {
    /// First in, first out with tail drop.
    fifo::Fifo,
    /// Strict priority bands.
    prio::Prio,
    /// IOS custom queuing: byte-count round robin.
    custom::Custom,
    /// IOS flow-based weighted fair queuing.
    wfq::Wfq,
    /// IOS class-based WFQ with low-latency (priority) classes.
    cbwfq::Cbwfq,
    /// Deficit round robin.
    drr::Drr,
    /// Linux hierarchical token bucket.
    htb::Htb,
    /// Linux FQ-CoDel.
    fq_codel::FqCodel,
    /// Token-bucket shaper.
    tbf::Tbf,
    /// Cisco 12000 modified deficit round robin.
    mdrr::Mdrr,
    /// ALTQ class-based queuing with link sharing.
    cbq::Cbq,
}

/// An output hold queue given to a policy that sizes its own queues.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`hold_queue` sets the output queue of FIFO and WFQ; a `{kind}` policy sizes its own queues")]
pub struct HoldQueueError {
    /// The policy's `kind`.
    pub kind: &'static str,
}

impl PolicySpec {
    /// The default output policy of an interface: a 40-packet FIFO.
    pub fn default_output() -> Self {
        PolicySpec::Fifo(FifoParams { limit: None, random_detect: None })
    }

    /// The policy with the interface's output hold queue (IOS `hold-queue N out`) applied:
    /// the FIFO's limit, or the packets the whole WFQ system may hold. Other disciplines
    /// size their queues themselves, and IOS refuses the command with them.
    pub fn with_hold_queue(&self, packets: u32) -> Result<PolicySpec, HoldQueueError> {
        match self {
            PolicySpec::Fifo(p) => {
                Ok(PolicySpec::Fifo(FifoParams { limit: Some(QueueLimit::Packets(packets)), ..p.clone() }))
            }
            PolicySpec::Wfq(p) => Ok(PolicySpec::Wfq(WfqParams { hold_queue: Some(packets), ..p.clone() })),
            other => Err(HoldQueueError { kind: other.kind() }),
        }
    }
}

/// Helpers for disciplines' unit tests: packets and a context with its own counters.
#[cfg(test)]
pub mod testing {
    use super::Interface;
    pub use crate::measure::testing::{harness, Harness};
    pub use crate::packet::testing::packet;

    /// A 1 Mbit/s interface with admission checks and a fixed random seed.
    pub const INTERFACE: Interface = Interface {
        bandwidth_bps: 1_000_000,
        admission: true,
        random_seed: 1,
        device_header_bytes: 0,
        ios_header_bytes: 0,
    };
}
