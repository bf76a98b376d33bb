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

use std::collections::BTreeMap;
use std::path::Path;

use crate::{Diagnostic, EdgeAnnotation, Invariant, Model};

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
    let tokens = tokenize(path, text)?;
    let graph = Parser::new(path, tokens).graph()?;
    build(path, &graph)
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

// ---------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    /// An ID: unquoted name, numeral, or quoted string (escapes resolved).
    Id {
        text: String,
        quoted: bool,
    },
    /// An HTML string `<...>` (without the outer angle brackets).
    Html(String),
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Semi,
    Comma,
    Eq,
    Colon,
    Plus,
    /// `->`
    Arrow,
    /// `--`
    Undirected,
    Eof,
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: u32,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Id { text, quoted: true } => format!("\"{text}\""),
            Tok::Id {
                text,
                quoted: false,
            } => format!("`{text}`"),
            Tok::Html(_) => "an HTML string".into(),
            Tok::LBrace => "`{`".into(),
            Tok::RBrace => "`}`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Semi => "`;`".into(),
            Tok::Comma => "`,`".into(),
            Tok::Eq => "`=`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Plus => "`+`".into(),
            Tok::Arrow => "`->`".into(),
            Tok::Undirected => "`--`".into(),
            Tok::Eof => "the end of the file".into(),
        }
    }

    /// An unquoted ID equal (case-insensitively, as in Graphviz) to `kw`.
    fn is_keyword(&self, kw: &str) -> bool {
        matches!(self, Tok::Id { text, quoted: false } if text.eq_ignore_ascii_case(kw))
    }
}

fn is_id_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || !c.is_ascii()
}

fn is_id_char(c: char) -> bool {
    is_id_start(c) || c.is_ascii_digit()
}

/// Split `text` into tokens, dropping whitespace and comments (`// ...`,
/// `/* ... */`, and lines starting with `#`, which Graphviz treats as C
/// preprocessor output).
fn tokenize(path: &Path, text: &str) -> Result<Vec<Token>, Diagnostic> {
    let chars: Vec<char> = text.chars().collect();
    let n = chars.len();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line: u32 = 1;
    // Only whitespace seen since the start of the current line.
    let mut line_start = true;
    let err = |line: u32, msg: String| Err(Diagnostic::new(path, line, msg));

    while i < n {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            line_start = true;
            i += 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '#' && line_start {
            while i < n && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        line_start = false;
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < n && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && next == Some('*') {
            let start = line;
            i += 2;
            loop {
                if i >= n {
                    return err(
                        start,
                        "syntax error: unterminated comment: the `/*` opened here is never closed"
                            .into(),
                    );
                }
                if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    i += 2;
                    break;
                }
                if chars[i] == '\n' {
                    line += 1;
                }
                i += 1;
            }
            continue;
        }
        let tok_line = line;
        let tok = match c {
            '"' => {
                // Graphviz's scanner: `\"` is a quote, backslash-newline a
                // line continuation; every other backslash stays as written
                // (so `\n` in a label is the two characters `\` `n`).
                let mut s = String::new();
                i += 1;
                loop {
                    if i >= n {
                        return err(tok_line, "syntax error: unterminated string: the `\"` opened here is never closed".into());
                    }
                    match chars[i] {
                        '"' => {
                            i += 1;
                            break;
                        }
                        '\\' if chars.get(i + 1) == Some(&'"') => {
                            s.push('"');
                            i += 2;
                        }
                        '\\' if chars.get(i + 1) == Some(&'\n') => {
                            line += 1;
                            i += 2;
                        }
                        '\\' if chars.get(i + 1) == Some(&'\r')
                            && chars.get(i + 2) == Some(&'\n') =>
                        {
                            line += 1;
                            i += 3;
                        }
                        ch => {
                            if ch == '\n' {
                                line += 1;
                            }
                            s.push(ch);
                            i += 1;
                        }
                    }
                }
                Tok::Id {
                    text: s,
                    quoted: true,
                }
            }
            '<' => {
                let mut depth = 0usize;
                let mut s = String::new();
                loop {
                    if i >= n {
                        return err(tok_line, "syntax error: unterminated HTML string: the `<` opened here is never closed".into());
                    }
                    let ch = chars[i];
                    i += 1;
                    match ch {
                        '<' => {
                            depth += 1;
                            if depth > 1 {
                                s.push(ch);
                            }
                        }
                        '>' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                            s.push(ch);
                        }
                        _ => {
                            if ch == '\n' {
                                line += 1;
                            }
                            s.push(ch);
                        }
                    }
                }
                Tok::Html(s)
            }
            '-' if next == Some('>') => {
                i += 2;
                Tok::Arrow
            }
            '-' if next == Some('-') => {
                i += 2;
                Tok::Undirected
            }
            '-' | '.' | '0'..='9' => {
                // Numeral: -?(.[0-9]+ | [0-9]+(.[0-9]*)?)
                let start = i;
                if c == '-' {
                    i += 1;
                }
                let mut digits = 0;
                while i < n && chars[i].is_ascii_digit() {
                    i += 1;
                    digits += 1;
                }
                if i < n && chars[i] == '.' {
                    i += 1;
                    while i < n && chars[i].is_ascii_digit() {
                        i += 1;
                        digits += 1;
                    }
                }
                let word: String = chars[start..i].iter().collect();
                if digits == 0 {
                    return err(tok_line, format!("syntax error: unexpected `{word}`"));
                }
                if i < n && is_id_start(chars[i]) {
                    let mut j = i;
                    while j < n && is_id_char(chars[j]) {
                        j += 1;
                    }
                    let whole: String = chars[start..j].iter().collect();
                    return err(tok_line, format!("syntax error: `{whole}` is not an ID (an unquoted ID cannot start with a digit; quote it)"));
                }
                Tok::Id {
                    text: word,
                    quoted: false,
                }
            }
            c if is_id_start(c) => {
                let start = i;
                while i < n && is_id_char(chars[i]) {
                    i += 1;
                }
                Tok::Id {
                    text: chars[start..i].iter().collect(),
                    quoted: false,
                }
            }
            _ => {
                i += 1;
                match c {
                    '{' => Tok::LBrace,
                    '}' => Tok::RBrace,
                    '[' => Tok::LBracket,
                    ']' => Tok::RBracket,
                    ';' => Tok::Semi,
                    ',' => Tok::Comma,
                    '=' => Tok::Eq,
                    ':' => Tok::Colon,
                    '+' => Tok::Plus,
                    _ => {
                        return err(
                            tok_line,
                            format!("syntax error: unexpected character `{c}`"),
                        )
                    }
                }
            }
        };
        out.push(Token {
            tok,
            line: tok_line,
        });
    }
    out.push(Token {
        tok: Tok::Eof,
        line,
    });
    Ok(out)
}

// ---------------------------------------------------------------------------
// Parser: DOT statements → node and edge statements with effective attributes
// ---------------------------------------------------------------------------

/// An attribute value and the line it starts on.
#[derive(Debug, Clone)]
struct Value {
    text: String,
    html: bool,
    line: u32,
}

type Attrs = BTreeMap<String, Value>;

#[derive(Debug)]
struct NodeStmt {
    name: String,
    line: u32,
    /// Explicit attributes over the `node [...]` defaults of its scope.
    attrs: Attrs,
}

#[derive(Debug)]
struct EdgeStmt {
    from: String,
    from_line: u32,
    to: String,
    to_line: u32,
    /// Explicit attributes over the `edge [...]` defaults of its scope.
    attrs: Attrs,
}

#[derive(Debug)]
struct Graph {
    /// Line of the `digraph` keyword, for messages about the whole model.
    line: u32,
    nodes: Vec<NodeStmt>,
    edges: Vec<EdgeStmt>,
}

#[derive(Clone, Default)]
struct Scope {
    node: Attrs,
    edge: Attrs,
}

struct Parser<'a> {
    path: &'a Path,
    toks: Vec<Token>,
    pos: usize,
    scopes: Vec<Scope>,
    nodes: Vec<NodeStmt>,
    edges: Vec<EdgeStmt>,
    /// Lines of the last `{` ... `}` pair closed, for the message about a
    /// brace never closed (often an inner one whose `}` is missing).
    last_closed: Option<(u32, u32)>,
}

type PResult<T> = Result<T, Diagnostic>;

impl<'a> Parser<'a> {
    fn new(path: &'a Path, toks: Vec<Token>) -> Self {
        Parser {
            path,
            toks,
            pos: 0,
            scopes: vec![Scope::default()],
            nodes: Vec::new(),
            edges: Vec::new(),
            last_closed: None,
        }
    }

    fn peek(&self) -> &Token {
        &self.toks[self.pos]
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].tok
    }

    fn bump(&mut self) -> Token {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn error<T>(&self, line: u32, msg: impl Into<String>) -> PResult<T> {
        Err(Diagnostic::new(self.path, line, msg))
    }

    fn unexpected<T>(&self, expected: &str) -> PResult<T> {
        let t = self.peek();
        self.error(
            t.line,
            format!(
                "syntax error: expected {expected}, found {}",
                t.tok.describe()
            ),
        )
    }

    /// `[strict] digraph [ID] { stmt_list }` and nothing after it.
    fn graph(mut self) -> PResult<Graph> {
        if self.peek().tok == Tok::Eof {
            return self.error(
                self.peek().line,
                "not a digraph: the file is empty (a model is `digraph NAME { ... }`)",
            );
        }
        if self.peek().tok.is_keyword("strict") {
            self.bump();
        }
        let kw = self.peek().clone();
        if kw.tok.is_keyword("graph") {
            return self.error(
                kw.line,
                "not a digraph: `graph` is undirected; an automaton is `digraph NAME { ... }`",
            );
        }
        if !kw.tok.is_keyword("digraph") {
            return self.error(
                kw.line,
                format!(
                    "not a digraph: expected `digraph NAME {{`, found {}",
                    kw.tok.describe()
                ),
            );
        }
        self.bump();
        if matches!(self.peek().tok, Tok::Id { .. }) {
            self.bump();
        }
        let open = self.peek().clone();
        if open.tok != Tok::LBrace {
            return self.unexpected("`{` after `digraph NAME`");
        }
        self.bump();
        self.stmt_list(open.line)?;
        self.bump(); // the closing brace
        let t = self.peek();
        if t.tok != Tok::Eof {
            let msg = if t.tok == Tok::RBrace {
                "unbalanced braces: this `}` closes nothing (the digraph ended before it)"
                    .to_string()
            } else {
                format!(
                    "syntax error: {} after the end of the digraph",
                    t.tok.describe()
                )
            };
            return self.error(t.line, msg);
        }
        Ok(Graph {
            line: kw.line,
            nodes: self.nodes,
            edges: self.edges,
        })
    }

    /// Statements up to (not including) the `}` that closes the brace opened
    /// on `open_line`.
    fn stmt_list(&mut self, open_line: u32) -> PResult<()> {
        loop {
            match self.peek().tok {
                Tok::RBrace => return Ok(()),
                Tok::Eof => {
                    let mut msg =
                        "unbalanced braces: the `{` opened here is never closed".to_string();
                    if let Some((open, close)) = self.last_closed {
                        msg.push_str(&format!(
                            " (the last `}}`, line {close}, closed the `{{` of line {open}: \
                             is a `}}` missing after line {open}?)"
                        ));
                    }
                    return self.error(open_line, msg);
                }
                Tok::Semi => {
                    self.bump();
                }
                _ => {
                    self.stmt()?;
                    if self.peek().tok == Tok::Semi {
                        self.bump();
                    }
                }
            }
        }
    }

    fn stmt(&mut self) -> PResult<()> {
        let t = self.peek().clone();
        if t.tok.is_keyword("graph") {
            self.bump();
            self.attr_list()?; // graph attributes mean nothing
            return Ok(());
        }
        if t.tok.is_keyword("node") || t.tok.is_keyword("edge") {
            self.bump();
            let attrs = self.attr_list()?;
            let scope = self.scopes.last_mut().expect("scope");
            let target = if t.tok.is_keyword("node") {
                &mut scope.node
            } else {
                &mut scope.edge
            };
            target.extend(attrs);
            return Ok(());
        }
        if t.tok.is_keyword("subgraph") || t.tok == Tok::LBrace {
            self.subgraph()?;
            if matches!(self.peek().tok, Tok::Arrow | Tok::Undirected) {
                return self.error(
                    self.peek().line,
                    "unsupported: a subgraph as an edge end; write one edge per pair of states",
                );
            }
            return Ok(());
        }
        if t.tok.is_keyword("digraph") || t.tok.is_keyword("strict") {
            return self.error(
                t.line,
                format!(
                    "syntax error: unexpected {} inside the digraph",
                    t.tok.describe()
                ),
            );
        }
        match &t.tok {
            Tok::Id { .. } | Tok::Html(_) => {}
            Tok::RBracket | Tok::Eq | Tok::Comma | Tok::Colon | Tok::Plus | Tok::LBracket => {
                return self.unexpected("a statement");
            }
            Tok::Arrow | Tok::Undirected => {
                return self.error(
                    t.line,
                    format!(
                        "syntax error: missing source state before {}",
                        t.tok.describe()
                    ),
                );
            }
            _ => return self.unexpected("a statement"),
        }
        // `ID = ID`: a graph attribute (center = true, rankdir = LR, rank = min).
        if *self.peek_at(1) == Tok::Eq {
            self.bump();
            self.bump();
            self.value("a value after `=`")?;
            return Ok(());
        }
        let (first, first_line) = self.node_id()?;
        if matches!(self.peek().tok, Tok::Arrow | Tok::Undirected) {
            return self.edge_stmt(first, first_line);
        }
        let explicit = self.attr_list()?;
        let mut attrs = self.scopes.last().expect("scope").node.clone();
        attrs.extend(explicit);
        self.nodes.push(NodeStmt {
            name: first,
            line: first_line,
            attrs,
        });
        Ok(())
    }

    fn node_id(&mut self) -> PResult<(String, u32)> {
        let t = self.peek().clone();
        let name = match &t.tok {
            Tok::Id { .. } => self.value("a node")?.text,
            Tok::Html(_) => {
                return self.error(t.line, "unsupported: an HTML string as a node name")
            }
            _ => return self.unexpected("a node"),
        };
        if self.peek().tok == Tok::Colon {
            return self.error(
                self.peek().line,
                format!("unsupported: node ports (`{name}:...`) in an automaton model"),
            );
        }
        Ok((name, t.line))
    }

    fn edge_stmt(&mut self, first: String, first_line: u32) -> PResult<()> {
        let mut ends = vec![(first, first_line)];
        while matches!(self.peek().tok, Tok::Arrow | Tok::Undirected) {
            let op = self.bump();
            if op.tok == Tok::Undirected {
                return self.error(
                    op.line,
                    "syntax error: `--` is an undirected edge; a digraph's edges are `->`",
                );
            }
            match self.peek().tok {
                Tok::Id { .. } => ends.push(self.node_id()?),
                Tok::LBrace => {
                    return self.error(
                        self.peek().line,
                        "unsupported: a subgraph as an edge end; write one edge per pair of states",
                    )
                }
                _ => {
                    let t = self.peek();
                    return self.error(
                        op.line,
                        format!(
                            "syntax error: missing target state after `->` (found {})",
                            t.tok.describe()
                        ),
                    );
                }
            }
        }
        let explicit = self.attr_list()?;
        let mut attrs = self.scopes.last().expect("scope").edge.clone();
        attrs.extend(explicit);
        for pair in ends.windows(2) {
            self.edges.push(EdgeStmt {
                from: pair[0].0.clone(),
                from_line: pair[0].1,
                to: pair[1].0.clone(),
                to_line: pair[1].1,
                attrs: attrs.clone(),
            });
        }
        Ok(())
    }

    /// `[subgraph [ID]] { stmt_list }`, with its own scope of defaults.
    fn subgraph(&mut self) -> PResult<()> {
        if self.peek().tok.is_keyword("subgraph") {
            self.bump();
            if matches!(self.peek().tok, Tok::Id { .. }) {
                self.bump();
            }
        }
        let open = self.peek().clone();
        if open.tok != Tok::LBrace {
            return self.unexpected("`{` to open the subgraph");
        }
        self.bump();
        let inner = self.scopes.last().expect("scope").clone();
        self.scopes.push(inner);
        self.stmt_list(open.line)?;
        let close = self.bump();
        self.last_closed = Some((open.line, close.line));
        self.scopes.pop();
        Ok(())
    }

    /// `( [ a_list ] )*`, where a_list is `ID = ID` separated by `,` or `;`.
    fn attr_list(&mut self) -> PResult<Attrs> {
        let mut attrs = Attrs::new();
        while self.peek().tok == Tok::LBracket {
            let open = self.bump();
            loop {
                match &self.peek().tok {
                    Tok::RBracket => {
                        self.bump();
                        break;
                    }
                    Tok::Comma | Tok::Semi => {
                        self.bump();
                    }
                    Tok::Eof => {
                        return self.error(
                            open.line,
                            "syntax error: unterminated attribute list: the `[` opened here is never closed",
                        )
                    }
                    Tok::Id { .. } => {
                        let key = self.bump();
                        let Tok::Id { text: key, .. } = key.tok else {
                            unreachable!()
                        };
                        if self.peek().tok != Tok::Eq {
                            return self.unexpected(&format!("`=` after attribute `{key}`"));
                        }
                        self.bump();
                        let v = self.value(&format!("a value for attribute `{key}`"))?;
                        attrs.insert(key, v);
                    }
                    _ => return self.unexpected("an attribute name or `]`"),
                }
            }
        }
        Ok(attrs)
    }

    /// An ID used as a value: quoted strings may be joined with `+`.
    fn value(&mut self, what: &str) -> PResult<Value> {
        let t = self.peek().clone();
        match t.tok {
            Tok::Id { mut text, quoted } => {
                self.bump();
                if quoted {
                    while self.peek().tok == Tok::Plus {
                        self.bump();
                        match self.peek().tok.clone() {
                            Tok::Id {
                                text: more,
                                quoted: true,
                            } => {
                                self.bump();
                                text.push_str(&more);
                            }
                            _ => return self.unexpected("a quoted string after `+`"),
                        }
                    }
                }
                Ok(Value {
                    text,
                    html: false,
                    line: t.line,
                })
            }
            Tok::Html(text) => {
                self.bump();
                Ok(Value {
                    text,
                    html: true,
                    line: t.line,
                })
            }
            _ => self.unexpected(what),
        }
    }
}

// ---------------------------------------------------------------------------
// The graph → the automaton
// ---------------------------------------------------------------------------

struct StateInfo {
    line: u32,
    marked: bool,
}

/// One event of one edge label.
struct Transition {
    from: String,
    to: String,
    event: String,
    guard: Option<String>,
    resets: Vec<String>,
    line: u32,
}

fn is_marked_shape(attrs: &Attrs) -> bool {
    attrs.get("shape").is_some_and(|v| {
        v.text.eq_ignore_ascii_case("doublecircle") || v.text.eq_ignore_ascii_case("ellipse")
    })
}

/// `reset(NAME)` (spaces allowed) → `Some(Ok(NAME))`; a malformed reset →
/// `Some(Err(..))`; anything else (a guard) → `None`.
fn parse_reset(part: &str) -> Option<Result<String, String>> {
    let rest = part.strip_prefix("reset")?.trim_start();
    let inner = rest.strip_prefix('(')?;
    let Some(inner) = inner.trim_end().strip_suffix(')') else {
        return Some(Err(format!(
            "malformed clock reset `{part}`: expected `reset(CLOCK)`"
        )));
    };
    let clock = inner.trim();
    if is_c_identifier(clock) {
        Some(Ok(clock.to_string()))
    } else {
        Some(Err(format!(
            "malformed clock reset `{part}`: `{clock}` is not a valid C identifier"
        )))
    }
}

fn show_label(label: &str) -> String {
    format!("\"{label}\"")
}

fn build(path: &Path, g: &Graph) -> Result<Model, Diagnostic> {
    let diag = |line: u32, msg: String| Diagnostic::new(path, line, msg);

    // --- the initial-state marker ------------------------------------------
    // Each `__init_` name with the line of its first mention, in file order.
    let mut markers: Vec<(&str, u32)> = Vec::new();
    let mentions = g.nodes.iter().map(|n| (n.name.as_str(), n.line)).chain(
        g.edges
            .iter()
            .flat_map(|e| [(e.from.as_str(), e.from_line), (e.to.as_str(), e.to_line)]),
    );
    for (name, line) in mentions {
        if !name.starts_with(INIT_MARKER) {
            continue;
        }
        match markers.iter_mut().find(|(m, _)| *m == name) {
            Some(seen) => seen.1 = seen.1.min(line),
            None => markers.push((name, line)),
        }
    }
    markers.sort_by_key(|(_, line)| *line);
    let (marker, marker_line) = match markers.as_slice() {
        [] => {
            return Err(diag(
                g.line,
                "no initial state: mark it with an invisible node `__init_X` and an edge \
                 `\"__init_X\" -> \"X\"` (X: the initial state)"
                    .into(),
            ))
        }
        [one] => *one,
        [(a, la), (b, lb), ..] => {
            return Err(diag(
                *lb,
                format!(
                    "two initial states: `{a}` (line {la}) and `{b}` (line {lb}); \
                     an automaton has exactly one `__init_` marker"
                ),
            ))
        }
    };
    let initial = &marker[INIT_MARKER.len()..];
    if initial.is_empty() {
        return Err(diag(
            marker_line,
            format!("`{marker}` names no initial state: write `__init_X` for initial state X"),
        ));
    }

    // --- states: every node statement declares one ------------------------
    let mut states: BTreeMap<&str, StateInfo> = BTreeMap::new();
    for n in &g.nodes {
        if n.name.starts_with(INIT_MARKER) {
            continue;
        }
        let info = states.entry(&n.name).or_insert(StateInfo {
            line: n.line,
            marked: false,
        });
        info.marked |= is_marked_shape(&n.attrs);
    }
    for (name, info) in &states {
        if !is_c_identifier(name) {
            return Err(diag(
                info.line,
                format!("state name `{name}` is not a valid C identifier (dot2c emits it as a C enumerator)"),
            ));
        }
        if RESERVED.contains(name) {
            return Err(diag(
                info.line,
                format!("state name `{name}` is reserved: the generated C defines it"),
            ));
        }
    }
    if !states.contains_key(initial) {
        return Err(diag(
            marker_line,
            format!(
                "initial state `{initial}` (marked by `{marker}`) is not declared: \
                 add a node statement such as `{{node [shape = doublecircle] \"{initial}\"}};`"
            ),
        ));
    }

    // --- edges → transitions ----------------------------------------------
    let mut transitions: Vec<Transition> = Vec::new();
    for e in &g.edges {
        let label = e.attrs.get("label");
        if e.to.starts_with(INIT_MARKER) {
            return Err(diag(
                e.to_line,
                format!(
                    "edge into the initial marker `{}`: it only points to the initial state",
                    e.to
                ),
            ));
        }
        if e.from.starts_with(INIT_MARKER) {
            if e.to != initial {
                return Err(diag(
                    e.to_line,
                    format!(
                        "the initial marker `{}` points to `{}`; it must point to `{initial}`",
                        e.from, e.to
                    ),
                ));
            }
            if let Some(l) = label.filter(|l| !l.text.is_empty()) {
                return Err(diag(
                    l.line,
                    format!(
                        "the initial marker's edge carries no events (label {})",
                        show_label(&l.text)
                    ),
                ));
            }
            continue;
        }
        for (end, line, dir) in [(&e.from, e.from_line, "from"), (&e.to, e.to_line, "to")] {
            if !states.contains_key(end.as_str()) {
                return Err(diag(
                    line,
                    format!(
                        "edge {dir} undeclared state `{end}`: declare every state with a node \
                         statement, e.g. `{{node [shape = circle] \"{end}\"}};`"
                    ),
                ));
            }
        }
        let Some(label) = label else {
            return Err(diag(
                e.from_line,
                format!(
                    "edge `{}` -> `{}` has no label: every transition needs at least one event \
                     (`[ label = \"event\" ]`)",
                    e.from, e.to
                ),
            ));
        };
        if label.html {
            return Err(diag(
                label.line,
                "unsupported: an HTML label on a transition; write the events as a quoted string"
                    .into(),
            ));
        }
        for item in label.text.split("\\n") {
            let mut parts = item.split(';');
            let event = parts.next().unwrap_or("").trim();
            if event.is_empty() {
                return Err(diag(
                    label.line,
                    format!(
                        "empty event name in label {} of edge `{}` -> `{}`",
                        show_label(&label.text),
                        e.from,
                        e.to
                    ),
                ));
            }
            if !is_c_identifier(event) {
                return Err(diag(
                    label.line,
                    format!("event name `{event}` is not a valid C identifier (dot2c emits it as a C enumerator)"),
                ));
            }
            if RESERVED.contains(&event) {
                return Err(diag(
                    label.line,
                    format!("event name `{event}` is reserved: the generated C defines it"),
                ));
            }
            let mut guard: Option<String> = None;
            let mut resets = Vec::new();
            for part in parts {
                let part = part.trim();
                if part.is_empty() {
                    return Err(diag(
                        label.line,
                        format!(
                            "empty constraint after `;` in event `{event}` of label {}",
                            show_label(&label.text)
                        ),
                    ));
                }
                match parse_reset(part) {
                    Some(Ok(clock)) => resets.push(clock),
                    Some(Err(msg)) => return Err(diag(label.line, msg)),
                    None => {
                        if let Some(first) = &guard {
                            return Err(diag(
                                label.line,
                                format!(
                                    "two guards (`{first}` and `{part}`) on event `{event}`: \
                                     combine them into one with && or ||"
                                ),
                            ));
                        }
                        guard = Some(part.to_string());
                    }
                }
            }
            transitions.push(Transition {
                from: e.from.clone(),
                to: e.to.clone(),
                event: event.to_string(),
                guard,
                resets,
                line: label.line,
            });
        }
    }

    // --- canonical order ---------------------------------------------------
    let mut state_names: Vec<String> = vec![initial.to_string()];
    state_names.extend(
        states
            .keys()
            .filter(|s| **s != initial)
            .map(|s| s.to_string()),
    );
    let mut event_first: BTreeMap<&str, u32> = BTreeMap::new();
    for t in &transitions {
        event_first.entry(&t.event).or_insert(t.line);
    }
    if event_first.is_empty() {
        return Err(diag(
            g.line,
            "the automaton has no events: no edge between states carries a label".into(),
        ));
    }
    let event_names: Vec<String> = event_first.keys().map(|s| s.to_string()).collect();
    for ev in &event_names {
        if let Some(info) = states.get(ev.as_str()) {
            return Err(diag(
                event_first[ev.as_str()],
                format!(
                    "`{ev}` is both a state (line {}) and an event: dot2c would emit the C \
                     enumerator twice; rename one",
                    info.line
                ),
            ));
        }
    }
    let state_ix = |s: &str| state_names.iter().position(|x| x == s).expect("state");
    let event_ix = |e: &str| event_names.iter().position(|x| x == e).expect("event");

    // --- the transition function, checking determinism ----------------------
    let ns = state_names.len();
    let ne = event_names.len();
    let mut function: Vec<Vec<Option<usize>>> = vec![vec![None; ne]; ns];
    let mut cell_line: Vec<Vec<u32>> = vec![vec![0; ne]; ns];
    let mut annotations = Vec::new();
    for t in &transitions {
        let (s, ev, to) = (state_ix(&t.from), event_ix(&t.event), state_ix(&t.to));
        match function[s][ev] {
            Some(prev) if prev != to => {
                return Err(diag(
                    t.line,
                    format!(
                        "nondeterministic: event `{}` leads from state `{}` to `{}` (line {}) \
                         and to `{}` (line {})",
                        t.event, t.from, state_names[prev], cell_line[s][ev], t.to, t.line
                    ),
                ));
            }
            Some(_) => {}
            None => {
                function[s][ev] = Some(to);
                cell_line[s][ev] = t.line;
            }
        }
        if t.guard.is_some() || !t.resets.is_empty() {
            // The same transition written on several edges: one annotation,
            // as the renderer draws it (one label item per event), so that
            // the rendering parses back.  Two different guards cannot be
            // combined silently.
            match annotations
                .iter_mut()
                .find(|a: &&mut EdgeAnnotation| a.from == s && a.event == ev)
            {
                Some(a) => {
                    match (&a.guard, &t.guard) {
                        (Some(first), Some(g)) if first != g => {
                            return Err(diag(
                                t.line,
                                format!(
                                    "two guards (`{first}` on line {} and `{g}`) on event `{}` from \
                                     state `{}`: combine them into one with && or ||",
                                    a.line, t.event, t.from
                                ),
                            ));
                        }
                        (None, Some(g)) => a.guard = Some(g.clone()),
                        _ => {}
                    }
                    for c in &t.resets {
                        if !a.resets.contains(c) {
                            a.resets.push(c.clone());
                        }
                    }
                }
                None => annotations.push(EdgeAnnotation {
                    from: s,
                    event: ev,
                    guard: t.guard.clone(),
                    resets: t.resets.clone(),
                    line: t.line,
                }),
            }
        }
    }

    // --- state invariants (hybrid) -------------------------------------------
    let mut invariants: Vec<Invariant> = Vec::new();
    for n in &g.nodes {
        if n.name.starts_with(INIT_MARKER) {
            continue;
        }
        let Some(label) = n.attrs.get("label") else {
            continue;
        };
        if label.html {
            continue;
        }
        let mut parts = label.text.split("\\n");
        parts.next();
        let rest: Vec<&str> = parts.collect();
        match rest.as_slice() {
            [] => {}
            [inv] => {
                let text = inv.trim();
                if text.is_empty() {
                    return Err(diag(
                        label.line,
                        format!(
                            "empty invariant in the label {} of state `{}`",
                            show_label(&label.text),
                            n.name
                        ),
                    ));
                }
                let i = Invariant {
                    state: state_ix(&n.name),
                    text: text.to_string(),
                    line: label.line,
                };
                if !invariants
                    .iter()
                    .any(|x| x.state == i.state && x.text == i.text)
                {
                    invariants.push(i);
                }
            }
            _ => {
                return Err(diag(
                    label.line,
                    format!(
                        "the label of state `{}` has {} invariants; a state carries at most one \
                         (`name\\ninvariant`)",
                        n.name,
                        rest.len()
                    ),
                ))
            }
        }
    }

    let mut finals: Vec<bool> = state_names
        .iter()
        .map(|s| states[s.as_str()].marked)
        .collect();
    if !finals.iter().any(|f| *f) {
        finals[0] = true;
    }
    let state_lines = state_names
        .iter()
        .map(|s| states[s.as_str()].line)
        .collect();
    let event_lines = event_names
        .iter()
        .map(|e| event_first[e.as_str()])
        .collect();
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();

    Ok(Model {
        name,
        path: path.to_path_buf(),
        states: state_names,
        events: event_names,
        initial: 0,
        finals,
        function,
        annotations,
        invariants,
        state_lines,
        event_lines,
        ltl: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(text: &str) -> Result<Model, Diagnostic> {
        parse(Path::new("t.dot"), text)
    }

    fn err(text: &str) -> (u32, String) {
        let d = p(text).expect_err("should be refused");
        (d.line, d.message)
    }

    #[test]
    fn tokenizer_strings_and_comments() {
        let toks = tokenize(
            Path::new("t"),
            "# cpp line\n// c++\n/* a\nb */ \"x\\\"y\\n\" -> <a<b>c> 1.5 -.5\n",
        )
        .unwrap();
        let kinds: Vec<_> = toks.iter().map(|t| (t.tok.clone(), t.line)).collect();
        assert_eq!(
            kinds,
            vec![
                (
                    Tok::Id {
                        text: "x\"y\\n".into(),
                        quoted: true
                    },
                    4
                ),
                (Tok::Arrow, 4),
                (Tok::Html("a<b>c".into()), 4),
                (
                    Tok::Id {
                        text: "1.5".into(),
                        quoted: false
                    },
                    4
                ),
                (
                    Tok::Id {
                        text: "-.5".into(),
                        quoted: false
                    },
                    4
                ),
                (Tok::Eof, 5),
            ]
        );
    }

    #[test]
    fn line_continuation_in_string() {
        let toks = tokenize(Path::new("t"), "\"ab\\\ncd\" x").unwrap();
        assert_eq!(
            toks[0].tok,
            Tok::Id {
                text: "abcd".into(),
                quoted: true
            }
        );
        assert_eq!(toks[1].line, 2);
    }

    const MINI: &str = r#"digraph state_automaton {
	{node [shape = plaintext, style=invis, label=""] "__init_b"};
	{node [shape = circle] "b"};
	{node [shape = circle] "a"};
	"__init_b" -> "b";
	"b" -> "a" [ label = "go\nstop" ];
	"a" -> "b" [ label = "back" ];
}"#;

    #[test]
    fn order_and_default_final() {
        let m = p(MINI).unwrap();
        assert_eq!(m.name, "t");
        assert_eq!(m.states, vec!["b", "a"]);
        assert_eq!(m.events, vec!["back", "go", "stop"]);
        assert_eq!(m.finals, vec![true, false]);
        assert_eq!(m.function[0], vec![None, Some(1), Some(1)]);
        assert_eq!(m.function[1], vec![Some(0), None, None]);
        assert_eq!(m.state_lines, vec![3, 4]);
        assert_eq!(m.event_lines, vec![7, 6, 6]);
        assert!(!m.is_hybrid());
    }

    #[test]
    fn any_marking_makes_a_state_final() {
        let m = p(r#"digraph g {
            {node [shape = plaintext, style=invis, label=""] "__init_a"};
            {node [shape = doublecircle] "b"};
            {node [shape = circle] "b"};
            {node [shape = circle] "a"};
            "__init_a" -> "a";
            "a" -> "b" [label = "x"];
        }"#)
        .unwrap();
        assert_eq!(m.finals, vec![false, true]);
    }

    #[test]
    fn node_defaults_are_scoped() {
        // The doublecircle default applies inside its subgraph only.
        let m = p(r#"digraph g {
            subgraph s { node [shape = doublecircle]; a; }
            b;
            __init_a -> a;
            a -> b [label = x]; b -> a [label = y];
        }"#)
        .unwrap();
        assert_eq!(m.states, vec!["a", "b"]);
        assert_eq!(m.finals, vec![true, false]);
    }

    #[test]
    fn edge_defaults_and_chains() {
        let m = p(r#"digraph g { __init_a; a; b; c; __init_a -> a;
            edge [label = "e"]; a -> b -> c; c -> a [label = "f"]; }"#)
        .unwrap();
        assert_eq!(m.events, vec!["e", "f"]);
        assert_eq!(m.function[0], vec![Some(1), None]);
        assert_eq!(m.function[1], vec![Some(2), None]);
        assert_eq!(m.function[2], vec![None, Some(0)]);
    }

    #[test]
    fn string_concatenation() {
        let m =
            p("digraph g { __init_a; a; __init_a -> a; a -> a [label = \"x\" + \"y\"]; }").unwrap();
        assert_eq!(m.events, vec!["xy"]);
    }

    #[test]
    fn hybrid_labels() {
        let m = p(r#"digraph g {
            {node [shape = plaintext, style=invis, label=""] "__init_a"};
            {node [shape = circle] "a"};
            {node [shape = circle] "b"};
            "__init_a" -> "a";
            "a" [label = "a\nclk < 10"];
            "a" -> "b" [ label = "go;x == 1;reset(clk)\nalso" ];
            "b" -> "a" [ label = "back;reset( clk )" ];
        }"#)
        .unwrap();
        assert!(m.is_hybrid());
        assert_eq!(m.events, vec!["also", "back", "go"]);
        assert_eq!(
            m.annotations,
            vec![
                EdgeAnnotation {
                    from: 0,
                    event: 2,
                    guard: Some("x == 1".into()),
                    resets: vec!["clk".into()],
                    line: 7
                },
                EdgeAnnotation {
                    from: 1,
                    event: 1,
                    guard: None,
                    resets: vec!["clk".into()],
                    line: 8
                },
            ]
        );
        assert_eq!(
            m.invariants,
            vec![Invariant {
                state: 0,
                text: "clk < 10".into(),
                line: 6
            }]
        );
        assert_eq!(m.unsupported().len(), 4);
    }

    #[test]
    fn refusals() {
        let (l, m) = err("graph g { }");
        assert_eq!(l, 1);
        assert!(m.starts_with("not a digraph"), "{m}");
        let (l, m) = err("digraph g {\n a;\n \"b\n}\n");
        assert_eq!(l, 3);
        assert!(m.contains("unterminated string"), "{m}");
        let (l, m) = err("digraph g {\n __init_a; a;\n a -> ;\n}");
        assert_eq!(l, 3);
        assert!(m.contains("missing target state after `->`"), "{m}");
        let (l, m) = err("digraph g {\n { a;\n}\n");
        assert_eq!(l, 1);
        assert!(m.contains("unbalanced braces"), "{m}");
        let (l, m) = err("digraph g {\n a; a -> a [label=x];\n}\n");
        assert_eq!(l, 1);
        assert!(m.starts_with("no initial state"), "{m}");
        let (l, m) = err("digraph g {\n __init_a; a;\n __init_b; b;\n}\n");
        assert_eq!(l, 3);
        assert!(
            m.contains("two initial states: `__init_a` (line 2) and `__init_b` (line 3)"),
            "{m}"
        );
        let (l, m) = err("digraph g {\n __init_a; a; b; c; __init_a -> a;\n a -> b [label=x];\n a -> c [label=\"y\\nx\"];\n}");
        assert_eq!(l, 4);
        assert!(
            m.contains("event `x` leads from state `a` to `b` (line 3) and to `c` (line 4)"),
            "{m}"
        );
        let (l, m) = err("digraph g {\n __init_a; a; __init_a -> a;\n a -> zz [label=x];\n}");
        assert_eq!(l, 3);
        assert!(m.contains("edge to undeclared state `zz`"), "{m}");
        let (l, m) = err("digraph g {\n __init_a; a; __init_a -> a;\n a -> a [label=\"x\\n\"];\n}");
        assert_eq!(l, 3);
        assert!(m.starts_with("empty event name"), "{m}");
        let (l, m) = err("digraph g {\n __init_a; a; \"b-c\"; __init_a -> a;\n}");
        assert_eq!(l, 2);
        assert!(
            m.contains("state name `b-c` is not a valid C identifier"),
            "{m}"
        );
        let (_, m) = err("digraph g {\n __init_a; a; __init_a -> a;\n a -> a [label=\"int\"];\n}");
        assert!(
            m.contains("event name `int` is not a valid C identifier"),
            "{m}"
        );
        let (_, m) = err("digraph g { __init_a; a; __init_a -> a; a -> a [label=a]; }");
        assert!(m.contains("both a state"), "{m}");
        let (_, m) = err("digraph g { __init_a; a; __init_a -> a; }");
        assert!(m.contains("no events"), "{m}");
        let (_, m) = err("digraph g { __init_a; __init_a -> a; a -> a [label=x]; }");
        assert!(
            m.contains("initial state `a` (marked by `__init_a`) is not declared"),
            "{m}"
        );
        let (_, m) = err("digraph g { __init_a; a; __init_a -> a; a -> a; }");
        assert!(m.contains("has no label"), "{m}");
        let (_, m) = err("digraph g { __init_a; a; __init_a -> a; a -> a [label=\"x;g1;g2\"]; }");
        assert!(m.contains("two guards"), "{m}");
        let (_, m) =
            err("digraph g { __init_a; a; __init_a -> a; a -> a [label=\"x;reset(1c)\"]; }");
        assert!(m.contains("malformed clock reset"), "{m}");
        let (_, m) = err("digraph g { __init_a; a; __init_a -> a; a -- a [label=x]; }");
        assert!(m.contains("undirected"), "{m}");
        let (l, m) = err("digraph g { __init_a; a; __init_a -> a; a -> a [label=x]; }\n}");
        assert_eq!(l, 2);
        assert!(m.contains("unbalanced braces"), "{m}");
        let (_, m) = err("");
        assert!(m.contains("empty"), "{m}");
        let (l, m) = err("digraph g {\n /* never closed\n");
        assert_eq!(l, 2);
        assert!(m.contains("unterminated comment"), "{m}");
    }

    #[test]
    fn c_identifiers() {
        assert!(is_c_identifier("sched_switch_in"));
        assert!(is_c_identifier("_x9"));
        assert!(!is_c_identifier("9x"));
        assert!(!is_c_identifier("a-b"));
        assert!(!is_c_identifier(""));
        assert!(!is_c_identifier("while"));
        assert!(!is_c_identifier("é"));
    }
}
