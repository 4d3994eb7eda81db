//! Typed errors, after OpenDP's `rust/src/error/mod.rs`: one [`Error`] type whose [`ErrorKind`] tells a
//! caller what it may do about it, and macros that format the offending value into the message.
//!
//! The kinds are chosen by what a caller does next, not by where the error arose:
//!
//! | kind | meaning | CLI | Python |
//! |---|---|---|---|
//! | [`ErrorKind::Input`] | the request is invalid or contradictory (a value out of range, a malformed file) | exit 2 | `InputError` (a `ValueError`) |
//! | [`ErrorKind::Declined`] | an engine cannot answer this composition or query (the accountant may try another engine) | exit 2 | `InputError` |
//! | [`ErrorKind::Resource`] | the work or memory would exceed the limits (estimated up front, or met) | exit 2 | `ResourceLimitError` (a `MemoryError`) |
//! | [`ErrorKind::Io`] | reading or writing a file failed | exit 2 | `FileError` (an `OSError`) |
//! | [`ErrorKind::Interrupted`] | the caller cancelled the work (Ctrl-C in Python) | exit 130 | `KeyboardInterrupt` |
//! | [`ErrorKind::Internal`] | a bug: an invariant the code relies on does not hold | exit 3, "please report it" | `InternalError` |
//!
//! Only [`ErrorKind::Declined`] may be caught and replaced by another engine's answer: an internal error
//! in one engine must surface, not be hidden behind a fallback.

use std::fmt;

/// What a caller may do about an error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// invalid or contradictory input: the user must change the request
    Input,
    /// this engine cannot answer this request (another engine may)
    Declined,
    /// estimated or met time / memory limits
    Resource,
    /// a file could not be read or written
    Io,
    /// cancelled by the caller
    Interrupted,
    /// a bug in tightdp
    Internal,
}

impl ErrorKind {
    pub fn as_str(&self) -> &'static str {
        match self {
            ErrorKind::Input => "input",
            ErrorKind::Declined => "declined",
            ErrorKind::Resource => "resource",
            ErrorKind::Io => "io",
            ErrorKind::Interrupted => "interrupted",
            ErrorKind::Internal => "internal",
        }
    }

    /// The command-line exit status of an error of this kind (docs/design.md, "Exit status and errors").
    pub fn exit_code(&self) -> i32 {
        match self {
            ErrorKind::Internal => 3,
            ErrorKind::Interrupted => 130,
            _ => 2,
        }
    }
}

/// An error: its kind and a one-line message naming the offending value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    kind: ErrorKind,
    message: String,
    /// what a [`ErrorKind::Declined`] refusal becomes when no other engine answers ([`Error::settle`]):
    /// `Resource` for a refusal by size or cost, `Input` for one by range; the kind itself otherwise
    settles_as: ErrorKind,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        let settles_as = if kind == ErrorKind::Declined { ErrorKind::Input } else { kind };
        Error { kind, message: message.into(), settles_as }
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The message without the kind's prefix.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// True if another engine may be tried instead.
    pub fn is_declined(&self) -> bool {
        self.kind == ErrorKind::Declined
    }

    /// The same error with `what` in front of its message ("reading FILE: …"); the kind is kept.
    pub fn context(self, what: impl fmt::Display) -> Error {
        Error { message: format!("{what}: {}", self.message), ..self }
    }

    /// The same message under another kind (e.g. an engine's `Input` refusal seen by the accountant as
    /// `Declined`).
    pub fn with_kind(self, kind: ErrorKind) -> Error {
        Error::new(kind, self.message)
    }

    /// A [`ErrorKind::Declined`] refusal because the work or memory would exceed the limits (a lattice
    /// too large for this engine): when no other engine answers, it is a [`ErrorKind::Resource`] error.
    pub fn over_limits(self) -> Error {
        Error { settles_as: if self.kind == ErrorKind::Declined { ErrorKind::Resource } else { self.kind }, ..self }
    }

    /// The kind this error has once it is final (no other engine will be tried): a refusal becomes
    /// `Resource` (by size or cost, [`Error::over_limits`]) or `Input` (by range); other kinds stay.
    pub fn settled_kind(&self) -> ErrorKind {
        self.settles_as
    }

    /// The error as a final answer: a [`ErrorKind::Declined`] refusal under its [`Error::settled_kind`].
    pub fn settle(self) -> Error {
        Error { kind: self.settles_as, ..self }
    }
}

/// An error is one line: a line break the message carries from the input (a JSON string's "\n" in a
/// manifest's names) is shown escaped.
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = if self.message.contains(['\n', '\r']) {
            std::borrow::Cow::Owned(self.message.replace('\n', "\\n").replace('\r', "\\r"))
        } else {
            std::borrow::Cow::Borrowed(self.message.as_str())
        };
        match self.kind {
            ErrorKind::Internal => write!(f, "internal error, please report it: {message}"),
            _ => f.write_str(&message),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Error {
        Error::new(ErrorKind::Io, e.to_string())
    }
}

/// A CSV error: [`ErrorKind::Io`] when reading failed, [`ErrorKind::Input`] when the file is malformed.
impl From<csv::Error> for Error {
    fn from(e: csv::Error) -> Error {
        let kind = if e.is_io_error() { ErrorKind::Io } else { ErrorKind::Input };
        Error::new(kind, e.to_string())
    }
}

/// A JSON error: [`ErrorKind::Io`] when reading failed, [`ErrorKind::Input`] when the text is malformed.
impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Error {
        let kind = if e.is_io() { ErrorKind::Io } else { ErrorKind::Input };
        Error::new(kind, e.to_string())
    }
}

/// A result with a typed [`Error`].
pub type Fallible<T> = Result<T, Error>;

/// An [`Error`] of the given kind with a formatted message: `err!(Input, "sigma2 must be positive, got {s}")`.
#[macro_export]
macro_rules! err {
    ($kind:ident, $($arg:tt)+) => {
        $crate::error::Error::new($crate::error::ErrorKind::$kind, format!($($arg)+))
    };
}

/// `Err(err!(…))`: `return fallible!(Input, "delta must be in (0, 1), got {d}")`.
#[macro_export]
macro_rules! fallible {
    ($kind:ident, $($arg:tt)+) => {
        Err($crate::err!($kind, $($arg)+))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refuse(x: i32) -> Fallible<i32> {
        if x < 0 {
            return fallible!(Input, "x must be non-negative, got {x}");
        }
        Ok(x)
    }

    /// A line break carried from the input is shown escaped: an error is one line.
    #[test]
    fn an_error_is_one_line() {
        let e = err!(Input, "unknown noise distribution '{}'", "\ndiscrete-gaussian\r");
        assert_eq!(e.to_string(), "unknown noise distribution '\\ndiscrete-gaussian\\r'");
        assert!(!err!(Internal, "a\nb").to_string().contains('\n'));
    }

    #[test]
    fn kinds_messages_and_exit_codes() {
        let e = refuse(-3).unwrap_err();
        assert_eq!(e.kind(), ErrorKind::Input);
        assert_eq!(e.to_string(), "x must be non-negative, got -3");
        assert_eq!(e.kind().exit_code(), 2);
        let i = err!(Internal, "lo > hi in {}", "a bracket");
        assert_eq!(i.to_string(), "internal error, please report it: lo > hi in a bracket");
        assert_eq!(i.kind().exit_code(), 3);
        assert!(!i.is_declined());
        let d = e.clone().with_kind(ErrorKind::Declined).context("lattice engine");
        assert!(d.is_declined());
        assert_eq!(d.message(), "lattice engine: x must be non-negative, got -3");
        let io: Error = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file").into();
        assert_eq!(io.kind(), ErrorKind::Io);
        assert_eq!(refuse(4), Ok(4));
    }

    #[test]
    fn refusals_settle_as_input_or_resource() {
        let range = err!(Declined, "outside the engine's range");
        assert_eq!((range.settled_kind(), range.clone().settle().kind()), (ErrorKind::Input, ErrorKind::Input));
        let size = err!(Declined, "the lattice would need about 1e12 entries (limit 1e9)").over_limits().context("lattice");
        assert!(size.is_declined());
        assert_eq!(size.clone().settle().kind(), ErrorKind::Resource);
        assert_eq!(size.settle().to_string(), "lattice: the lattice would need about 1e12 entries (limit 1e9)");
        // other kinds are final already
        assert_eq!(err!(Internal, "bug").over_limits().settle().kind(), ErrorKind::Internal);
        assert_eq!(err!(Input, "bad").settle().kind(), ErrorKind::Input);
    }

    #[test]
    fn io_csv_and_json_errors_keep_their_kind() {
        // a file that cannot be read is Io; a malformed one is Input; the message is the library's own
        let missing = csv::Reader::from_path("/nonexistent/tightdp-error-test.csv").unwrap_err();
        let shown = missing.to_string();
        let e = Error::from(missing).context("'x.csv'");
        assert_eq!((e.kind(), e.to_string()), (ErrorKind::Io, format!("'x.csv': {shown}")));
        let mut rd = csv::ReaderBuilder::new().has_headers(false).from_reader("a,b\nc\n".as_bytes());
        let ragged = rd.records().find_map(|r| r.err()).expect("a ragged CSV is an error");
        assert_eq!(Error::from(ragged).kind(), ErrorKind::Input);
        let bad_json = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
        assert_eq!(Error::from(bad_json).kind(), ErrorKind::Input);
        // an internal error's Display carries the prefix exactly once, also under context
        let i = err!(Internal, "lo > hi").context("level 'US'");
        assert_eq!(i.to_string(), "internal error, please report it: level 'US': lo > hi");
        assert_eq!(i.kind().exit_code(), 3);
    }
}
