//! Integration tests of qoslab-core: one test binary, modules by topic.

mod common;
mod example;
