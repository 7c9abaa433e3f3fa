//! Traffic conditioning: meters (and, with them, policers and markers).

pub mod token_bucket;

pub use token_bucket::TokenBucket;
