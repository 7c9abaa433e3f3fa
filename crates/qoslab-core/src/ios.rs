//! Cisco IOS configuration import: paste a router's configuration, get qoslab's interface
//! settings.
//!
//! [`parse()`] reads the text into access lists, class maps, policy maps, priority and queue
//! lists and interfaces, collecting a warning for every line it does not model and an error
//! for every line that would change QoS meaning but cannot be read. [`interface_settings`]
//! resolves one interface the way IOS would — which queuing it runs, its QoS bandwidth, its
//! input policy and fragmentation — into the same policy objects a scenario writes in
//! YAML, so an imported policy and its YAML twin build the same discipline. [`resolve`]
//! builds those as a run does and places what the build refuses at its IOS line and
//! column; [`check()`] does that for every interface. The reverse, a scenario interface
//! written as IOS text, is `export` (reached through `qoslab_core::ios_from_yaml`).

pub(crate) mod acl;
pub(crate) mod check;
pub(crate) mod config;
pub(crate) mod explain;
pub(crate) mod export;
pub(crate) mod flavour;
pub(crate) mod keywords;
pub(crate) mod lines;
pub(crate) mod migrate;
pub(crate) mod parse;
pub(crate) mod source;
pub(crate) mod translate;

pub use crate::qdisc::cbwfq::Scheduler;
pub use check::{check, resolve, Resolved};
pub use config::{Diagnostic, IosConfig, Severity};
pub use explain::{explain, to_yaml};
pub use flavour::{flavour, Flavour};
pub use migrate::{migrate, Migration};
pub use parse::parse;
pub use source::{read_config, MAX_CONFIG_BYTES};
pub use translate::{interface_settings, InterfaceSettings};
