//! vigil's collector (`vigil collect`): receives event streams
//! (docs/stream-format.md) from any number of producers, stores every
//! event once, acknowledges what is durable, checks automaton models on
//! the events as they arrive, and exports what it stored
//! (docs/collector.md).
//!
//! * [`server`]: listeners, one thread per connection, shutdown
//! * [`conn`]: one connection's protocol (order, validation, refusal)
//! * [`ingest`]: the store thread: dedup, group commit, acknowledgements
//! * [`commit`]: the committer thread: segment, then catalog, durably
//! * [`compact`]: merging small segments (online and `--compact`)
//! * [`segment`], [`catalog`]: the store (Parquet segments, SQLite catalog)
//! * [`check`], [`route`], [`report`]: `--check`
//! * [`summary`]: per producer, what is stored and what is known lost
//! * [`export`]: Chrome trace / Perfetto JSON
//! * [`read`]: reading segments back
//! * [`nats`]: scale-out through NATS JetStream (publishing, group members)

pub mod acks;
pub mod addr;
pub mod catalog;
pub mod check;
pub mod commit;
pub mod compact;
pub mod conn;
pub mod error;
pub mod export;
pub mod ingest;
pub mod nats;
pub mod ranges;
pub mod read;
pub mod report;
pub mod route;
pub mod segment;
pub mod server;
pub mod streams;
pub mod summary;

pub use error::{Error, Result};
