//! Linux traffic control: an interface's output policy as the `tc` commands that give a
//! Linux device the same discipline ([`tc_script`]), its classes chosen by u32 filters
//! ([`tc_filter`]); and back, a device's policy as `tc` shows it read into a scenario's
//! ([`tc_show`], [`tc_import`], [`u32_match`]).

pub mod tc_filter;
pub mod tc_import;
pub mod tc_script;
pub mod tc_show;
pub mod u32_match;
