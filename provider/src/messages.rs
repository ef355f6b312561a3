//! Engine messages as a person reads them: DataFusion's category prefixes
//! ("Error during planning: ", "Schema error: ") and Rust debug wrappers
//! (`ParserError("…")`) removed, and the default catalog's qualification
//! of table names (`datafusion.public.orders`) dropped. The shell adds its
//! suggestions on top; the Python module raises the result as is.

/// Prefixes DataFusion puts before a message, by category. "Resources
/// exhausted" and "Not implemented" stay: they say what went wrong.
const PREFIXES: &[&str] = &[
    "Error during planning: ",
    "Schema error: ",
    "SQL error: ",
    "Execution error: ",
    "External error: ",
    "Arrow error: ",
    "Optimizer rule error: ",
    "Invalid argument error: ",
    "Parser error: ",
    "Object Store error: ",
    "IO error: ",
    "Internal error: ",
];

/// Debug wrappers of sqlparser errors, whose inner text is the message.
const WRAPPERS: &[&str] = &["ParserError(\"", "TokenizerError(\""];

/// One message (one link of a cause chain) without category prefixes (any
/// number, in any order), without debug wrappers (their escaped quotes
/// unescaped), without surrounding white space, and with
/// `datafusion.public.` removed from qualified names. Text that has none
/// of these comes back unchanged but trimmed.
pub fn plain(message: &str) -> String {
    let mut s = message.trim();
    loop {
        let before = s;
        for p in PREFIXES {
            if let Some(rest) = s.strip_prefix(p) {
                s = rest;
            }
        }
        if s == before {
            break;
        }
    }
    let mut out = s.trim().to_string();
    for wrapper in WRAPPERS {
        if let Some(at) = out.find(wrapper) {
            let inner = &out[at + wrapper.len()..];
            if let Some(end) = inner.rfind("\")") {
                let text = inner[..end].replace("\\\"", "\"");
                out = format!("{}{}{}", &out[..at], text, &inner[end + 2..]);
            }
        }
    }
    out.replace("datafusion.public.", "")
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn prefixes_wrappers_and_default_names_go() {
        assert_eq!(
            plain("SQL error: ParserError(\"Expected: an expression, found: FROM\")"),
            "Expected: an expression, found: FROM"
        );
        assert_eq!(
            plain("External error: Execution error: value \"x\" out of range"),
            "value \"x\" out of range"
        );
        assert_eq!(
            plain("Error during planning: table 'datafusion.public.orderz' not found"),
            "table 'orderz' not found"
        );
        assert_eq!(
            plain("External error: Resources exhausted: over the memory limit"),
            "Resources exhausted: over the memory limit"
        );
        assert_eq!(plain("  nothing to remove "), "nothing to remove");
    }
}
