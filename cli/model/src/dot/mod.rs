//! The kernel's Graphviz `.dot` automaton conventions → [`Model`].
//!
//! A tokenizer and a recursive-descent parser for the DOT language subset
//! automaton models use (<https://graphviz.org/doc/info/lang.html>: graph,
//! node, edge and attribute statements, anonymous and named subgraphs,
//! quoted / unquoted / numeral / HTML IDs, `+` string concatenation, the
//! three comment forms), then the kernel's reading of the graph
//! (`tools/verification/rvgen`, Documentation/trace/rv/deterministic_automata.rst):
//!
//! * the initial state X is marked by the node `__init_X` and its edge
//!   `"__init_X" -> "X"`;
//! * a state is final (marked) when any of its node statements gives it
//!   `shape = doublecircle` or `shape = ellipse` (directly or through a
//!   `node [...]` default of its scope); when none is, the initial state is;
//! * an edge label holds one or more events separated by a literal `\n`;
//!   each is `event[;guard][;reset(clk)]` (hybrid automata);
//! * a state label `name\ninvariant` carries a hybrid state invariant;
//! * graph attributes (`center`, `size`, `rankdir`, `rank`...) mean nothing.
//!
//! The order is the kernel dot2c's: the initial state, then the other states
//! sorted; events sorted.  Anything dot2c could not turn into valid C, or
//! that is not a deterministic automaton, is refused with the line it is on.
//!
//! One submodule per pass: `lex` (text → tokens), `parse` (tokens → node
//! and edge statements with their effective attributes) and `build`
//! (statements → the [`Model`], with the kernel's checks).

use std::path::Path;

use crate::{Diagnostic, Model};

mod build;
mod lex;
mod parse;
#[cfg(test)]
mod tests;

/// Name prefix of the invisible node that marks the initial state.
pub const INIT_MARKER: &str = "__init_";

/// Read and parse a `.dot` model.
pub fn parse_file(path: &Path) -> Result<Model, Diagnostic> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::new(path, 0, format!("cannot read model: {e}")))?;
    parse(path, &text)
}

/// Parse `.dot` text; `path` names the model (its file stem) and locates
/// messages.
pub fn parse(path: &Path, text: &str) -> Result<Model, Diagnostic> {
    let tokens = lex::tokenize(path, text)?;
    let graph = parse::Parser::new(path, tokens).graph()?;
    build::build(path, &graph)
}

/// True for a valid C identifier (`[A-Za-z_][A-Za-z0-9_]*`, not a keyword).
pub fn is_c_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_') && !C_KEYWORDS.contains(&s)
}

/// C11 and C23 keywords (and the `bool`/`true`/`false` of stdbool.h, which
/// the generated code uses).
const C_KEYWORDS: &[&str] = &[
    "_Alignas",
    "_Alignof",
    "_Atomic",
    "_BitInt",
    "_Bool",
    "_Complex",
    "_Decimal128",
    "_Decimal32",
    "_Decimal64",
    "_Generic",
    "_Imaginary",
    "_Noreturn",
    "_Static_assert",
    "_Thread_local",
    "alignas",
    "alignof",
    "auto",
    "bool",
    "break",
    "case",
    "char",
    "const",
    "constexpr",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "false",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "nullptr",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "static_assert",
    "struct",
    "switch",
    "thread_local",
    "true",
    "typedef",
    "typeof",
    "typeof_unqual",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
];

/// Identifiers the generated C defines itself (standalone dot2c form).
const RESERVED: &[&str] = &["state_max", "event_max", "INVALID_STATE", "aut"];
