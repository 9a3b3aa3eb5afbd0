//! The reference interpreter: the meaning of Waddle IR.

mod host;

pub use host::Host;
