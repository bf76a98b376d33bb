//! [`Model`] → Graphviz source and SVG, optionally one transition in red.
use crate::Model;

/// Graphviz source; `highlight` = (state, event) drawn in red.
pub fn to_dot(model: &Model, highlight: Option<(usize, usize)>) -> String {
    let _ = (model, highlight);
    unimplemented!("render")
}
