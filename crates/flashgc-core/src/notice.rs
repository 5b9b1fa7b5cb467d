//! One-line notices the library gives its user while it works, outside the results: an
//! input read once into a temporary file ([`crate::trace_file`]), a wait for a writer on a
//! named pipe ([`crate::named_pipe`]). By default nobody is told; the command line prints
//! them on standard error.

use std::sync::OnceLock;

/// The function told of each notice.
static NOTICE: OnceLock<fn(&str)> = OnceLock::new();

/// Sets the function told, with a one-line message, of each notice. Only the first call
/// counts.
pub fn set(f: fn(&str)) {
    let _ = NOTICE.set(f);
}

/// Tells the function set by [`set`], if any, of `message`.
pub(crate) fn tell(message: &str) {
    if let Some(f) = NOTICE.get() {
        f(message);
    }
}
