//! Tokens: DOT text → IDs and punctuation, each with the line it starts on.

use std::path::Path;

use crate::Diagnostic;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
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
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) line: u32,
}

impl Tok {
    pub(super) fn describe(&self) -> String {
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
    pub(super) fn is_keyword(&self, kw: &str) -> bool {
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
pub(super) fn tokenize(path: &Path, text: &str) -> Result<Vec<Token>, Diagnostic> {
    let mut lexer = Lexer {
        path,
        chars: text.chars().collect(),
        pos: 0,
        line: 1,
    };
    let mut out = Vec::new();
    // Only whitespace seen since the start of the current line.
    let mut line_start = true;

    while let Some(c) = lexer.at(0) {
        if c == '\n' {
            lexer.line += 1;
            line_start = true;
            lexer.pos += 1;
            continue;
        }
        if c.is_whitespace() {
            lexer.pos += 1;
            continue;
        }
        if c == '#' && line_start {
            lexer.skip_to_end_of_line();
            continue;
        }
        line_start = false;
        if lexer.skip_comment()? {
            continue;
        }
        let line = lexer.line;
        let tok = lexer.token(c)?;
        out.push(Token { tok, line });
    }
    out.push(Token {
        tok: Tok::Eof,
        line: lexer.line,
    });
    Ok(out)
}

/// A cursor over the characters of the text, counting lines.
struct Lexer<'a> {
    path: &'a Path,
    chars: Vec<char>,
    pos: usize,
    /// The line of the character at `pos`.
    line: u32,
}

impl Lexer<'_> {
    /// The character `k` places after the cursor, if any.
    fn at(&self, k: usize) -> Option<char> {
        self.chars.get(self.pos + k).copied()
    }

    /// Where the run of characters satisfying `pred` from `from` ends.
    fn end_of_run(&self, from: usize, pred: impl Fn(char) -> bool) -> usize {
        let mut end = from;
        while end < self.chars.len() && pred(self.chars[end]) {
            end += 1;
        }
        end
    }

    fn text(&self, from: usize, to: usize) -> String {
        self.chars[from..to].iter().collect()
    }

    fn error<T>(&self, line: u32, msg: impl Into<String>) -> Result<T, Diagnostic> {
        Err(Diagnostic::new(self.path, line, msg))
    }

    /// Up to (not including) the next newline.
    fn skip_to_end_of_line(&mut self) {
        self.pos = self.end_of_run(self.pos, |c| c != '\n');
    }

    /// Skip a `// ...` or `/* ... */` comment at the cursor; false when
    /// there is none.
    fn skip_comment(&mut self) -> Result<bool, Diagnostic> {
        if self.at(0) != Some('/') {
            return Ok(false);
        }
        match self.at(1) {
            Some('/') => self.skip_to_end_of_line(),
            Some('*') => self.skip_block_comment()?,
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn skip_block_comment(&mut self) -> Result<(), Diagnostic> {
        let start = self.line;
        self.pos += 2;
        loop {
            match self.at(0) {
                None => {
                    return self.error(
                        start,
                        "syntax error: unterminated comment: the `/*` opened here is never closed",
                    )
                }
                Some('*') if self.at(1) == Some('/') => {
                    self.pos += 2;
                    return Ok(());
                }
                Some(ch) => {
                    if ch == '\n' {
                        self.line += 1;
                    }
                    self.pos += 1;
                }
            }
        }
    }

    /// The token starting with `c`, the character at the cursor.
    fn token(&mut self, c: char) -> Result<Tok, Diagnostic> {
        let next = self.at(1);
        match c {
            '"' => self.quoted_string(),
            '<' => self.html_string(),
            '-' if next == Some('>') => {
                self.pos += 2;
                Ok(Tok::Arrow)
            }
            '-' if next == Some('-') => {
                self.pos += 2;
                Ok(Tok::Undirected)
            }
            '-' | '.' | '0'..='9' => self.numeral(),
            c if is_id_start(c) => Ok(self.identifier()),
            _ => self.punctuation(c),
        }
    }

    fn quoted_string(&mut self) -> Result<Tok, Diagnostic> {
        // Graphviz's scanner: `\"` is a quote, backslash-newline a
        // line continuation; every other backslash stays as written
        // (so `\n` in a label is the two characters `\` `n`).
        let start = self.line;
        let mut s = String::new();
        self.pos += 1;
        loop {
            let Some(ch) = self.at(0) else {
                return self.error(
                    start,
                    "syntax error: unterminated string: the `\"` opened here is never closed",
                );
            };
            match ch {
                '"' => {
                    self.pos += 1;
                    break;
                }
                '\\' if self.at(1) == Some('"') => {
                    s.push('"');
                    self.pos += 2;
                }
                '\\' if self.at(1) == Some('\n') => {
                    self.line += 1;
                    self.pos += 2;
                }
                '\\' if self.at(1) == Some('\r') && self.at(2) == Some('\n') => {
                    self.line += 1;
                    self.pos += 3;
                }
                ch => {
                    if ch == '\n' {
                        self.line += 1;
                    }
                    s.push(ch);
                    self.pos += 1;
                }
            }
        }
        Ok(Tok::Id {
            text: s,
            quoted: true,
        })
    }

    /// `<...>`, with nested angle brackets kept in the text.
    fn html_string(&mut self) -> Result<Tok, Diagnostic> {
        let start = self.line;
        let mut depth = 0usize;
        let mut s = String::new();
        loop {
            let Some(ch) = self.at(0) else {
                return self.error(
                    start,
                    "syntax error: unterminated HTML string: the `<` opened here is never closed",
                );
            };
            self.pos += 1;
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
                        self.line += 1;
                    }
                    s.push(ch);
                }
            }
        }
        Ok(Tok::Html(s))
    }

    /// Numeral: `-?(.[0-9]+ | [0-9]+(.[0-9]*)?)`.
    fn numeral(&mut self) -> Result<Tok, Diagnostic> {
        let start = self.pos;
        if self.at(0) == Some('-') {
            self.pos += 1;
        }
        let mut digits = self.skip_digits();
        if self.at(0) == Some('.') {
            self.pos += 1;
            digits += self.skip_digits();
        }
        let word = self.text(start, self.pos);
        if digits == 0 {
            return self.error(self.line, format!("syntax error: unexpected `{word}`"));
        }
        if self.at(0).is_some_and(is_id_start) {
            let whole = self.text(start, self.end_of_run(self.pos, is_id_char));
            return self.error(self.line, format!("syntax error: `{whole}` is not an ID (an unquoted ID cannot start with a digit; quote it)"));
        }
        Ok(Tok::Id {
            text: word,
            quoted: false,
        })
    }

    /// Skip ASCII digits; how many there were.
    fn skip_digits(&mut self) -> usize {
        let start = self.pos;
        self.pos = self.end_of_run(start, |c| c.is_ascii_digit());
        self.pos - start
    }

    fn identifier(&mut self) -> Tok {
        let start = self.pos;
        self.pos = self.end_of_run(start, is_id_char);
        Tok::Id {
            text: self.text(start, self.pos),
            quoted: false,
        }
    }

    fn punctuation(&mut self, c: char) -> Result<Tok, Diagnostic> {
        self.pos += 1;
        Ok(match c {
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
                return self.error(
                    self.line,
                    format!("syntax error: unexpected character `{c}`"),
                )
            }
        })
    }
}
