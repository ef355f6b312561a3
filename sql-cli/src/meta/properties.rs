//! The Design View properties `\d TABLE` shows beside the columns: what a
//! person set in Access (descriptions, captions, formats, input masks,
//! validation rules, lookups), read from the table's property maps.

use jet_storage::Table;

/// Column properties shown one per line, in Design View's order.
const SHOWN: [(&str, &str); 6] = [
    ("Description", "description"),
    ("Caption", "caption"),
    ("Format", "format"),
    ("InputMask", "input mask"),
    ("ValidationRule", "validation rule"),
    ("ValidationText", "validation text"),
];

/// One `[column, property, value]` row per property a column of `t` has
/// set, lookups folded into one `lookup` row; columns in table order.
pub fn column_rows(t: &Table) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for c in &t.def().columns {
        for (prop, label) in SHOWN {
            if let Some(v) = t.property_text(&c.name, prop) {
                rows.push(vec![c.name.clone(), label.to_string(), one_line(&v)]);
            }
        }
        if let Some(v) = lookup(t, &c.name) {
            rows.push(vec![c.name.clone(), "lookup".to_string(), v]);
        }
    }
    rows
}

/// `[property, value]` rows of the table's own description and validation.
pub fn table_rows(t: &Table) -> Vec<Vec<String>> {
    [
        ("Description", "description"),
        ("ValidationRule", "validation rule"),
        ("ValidationText", "validation text"),
    ]
    .into_iter()
    .filter_map(|(prop, label)| {
        t.property_text("", prop)
            .map(|v| vec![label.to_string(), one_line(&v)])
    })
    .collect()
}

/// A column's lookup as one phrase: the control, where its rows come from,
/// and which column is stored, e.g. `combo box over SELECT … (stores
/// column 1 of 2)`. `None` for a plain text box or check box.
fn lookup(t: &Table, column: &str) -> Option<String> {
    let control = t.property_text(column, "DisplayControl")?;
    let control = match control.as_str() {
        "110" => "list box",
        "111" => "combo box",
        _ => return None,
    };
    let mut out = control.to_string();
    if let Some(source) = t.property_text(column, "RowSource") {
        let kind = t.property_text(column, "RowSourceType").unwrap_or_default();
        if kind.eq_ignore_ascii_case("Value List") {
            out.push_str(&format!(" of values {}", one_line(&source)));
        } else {
            out.push_str(&format!(" over {}", one_line(&source)));
        }
    }
    let bound = t.property_text(column, "BoundColumn");
    let count = t.property_text(column, "ColumnCount");
    match (bound, count) {
        (Some(b), Some(n)) => out.push_str(&format!(" (stores column {b} of {n})")),
        (Some(b), None) => out.push_str(&format!(" (stores column {b})")),
        _ => {}
    }
    if t.property_text(column, "AllowMultipleValues").as_deref() == Some("Yes") {
        out.push_str(", multiple values");
    }
    Some(out)
}

/// Text on one line: CR/LF pairs and lone line breaks become a space.
fn one_line(s: &str) -> String {
    s.replace("\r\n", " ").replace(['\r', '\n'], " ")
}
