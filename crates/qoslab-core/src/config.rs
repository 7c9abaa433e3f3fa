//! The scenario format's building blocks, below every model: the YAML reader with positions,
//! errors that name their place (file, line, column, key path) and a fix, key paths,
//! `kind`-tagged values, scalars with units, one-or-many lists, "did you mean" suggestions,
//! and the guarded opening of files a user names. Models parse their own parameters with
//! these; none of them knows what a scenario is.

pub mod error;
pub mod key_path;
pub mod one_or_many;
pub mod scalar;
pub mod suggest;
pub mod tagged;
pub mod user_file;
pub mod yaml;
pub mod yaml_write;
