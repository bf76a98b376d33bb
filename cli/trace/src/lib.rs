//! vigil's offline checker: ftrace text (`trace_pipe`, `trace-cmd report`)
//! against a model and its binding, streaming in constant memory.
//!
//! * [`line`]: the common header of an event line, lost-events markers
//! * [`format`]: each catalogue tracepoint's text (`key=value`, and the
//!   trace-cmd sched plugin's forms), field extraction
//! * [`engine`]: compiled rules and the automata per instance (shared with
//!   `vigil collect --check`)
//! * [`check`]: the [`Checker`]: trace lines → fields → the engine
//! * [`conform`]: the conformance corpus (tests/conformance): cases, the
//!   reference driver, the numeric form the C engines read
//! * [`report`]: violations and the summary, as text or JSON Lines
//! * [`fxhash`]: the fast integer hasher of the instance map

pub mod check;
pub mod conform;
pub mod engine;
pub mod format;
pub mod fxhash;
pub mod line;
pub mod report;

pub use check::{Checker, Config};
pub use report::Summary;
