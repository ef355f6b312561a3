//! Error messages as a person reads them. DataFusion's category prefixes
//! ("Error during planning:", "Schema error:") and Rust debug wrappers
//! (`ParserError("…")`) are removed, internal catalog names shortened
//! (`datafusion.public.orders` → `orders`, `nwind.public.orders` →
//! `nwind.orders`), a chain of causes becomes its innermost one (the whole
//! chain with `\set VERBOSITY verbose` or `-v`), and a table name that
//! names nothing gets the closest names of the open databases as a
//! suggestion.

/// One message of a chain as a person reads it
/// ([`jet_provider::messages::plain`]), with other catalogs' names
/// shortened too (`nwind.public.orders` → `nwind.orders`).
fn strip(s: &str) -> String {
    jet_provider::messages::plain(s).replace(".public.", ".")
}

/// The closest of `names` to `wanted` (ignoring case), when close enough
/// to be a likely misspelling.
pub fn closest<'a>(wanted: &str, names: &'a [String]) -> Option<&'a str> {
    let w = wanted.to_lowercase();
    let limit = (w.chars().count() / 3).max(2);
    names
        .iter()
        .map(|n| (strsim::levenshtein(&w, &n.to_lowercase()), n))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, n)| (*d, n.len()))
        .map(|(_, n)| n.as_str())
}

/// A "table not found" message with a suggestion from `names`.
fn suggest_table(msg: &str, names: &[String]) -> String {
    let Some(start) = msg.find("table '") else {
        return msg.to_string();
    };
    let rest = &msg[start + 7..];
    let Some(end) = rest.find("' not found") else {
        return msg.to_string();
    };
    let full = &rest[..end];
    let bare = full.rsplit('.').next().unwrap_or(full);
    match closest(bare, names) {
        Some(n) => format!("no table or saved query is named {full} (did you mean {n}?)"),
        None => format!("no table or saved query is named {full}"),
    }
}

/// The bare name inside a DataFusion column reference
/// (`'"Orders"."OrderID"'` → `OrderID`).
fn bare_column(reference: &str) -> String {
    let r = reference.trim_matches('\'');
    let last = r.rsplit("\".\"").next().unwrap_or(r);
    let last = last.rsplit('.').next().unwrap_or(last);
    last.trim_matches('"').to_string()
}

/// DataFusion's "No field named x. Did you mean 'y'?" (or "Valid fields
/// are …") as one line with a suggestion from `columns`.
fn suggest_column(msg: &str, columns: &[String]) -> Option<String> {
    let rest = msg.strip_prefix("No field named ")?;
    let (name, tail) = rest
        .split_once(". ")
        .or_else(|| rest.split_once(".\n"))
        .unwrap_or((rest.trim_end_matches('.'), ""));
    let name = name.trim_matches('"');
    let theirs = tail
        .strip_prefix("Did you mean ")
        .and_then(|t| t.split("?").next())
        .map(bare_column);
    let hint = theirs.or_else(|| closest(name, columns).map(str::to_string));
    Some(match hint {
        Some(h) => format!("no column is named {name} (did you mean {h}?)"),
        None => format!("no column is named {name}"),
    })
}

/// The Access dialect's unknown name (a parameter without a value) with a
/// suggestion from `columns`.
fn suggest_parameter(msg: &str, columns: &[String]) -> Option<String> {
    const NEEDLE: &str = "no table or column is named \"";
    let at = msg.find(NEEDLE)?;
    let name = msg[at + NEEDLE.len()..].split('"').next()?;
    let hint = closest(name, columns)?;
    Some(format!("{msg} (did you mean {hint}?)"))
}

/// `message` as a person reads it; `tables` are the tables and saved
/// queries of the open databases and `columns` their columns (for "did
/// you mean"); `verbose` keeps the whole chain of causes and every line,
/// else the innermost cause's first line.
pub fn for_people(message: &str, tables: &[String], columns: &[String], verbose: bool) -> String {
    let parts: Vec<String> = message.split("\ncaused by\n").map(strip).collect();
    if verbose {
        return parts.join("\n  caused by: ");
    }
    let inner = parts
        .iter()
        .rev()
        .find(|p| !p.is_empty())
        .cloned()
        .unwrap_or_default();
    if let Some(s) = suggest_column(&inner, columns) {
        return s;
    }
    let first = inner.lines().next().unwrap_or("").to_string();
    if first.contains("table '") && first.contains("' not found") {
        return suggest_table(&first, tables);
    }
    if let Some(s) = suggest_parameter(&first, columns) {
        return s;
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        ["Orders", "Order Details", "Customers", "Employees"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn prefixes_and_wrappers_go() {
        assert_eq!(
            for_people(
                "SQL error: ParserError(\"Expected: an expression, found: FROM at Line: 1, Column: 8\")",
                &[],
                &[],
                false
            ),
            "Expected: an expression, found: FROM at Line: 1, Column: 8"
        );
        assert_eq!(
            for_people(
                "Schema error: No field named orderidd. Did you mean 'orders.\"OrderID\"'?.",
                &[],
                &[],
                false
            ),
            "no column is named orderidd (did you mean OrderID?)"
        );
        let cols = ["OrderID".to_string(), "CustomerID".to_string()];
        assert_eq!(
            for_people(
                "Schema error: No field named custid.\nValid fields are a, b.",
                &[],
                &cols,
                false
            ),
            "no column is named custid"
        );
        assert_eq!(
            for_people(
                "Error during planning: the query needs a value for [OrderIDD]; no table or column is named \"OrderIDD\"",
                &[],
                &cols,
                false
            ),
            "the query needs a value for [OrderIDD]; no table or column is named \"OrderIDD\" (did you mean OrderID?)"
        );
    }

    #[test]
    fn misspelt_tables_get_a_suggestion() {
        assert_eq!(
            for_people(
                "Error during planning: table 'datafusion.public.orderz' not found",
                &names(),
                &[],
                false
            ),
            "no table or saved query is named orderz (did you mean Orders?)"
        );
        assert_eq!(
            for_people(
                "Error during planning: table 'nwind.public.Emploees' not found",
                &names(),
                &[],
                false
            ),
            "no table or saved query is named nwind.Emploees (did you mean Employees?)"
        );
        assert_eq!(
            for_people(
                "Error during planning: table 'datafusion.public.xyz' not found",
                &names(),
                &[],
                false
            ),
            "no table or saved query is named xyz"
        );
    }

    #[test]
    fn chains_show_their_root_unless_verbose() {
        let e = "External error: writing row 3\ncaused by\nExecution error: value out of range";
        assert_eq!(for_people(e, &[], &[], false), "value out of range");
        assert_eq!(
            for_people(e, &[], &[], true),
            "writing row 3\n  caused by: value out of range"
        );
    }
}
