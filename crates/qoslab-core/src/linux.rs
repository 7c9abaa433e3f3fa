//! Linux traffic control: an interface's output policy as the `tc` commands that give a
//! Linux device the same discipline ([`tc_script`]), its classes chosen by u32 filters
//! ([`tc_filter`]).

pub mod tc_filter;
pub mod tc_script;
