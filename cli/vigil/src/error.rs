//! The one error type of the command-line tool: a message and an exit code.

use std::fmt;

/// Exit code for a broken installation or environment (missing plugin,
/// runtime library, header or compiler) and for usage errors.
pub const EXIT_SETUP: i32 = 2;
/// Exit code for "the thing we ran did not do what it should".
pub const EXIT_FAILURE: i32 = 1;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub message: String,
    pub code: i32,
}

impl Error {
    /// An installation / environment problem: exit status 2.
    pub fn setup(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            code: EXIT_SETUP,
        }
    }

    /// Anything else that went wrong: exit status 1.
    pub fn failure(message: impl Into<String>) -> Error {
        Error {
            message: message.into(),
            code: EXIT_FAILURE,
        }
    }

    /// A failure with a specific exit status (e.g. the compiler's).
    pub fn with_code(message: impl Into<String>, code: i32) -> Error {
        Error {
            message: message.into(),
            code,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;
