//! [`Model`] → C in the kernel's dot2c (standalone) / dot2k (`--name`) form.
use crate::Model;

/// The C source for `model`; `name` gives dot2k-style suffixed identifiers.
pub fn generate(model: &Model, name: Option<&str>) -> String {
    let _ = (model, name);
    unimplemented!("dot2c")
}
