//! Rebuilding Access SQL text from a query's attribute rows.
//!
//! The layout follows Jackcess's `toSQLString`: `PARAMETERS …;` on its own
//! line, then the statement with each clause (FROM, WHERE, GROUP BY,
//! HAVING, ORDER BY, PIVOT, …) on a new line, then `WITH OWNERACCESS
//! OPTION` on its own line when set, then `;`. Data-definition and
//! pass-through queries are their stored text alone.

use super::joins::from_list;
use super::kind::QueryKind;
use super::quote::{alias_to, optional_quoted_to};
use super::rows::QueryRow;
use crate::error::printable;

/// Line separator between clauses.
const NL: &str = "\n";

const TYPE: u8 = 1;
const PARAMETER: u8 = 2;
const FLAGS: u8 = 3;
const REMOTE_DB: u8 = 4;
const TABLE: u8 = 5;
const COLUMN: u8 = 6;
const JOIN: u8 = 7;
const WHERE: u8 = 8;
const GROUP_BY: u8 = 9;
const HAVING: u8 = 10;
const ORDER_BY: u8 = 11;

/// Flags row bits.
const SELECT_STAR: u16 = 0x01;
const DISTINCT: u16 = 0x02;
const OWNER_ACCESS: u16 = 0x04;
const DISTINCT_ROW: u16 = 0x08;
const TOP: u16 = 0x10;
const PERCENT: u16 = 0x20;
/// Flags row bit of a union query: set for `UNION`, clear for `UNION ALL`.
const UNION_DISTINCT: u16 = 0x02;
/// Column row flag of an append query's `VALUES` item.
const APPEND_VALUE: u16 = 0x8000;
/// Column and GROUP BY row flags of a crosstab query.
const CROSSTAB_PIVOT: u16 = 0x01;
const CROSSTAB_NORMAL: u16 = 0x02;

/// Union part ids (in the `Name2` of the two table rows of a union).
const UNION_PART1: &str = "X7YZ_____1";
const UNION_PART2: &str = "X7YZ_____2";

/// What a rebuild yields.
pub(crate) struct Built {
    pub sql: String,
    pub parameters: Vec<(String, String)>,
    pub connect: Option<String>,
}

/// The query's kind: `MSysObjects` flags bits 4–7, unless those say
/// "select" while the first type row names another known type.
pub(crate) fn kind_for(object_flags: u32, rows: &[QueryRow]) -> QueryKind {
    let bits = (object_flags & 0xF0) as u8;
    let mut kind = QueryKind::from_object_flag(bits);
    if bits == 0
        && let Some(k) = first_type_flag(rows).and_then(QueryKind::from_row_type)
    {
        kind = k;
    }
    kind
}

fn first_type_flag(rows: &[QueryRow]) -> Option<i16> {
    rows.iter()
        .find(|r| r.attribute == Some(TYPE))
        .and_then(|r| r.flag)
}

/// Rebuilds the text of a query of kind `kind` from its rows; the error
/// says what is wrong with the rows.
pub(crate) fn build(kind: QueryKind, rows: &[QueryRow]) -> Result<Built, String> {
    let Some(expected) = kind.row_type() else {
        return Err(format!(
            "its MSysObjects flags give query type {}, which this reader does not rebuild",
            kind.object_flag()
        ));
    };
    if let Some(found) = first_type_flag(rows)
        && found != expected
    {
        return Err(format!(
            "its MSysObjects flags make it a {kind} query but its type row says query type {found}"
        ));
    }
    let q = Rows { rows };
    let mut out = String::new();
    let mut parameters = Vec::new();
    let mut connect = None;
    match kind {
        QueryKind::DataDefinition | QueryKind::PassThrough => {
            let t = q.unique(TYPE)?;
            if kind == QueryKind::PassThrough {
                connect = t.and_then(|t| t.name1.clone());
            }
            // the stored text ends with the C terminator
            let text = t
                .and_then(|t| t.expression.as_deref())
                .map(|text| text.trim_end_matches('\0'))
                .filter(|text| !text.trim().is_empty())
                .ok_or("its stored SQL text is missing")?;
            out.push_str(text);
            return Ok(Built {
                sql: out,
                parameters,
                connect,
            });
        }
        _ => {}
    }
    parameters = q.parameters()?;
    if !parameters.is_empty() {
        out.push_str("PARAMETERS ");
        let list: Vec<String> = parameters
            .iter()
            .map(|(n, t)| format!("{} {t}", parameter_name(n)))
            .collect();
        out.push_str(&list.join(", "));
        out.push(';');
        out.push_str(NL);
    }
    match kind {
        QueryKind::Select => q.select(&mut out, true, &q.by(COLUMN), &q.by(GROUP_BY), None)?,
        QueryKind::MakeTable => {
            let t = q.unique(TYPE)?;
            let target = t
                .and_then(|t| t.name1.as_deref())
                .ok_or("it names no target table")?;
            let mut into = String::from(" INTO ");
            optional_quoted_to(&mut into, target, true);
            remote_to(
                &mut into,
                t.and_then(|t| t.name2.as_deref()),
                t.and_then(|t| t.expression.as_deref()),
            );
            q.select(&mut out, true, &q.by(COLUMN), &q.by(GROUP_BY), Some(&into))?
        }
        QueryKind::Delete => {
            out.push_str("DELETE ");
            q.select(&mut out, false, &q.by(COLUMN), &q.by(GROUP_BY), None)?
        }
        QueryKind::Crosstab => q.crosstab(&mut out)?,
        QueryKind::Append => q.append(&mut out)?,
        QueryKind::Update => q.update(&mut out)?,
        QueryKind::Union => q.union(&mut out)?,
        QueryKind::DataDefinition | QueryKind::PassThrough | QueryKind::Unknown(_) => {}
    }
    if q.flags()? & OWNER_ACCESS != 0 {
        out.push_str(NL);
        out.push_str("WITH OWNERACCESS OPTION");
    }
    out.push(';');
    Ok(Built {
        sql: out,
        parameters,
        connect,
    })
}

/// A query's rows, with the look-ups the clauses need.
struct Rows<'a> {
    rows: &'a [QueryRow],
}

/// How a row of attribute `a` is named in messages.
fn attribute_name(a: u8) -> &'static str {
    match a {
        TYPE => "type",
        FLAGS => "flags",
        REMOTE_DB => "remote database",
        WHERE => "WHERE",
        HAVING => "HAVING",
        _ => "attribute",
    }
}

impl<'a> Rows<'a> {
    /// Every row of attribute `a`, in order.
    fn by(&self, a: u8) -> Vec<&'a QueryRow> {
        self.rows
            .iter()
            .filter(|r| r.attribute == Some(a))
            .collect()
    }

    /// The one row of attribute `a`, if any; two or more is an error.
    fn unique(&self, a: u8) -> Result<Option<&'a QueryRow>, String> {
        let mut it = self.rows.iter().filter(|r| r.attribute == Some(a));
        let first = it.next();
        if first.is_some() && it.next().is_some() {
            return Err(format!(
                "it has more than one {} row (attribute {a})",
                attribute_name(a)
            ));
        }
        Ok(first)
    }

    /// The flags row's bits (0 without one).
    fn flags(&self) -> Result<u16, String> {
        Ok(self
            .unique(FLAGS)?
            .and_then(|r| r.flag)
            .map_or(0, |f| f as u16))
    }

    /// Declared parameters: name and type name (`Text(n)` for a sized
    /// Text parameter).
    fn parameters(&self) -> Result<Vec<(String, String)>, String> {
        self.by(PARAMETER)
            .into_iter()
            .map(|r| {
                let name = r.name1.clone().ok_or("a parameter has no name")?;
                let code = r.flag.unwrap_or(0);
                let ty = match code {
                    0 => "Value",
                    1 => "Bit",
                    2 => "Byte",
                    3 => "Short",
                    4 => "Long",
                    5 => "Currency",
                    6 => "IEEESingle",
                    7 => "IEEEDouble",
                    8 => "DateTime",
                    9 => "Binary",
                    10 => "Text",
                    11 => "LongBinary",
                    15 => "Guid",
                    other => {
                        return Err(format!(
                            "parameter \"{}\" has the unknown type code {other}",
                            printable(&name)
                        ));
                    }
                };
                let ty = match r.extra {
                    Some(n) if code == 10 && n > 0 => format!("{ty}({n})"),
                    _ => ty.to_string(),
                };
                Ok((name, ty))
            })
            .collect()
    }

    /// `SELECT [DISTINCT|DISTINCTROW|TOP n [PERCENT]] cols [INTO t] FROM …
    /// WHERE … GROUP BY … HAVING … ORDER BY …` (without the `SELECT …`
    /// word and predicate when `prefix` is false, as DELETE needs).
    fn select(
        &self,
        out: &mut String,
        prefix: bool,
        columns: &[&QueryRow],
        group_by: &[&QueryRow],
        into: Option<&str>,
    ) -> Result<(), String> {
        let flags = self.flags()?;
        if prefix {
            out.push_str("SELECT ");
            if flags & DISTINCT != 0 {
                out.push_str("DISTINCT ");
            } else if flags & DISTINCT_ROW != 0 {
                out.push_str("DISTINCTROW ");
            }
            // Jackcess writes TOP only without DISTINCT[ROW], losing it from
            // `SELECT DISTINCTROW TOP 10` (Northwind's "Ten Most Expensive
            // Products"); Access writes both, and so does this.
            if flags & TOP != 0 {
                let n = self
                    .unique(FLAGS)?
                    .and_then(|r| r.name1.as_deref())
                    .ok_or("its TOP predicate has no count")?;
                out.push_str("TOP ");
                out.push_str(n);
                if flags & PERCENT != 0 {
                    out.push_str(" PERCENT");
                }
                out.push(' ');
            }
        }
        let mut items = Vec::with_capacity(columns.len() + 1);
        for c in columns {
            let mut item = c
                .expression
                .clone()
                .ok_or("an output column has no expression")?;
            alias_to(&mut item, c.name1.as_deref());
            items.push(item);
        }
        if flags & SELECT_STAR != 0 {
            items.push("*".to_string());
        }
        out.push_str(&items.join(", "));
        if let Some(into) = into {
            out.push_str(into);
        }
        let from = from_list(&self.by(TABLE), &self.by(JOIN))?;
        if !from.is_empty() {
            out.push_str(NL);
            out.push_str("FROM ");
            out.push_str(&from.join(", "));
            self.remote_db(out)?;
        }
        self.where_clause(out)?;
        if !group_by.is_empty() {
            let list = expressions(group_by, "a GROUP BY item has no expression")?;
            out.push_str(NL);
            out.push_str("GROUP BY ");
            out.push_str(&list.join(", "));
        }
        if let Some(e) = self.unique(HAVING)?.and_then(|r| r.expression.as_deref()) {
            out.push_str(NL);
            out.push_str("HAVING ");
            out.push_str(e);
        }
        self.order_by(out)
    }

    /// ` IN 'path' [type]` from the remote database row, if any.
    fn remote_db(&self, out: &mut String) -> Result<(), String> {
        let r = self.unique(REMOTE_DB)?;
        remote_to(
            out,
            r.and_then(|r| r.name1.as_deref()),
            r.and_then(|r| r.expression.as_deref()),
        );
        Ok(())
    }

    /// `\nWHERE …` from the WHERE row, if it has an expression.
    fn where_clause(&self, out: &mut String) -> Result<(), String> {
        if let Some(e) = self.unique(WHERE)?.and_then(|r| r.expression.as_deref()) {
            out.push_str(NL);
            out.push_str("WHERE ");
            out.push_str(e);
        }
        Ok(())
    }

    /// `\nORDER BY a, b DESC` from the ORDER BY rows (`Name1` "D" for DESC).
    fn order_by(&self, out: &mut String) -> Result<(), String> {
        let rows = self.by(ORDER_BY);
        if rows.is_empty() {
            return Ok(());
        }
        let mut items = Vec::with_capacity(rows.len());
        for r in rows {
            let mut item = r
                .expression
                .clone()
                .ok_or("an ORDER BY item has no expression")?;
            if r.name1
                .as_deref()
                .is_some_and(|d| d.eq_ignore_ascii_case("D"))
            {
                item.push_str(" DESC");
            }
            items.push(item);
        }
        out.push_str(NL);
        out.push_str("ORDER BY ");
        out.push_str(&items.join(", "));
        Ok(())
    }

    /// `TRANSFORM agg\nSELECT …\nPIVOT expr`: the column row with neither
    /// crosstab flag is the TRANSFORM value, the one with the pivot flag
    /// the PIVOT expression; columns and GROUP BY items are those with the
    /// "normal" flag.
    fn crosstab(&self, out: &mut String) -> Result<(), String> {
        let has = |r: &&QueryRow, bit: u16| r.flag.is_some_and(|f| f as u16 & bit != 0);
        let columns = self.by(COLUMN);
        let mut transform = columns
            .iter()
            .filter(|r| !has(r, CROSSTAB_PIVOT | CROSSTAB_NORMAL));
        let value = transform.next();
        if transform.next().is_some() {
            return Err("it has more than one TRANSFORM value".into());
        }
        let mut pivots = columns.iter().filter(|r| has(r, CROSSTAB_PIVOT));
        let pivot = pivots.next();
        if pivots.next().is_some() {
            return Err("it has more than one PIVOT column".into());
        }
        let pivot = pivot
            .and_then(|r| r.expression.as_deref())
            .ok_or("it has no PIVOT expression")?;
        if let Some(v) = value
            && let Some(e) = &v.expression
        {
            out.push_str("TRANSFORM ");
            out.push_str(e);
            alias_to(out, v.name1.as_deref());
            out.push_str(NL);
        }
        let normal: Vec<&QueryRow> = columns
            .iter()
            .copied()
            .filter(|r| has(r, CROSSTAB_NORMAL))
            .collect();
        let group_by: Vec<&QueryRow> = self
            .by(GROUP_BY)
            .into_iter()
            .filter(|r| has(r, CROSSTAB_NORMAL))
            .collect();
        self.select(out, true, &normal, &group_by, None)?;
        out.push_str(NL);
        out.push_str("PIVOT ");
        out.push_str(pivot);
        Ok(())
    }

    /// `INSERT INTO t (cols) [IN …]\nVALUES (…)` or `… \nSELECT …`.
    fn append(&self, out: &mut String) -> Result<(), String> {
        let t = self.unique(TYPE)?;
        let target = t
            .and_then(|t| t.name1.as_deref())
            .ok_or("it names no target table")?;
        out.push_str("INSERT INTO ");
        optional_quoted_to(out, target, true);
        let columns = self.by(COLUMN);
        let targets: Vec<String> = columns
            .iter()
            .filter_map(|r| r.name2.as_deref())
            .map(|n| {
                let mut s = String::new();
                optional_quoted_to(&mut s, n, true);
                s
            })
            .collect();
        if !targets.is_empty() {
            out.push_str(" (");
            out.push_str(&targets.join(", "));
            out.push(')');
        }
        remote_to(
            out,
            t.and_then(|t| t.name2.as_deref()),
            t.and_then(|t| t.expression.as_deref()),
        );
        out.push_str(NL);
        let is_value = |r: &&QueryRow| r.flag.is_some_and(|f| f as u16 & APPEND_VALUE != 0);
        let values: Vec<&QueryRow> = columns.iter().copied().filter(is_value).collect();
        if values.is_empty() {
            let selected: Vec<&QueryRow> =
                columns.iter().copied().filter(|r| !is_value(r)).collect();
            self.select(out, true, &selected, &self.by(GROUP_BY), None)
        } else {
            let list = expressions(&values, "a VALUES item has no expression")?;
            out.push_str("VALUES (");
            out.push_str(&list.join(", "));
            out.push(')');
            Ok(())
        }
    }

    /// `UPDATE tables [IN …]\nSET col = expr, …\nWHERE …`.
    fn update(&self, out: &mut String) -> Result<(), String> {
        let tables = from_list(&self.by(TABLE), &self.by(JOIN))?;
        out.push_str("UPDATE ");
        out.push_str(&tables.join(", "));
        self.remote_db(out)?;
        let mut sets = Vec::new();
        for r in self.by(COLUMN) {
            let target = r.name2.as_deref().ok_or("a SET item names no column")?;
            let value = r
                .expression
                .as_deref()
                .ok_or("a SET item has no expression")?;
            let mut s = String::new();
            optional_quoted_to(&mut s, target, true);
            s.push_str(" = ");
            s.push_str(value);
            sets.push(s);
        }
        out.push_str(NL);
        out.push_str("SET ");
        out.push_str(&sets.join(", "));
        self.where_clause(out)
    }

    /// `part1\nUNION [ALL] part2\nORDER BY …`: the two parts are stored
    /// whole in the table rows whose `Name2` is the part id.
    fn union(&self, out: &mut String) -> Result<(), String> {
        let part = |id: &str| {
            self.by(TABLE)
                .into_iter()
                .find(|r| r.name2.as_deref() == Some(id))
                .and_then(|r| r.expression.as_deref())
                .map(clean_union_part)
        };
        let one = part(UNION_PART1).ok_or("its first union part is missing")?;
        let two = part(UNION_PART2).ok_or("its second union part is missing")?;
        out.push_str(&one);
        out.push_str(NL);
        out.push_str("UNION ");
        if self.flags()? & UNION_DISTINCT == 0 {
            out.push_str("ALL ");
        }
        out.push_str(&two);
        self.order_by(out)
    }
}

/// The expressions of `rows`; `missing` when one has none.
fn expressions(rows: &[&QueryRow], missing: &str) -> Result<Vec<String>, String> {
    rows.iter()
        .map(|r| r.expression.clone().ok_or_else(|| missing.to_string()))
        .collect()
}

/// A union part as stored, trimmed of leading and trailing blanks and
/// control characters, with each run of line breaks made one [`NL`].
fn clean_union_part(text: &str) -> String {
    let trimmed = text.trim_matches(|c: char| c <= ' ');
    let mut out = String::with_capacity(trimmed.len());
    let mut in_break = false;
    for c in trimmed.chars() {
        if c == '\r' || c == '\n' {
            if !in_break {
                out.push_str(NL);
            }
            in_break = true;
        } else {
            out.push(c);
            in_break = false;
        }
    }
    out
}

/// Appends ` IN 'path' [type]` when either is known (the path, possibly
/// empty, is always written).
fn remote_to(out: &mut String, path: Option<&str>, kind: Option<&str>) {
    if path.is_none() && kind.is_none() {
        return;
    }
    out.push_str(" IN '");
    out.push_str(path.unwrap_or(""));
    out.push('\'');
    if let Some(k) = kind {
        out.push_str(" [");
        out.push_str(k);
        out.push(']');
    }
}

/// A parameter's name as Access's SQL view writes it: in brackets when it
/// is not a plain name (`[Beginning Date]`), a form reference part by part
/// (`Forms![Sales by Year Dialog]!BeginningDate`); a name stored with its
/// brackets stays as stored. Jackcess prints the stored name bare, which
/// does not parse back when it holds a space.
fn parameter_name(name: &str) -> String {
    let plain = |p: &str| !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_');
    if name.starts_with('[') || plain(name) {
        return name.to_string();
    }
    let lower = name.to_ascii_lowercase();
    if lower.starts_with("forms!") || lower.starts_with("reports!") {
        return name
            .split('!')
            .map(|p| {
                if plain(p) || p.starts_with('[') {
                    p.to_string()
                } else {
                    format!("[{p}]")
                }
            })
            .collect::<Vec<_>>()
            .join("!");
    }
    format!("[{name}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn union_parts_are_cleaned() {
        assert_eq!(clean_union_part("  a\r\nb\r\n\r\nc\r\n\0"), "a\nb\nc");
    }
}
