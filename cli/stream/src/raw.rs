//! Checked access to a raw BSON document: a full validation walk (the raw
//! API checks an element only when it is read), and typed field lookups
//! that say which field is missing or mistyped and where it is.
//!
//! Offsets here are from the first byte of the top-level document.

use bson::raw::{RawArray, RawBinaryRef, RawBsonRef, RawDocument};
use bson::spec::ElementType;

use crate::error::{ErrorKind, Result, StreamError};

/// Documents nested deeper than this are refused (the format nests 3
/// deep: `hello.events[i].args`), so that the walk's recursion is bounded.
pub(crate) const MAX_DEPTH: u32 = 32;

/// Where `inner` (a slice of `outer`) starts in `outer`.
pub(crate) fn offset_in(outer: &[u8], inner: &[u8]) -> usize {
    (inner.as_ptr() as usize).wrapping_sub(outer.as_ptr() as usize)
}

fn bson_error(offset: usize, e: &bson::error::Error) -> StreamError {
    let what = match &e.message {
        Some(m) => m.clone(),
        None => e.kind.to_string(),
    };
    let message = match &e.key {
        Some(k) => format!("invalid BSON in field `{k}`: {what}"),
        None => format!("invalid BSON: {what}"),
    };
    StreamError::new(ErrorKind::Bson, offset as u64, message)
}

/// Checks every element of `doc` (whose bytes passed
/// `RawDocument::from_bytes`), recursively.
pub(crate) fn validate(doc: &RawDocument) -> Result<()> {
    walk(doc.as_bytes(), doc, 1)
}

fn walk(top: &[u8], doc: &RawDocument, depth: u32) -> Result<()> {
    let base = offset_in(top, doc.as_bytes());
    if depth > MAX_DEPTH {
        return Err(StreamError::new(
            ErrorKind::Bson,
            base as u64,
            format!("documents nested more than {MAX_DEPTH} deep"),
        ));
    }
    let mut pos = base + 4;
    for elem in doc.iter_elements() {
        let elem = elem.map_err(|e| bson_error(pos, &e))?;
        let value = elem.value().map_err(|e| bson_error(pos, &e))?;
        match value {
            RawBsonRef::Document(d) => walk(top, d, depth + 1)?,
            RawBsonRef::Array(a) => walk(top, array_doc(a, pos)?, depth + 1)?,
            RawBsonRef::JavaScriptCodeWithScope(c) => walk(top, c.scope, depth + 1)?,
            _ => {}
        }
        pos += 2 + elem.key().len() + elem.size();
    }
    Ok(())
}

fn array_doc(a: &RawArray, pos: usize) -> Result<&RawDocument> {
    RawDocument::from_bytes(a.as_bytes()).map_err(|e| bson_error(pos, &e))
}

/// The BSON name of a type, as error messages say it.
pub(crate) fn type_name(t: ElementType) -> &'static str {
    match t {
        ElementType::Double => "double",
        ElementType::String => "string",
        ElementType::EmbeddedDocument => "document",
        ElementType::Array => "array",
        ElementType::Binary => "binary",
        ElementType::Undefined => "undefined",
        ElementType::ObjectId => "ObjectId",
        ElementType::Boolean => "bool",
        ElementType::DateTime => "datetime",
        ElementType::Null => "null",
        ElementType::RegularExpression => "regex",
        ElementType::DbPointer => "DBPointer",
        ElementType::JavaScriptCode => "JavaScript code",
        ElementType::Symbol => "symbol",
        ElementType::JavaScriptCodeWithScope => "JavaScript code with scope",
        ElementType::Int32 => "int32",
        ElementType::Timestamp => "timestamp",
        ElementType::Int64 => "int64",
        ElementType::Decimal128 => "decimal128",
        ElementType::MaxKey => "max key",
        ElementType::MinKey => "min key",
    }
}

/// A validated document's fields, for one message (or one entry of an
/// array in it): `what` starts every error message (`hello`,
/// `hello: events[2]`).
pub(crate) struct Fields<'a> {
    /// The top-level document's bytes (offsets are from its start).
    top: &'a [u8],
    doc: &'a RawDocument,
    pub what: String,
}

/// One element of a document: its offset, key and value.
pub(crate) struct Elem<'a> {
    pub offset: usize,
    pub key: &'a str,
    pub value: RawBsonRef<'a>,
}

impl<'a> Fields<'a> {
    pub fn top(doc: &'a RawDocument, what: impl Into<String>) -> Self {
        Fields {
            top: doc.as_bytes(),
            doc,
            what: what.into(),
        }
    }

    /// The same document, its errors starting `what`.
    pub fn renamed(&self, what: String) -> Fields<'a> {
        Fields {
            top: self.top,
            doc: self.doc,
            what,
        }
    }

    /// The offset of this document's first byte.
    pub fn offset(&self) -> usize {
        offset_in(self.top, self.doc.as_bytes())
    }

    pub fn error(&self, offset: usize, message: impl std::fmt::Display) -> StreamError {
        StreamError::new(
            ErrorKind::Format,
            offset as u64,
            format!("{}: {message}", self.what),
        )
    }

    /// The first element named `key`.
    pub fn find(&self, key: &str) -> Result<Option<Elem<'a>>> {
        let mut pos = self.offset() + 4;
        for elem in self.doc.iter_elements() {
            let elem = elem.map_err(|e| bson_error(pos, &e))?;
            let k = elem.key().as_str();
            let size = 2 + k.len() + elem.size();
            if k == key {
                let value = elem.value().map_err(|e| bson_error(pos, &e))?;
                return Ok(Some(Elem {
                    offset: pos,
                    key: k,
                    value,
                }));
            }
            pos += size;
        }
        Ok(None)
    }

    pub fn get(&self, key: &str) -> Result<Elem<'a>> {
        self.find(key)?
            .ok_or_else(|| self.error(self.offset(), format_args!("missing field `{key}`")))
    }

    fn mistyped(&self, e: &Elem<'a>, expected: &str) -> StreamError {
        self.error(
            e.offset,
            format_args!(
                "field `{}` is {}, expected {expected}",
                e.key,
                type_name(e.value.element_type())
            ),
        )
    }

    pub fn str(&self, key: &str) -> Result<(usize, &'a str)> {
        let e = self.get(key)?;
        match e.value {
            RawBsonRef::String(s) => Ok((e.offset, s)),
            _ => Err(self.mistyped(&e, "string")),
        }
    }

    pub fn i32(&self, key: &str) -> Result<(usize, i32)> {
        let e = self.get(key)?;
        match e.value {
            RawBsonRef::Int32(v) => Ok((e.offset, v)),
            _ => Err(self.mistyped(&e, "int32")),
        }
    }

    pub fn i64(&self, key: &str) -> Result<(usize, i64)> {
        let e = self.get(key)?;
        match e.value {
            RawBsonRef::Int64(v) => Ok((e.offset, v)),
            _ => Err(self.mistyped(&e, "int64")),
        }
    }

    pub fn f64(&self, key: &str) -> Result<(usize, f64)> {
        let e = self.get(key)?;
        match e.value {
            RawBsonRef::Double(v) => Ok((e.offset, v)),
            _ => Err(self.mistyped(&e, "double")),
        }
    }

    /// A subdocument, its errors starting `what.key`.
    pub fn doc(&self, key: &str) -> Result<Fields<'a>> {
        let e = self.get(key)?;
        match e.value {
            RawBsonRef::Document(d) => Ok(Fields {
                top: self.top,
                doc: d,
                what: format!("{}: `{key}`", self.what),
            }),
            _ => Err(self.mistyped(&e, "document")),
        }
    }

    /// An array's elements (offset, value).
    pub fn array(&self, key: &str) -> Result<Vec<Elem<'a>>> {
        let e = self.get(key)?;
        match e.value {
            RawBsonRef::Array(a) => {
                let d = array_doc(a, e.offset)?;
                elems(self.top, d)
            }
            _ => Err(self.mistyped(&e, "array")),
        }
    }

    pub fn binary(&self, key: &str) -> Result<(usize, RawBinaryRef<'a>)> {
        let e = self.get(key)?;
        match e.value {
            RawBsonRef::Binary(b) => Ok((e.offset, b)),
            _ => Err(self.mistyped(&e, "binary")),
        }
    }

    /// An entry of an array as a document, its errors starting `what`.
    pub fn entry(&self, e: &Elem<'a>, what: String) -> Result<Fields<'a>> {
        match e.value {
            RawBsonRef::Document(d) => Ok(Fields {
                top: self.top,
                doc: d,
                what,
            }),
            other => Err(StreamError::new(
                ErrorKind::Format,
                e.offset as u64,
                format!(
                    "{what} is {}, expected document",
                    type_name(other.element_type())
                ),
            )),
        }
    }

    /// The offset of `bytes` (a slice of the top-level document).
    pub fn offset_of(&self, bytes: &[u8]) -> usize {
        offset_in(self.top, bytes)
    }
}

fn elems<'a>(top: &'a [u8], doc: &'a RawDocument) -> Result<Vec<Elem<'a>>> {
    let mut pos = offset_in(top, doc.as_bytes()) + 4;
    let mut out = Vec::new();
    for elem in doc.iter_elements() {
        let elem = elem.map_err(|e| bson_error(pos, &e))?;
        let value = elem.value().map_err(|e| bson_error(pos, &e))?;
        let key = elem.key().as_str();
        out.push(Elem {
            offset: pos,
            key,
            value,
        });
        pos += 2 + key.len() + elem.size();
    }
    Ok(out)
}
