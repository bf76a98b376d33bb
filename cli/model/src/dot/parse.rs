//! The parser: DOT statements → node and edge statements with effective
//! attributes.

use std::collections::BTreeMap;
use std::path::Path;

use super::lex::{Tok, Token};
use crate::Diagnostic;

/// An attribute value and the line it starts on.
#[derive(Debug, Clone)]
pub(super) struct Value {
    pub(super) text: String,
    pub(super) html: bool,
    pub(super) line: u32,
}

pub(super) type Attrs = BTreeMap<String, Value>;

#[derive(Debug)]
pub(super) struct NodeStmt {
    pub(super) name: String,
    pub(super) line: u32,
    /// Explicit attributes over the `node [...]` defaults of its scope.
    pub(super) attrs: Attrs,
}

#[derive(Debug)]
pub(super) struct EdgeStmt {
    pub(super) from: String,
    pub(super) from_line: u32,
    pub(super) to: String,
    pub(super) to_line: u32,
    /// Explicit attributes over the `edge [...]` defaults of its scope.
    pub(super) attrs: Attrs,
}

#[derive(Debug)]
pub(super) struct Graph {
    /// Line of the `digraph` keyword, for messages about the whole model.
    pub(super) line: u32,
    pub(super) nodes: Vec<NodeStmt>,
    pub(super) edges: Vec<EdgeStmt>,
}

#[derive(Clone, Default)]
struct Scope {
    node: Attrs,
    edge: Attrs,
}

pub(super) struct Parser<'a> {
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
    pub(super) fn new(path: &'a Path, toks: Vec<Token>) -> Self {
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
    pub(super) fn graph(mut self) -> PResult<Graph> {
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
