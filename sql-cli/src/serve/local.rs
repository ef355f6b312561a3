//! The statements a connection answers itself, without the engine:
//! `SET` / `SHOW` / `RESET` of session parameters (`jetsql.dialect`
//! chooses the SQL the connection reads), transaction control (`BEGIN`,
//! `COMMIT`, `ROLLBACK`, savepoints), `DISCARD`, `DEALLOCATE`, `LISTEN`.
//! Clients send these at connect and around every unit of work (JDBC sets
//! `extra_float_digits`, psycopg opens a transaction before its first
//! query), so each must answer as PostgreSQL does.

use jet_provider::SqlDialect;
use std::collections::BTreeMap;

/// A statement the connection answers itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Local {
    /// `SET name = value` (the value without quotes); `SET SESSION
    /// CHARACTERISTICS …` and `SET TRANSACTION …` as `Set(None)`.
    Set(Option<(String, String)>),
    /// `SHOW name` (lower case) or `SHOW ALL` (`None`).
    Show(Option<String>),
    /// `RESET name` or `RESET ALL` (`None`).
    Reset(Option<String>),
    /// `BEGIN`, `START TRANSACTION`.
    Begin,
    /// `COMMIT`, `END`.
    Commit,
    /// `ROLLBACK`, `ABORT`.
    Rollback,
    /// `SAVEPOINT`, `RELEASE`, `ROLLBACK TO`: the command tag.
    Savepoint(&'static str),
    /// `DISCARD ALL`.
    Discard,
    /// `DEALLOCATE …`, `LISTEN …`, `UNLISTEN …`: the command tag.
    Accepted(&'static str),
}

/// The words of `sql` before any quoted text, upper-cased, and the text.
fn words(sql: &str) -> Vec<String> {
    sql.split(|c: char| c.is_whitespace() || c == ';')
        .filter(|w| !w.is_empty())
        .map(|w| w.to_ascii_uppercase())
        .collect()
}

/// Reads `sql` as a local statement; `None` when it is the engine's
/// (`SHOW TABLES`, `SHOW COLUMNS`, and every other statement).
pub fn parse(sql: &str) -> Option<Local> {
    let sql = sql.trim().trim_end_matches(';').trim();
    let w = words(sql);
    let first = w.first()?.as_str();
    let second = w.get(1).map(String::as_str);
    Some(match first {
        "SET" => match second {
            Some("SESSION") if w.get(2).map(String::as_str) == Some("CHARACTERISTICS") => {
                Local::Set(None)
            }
            Some("TRANSACTION") => Local::Set(None),
            _ => Local::Set(Some(set_assignment(sql)?)),
        },
        "SHOW" => match second {
            None => return None,
            Some("ALL") if w.len() == 2 => Local::Show(None),
            Some("TRANSACTION")
                if w.get(2).map(String::as_str) == Some("ISOLATION")
                    && w.get(3).map(String::as_str) == Some("LEVEL")
                    && w.len() == 4 =>
            {
                Local::Show(Some("transaction_isolation".into()))
            }
            Some("TABLES" | "COLUMNS" | "FUNCTIONS" | "CREATE") => return None,
            Some(_) if w.len() == 2 => Local::Show(Some(unquote(sql[4..].trim()).to_lowercase())),
            Some(_) => return None,
        },
        "RESET" => match second {
            Some("ALL") => Local::Reset(None),
            Some(_) if w.len() == 2 => Local::Reset(Some(unquote(sql[5..].trim()).to_lowercase())),
            _ => return None,
        },
        "BEGIN" => Local::Begin,
        "START" if second == Some("TRANSACTION") => Local::Begin,
        "COMMIT" | "END" => Local::Commit,
        "ABORT" => Local::Rollback,
        "ROLLBACK" => {
            if w.iter().any(|x| x == "TO") {
                Local::Savepoint("ROLLBACK")
            } else {
                Local::Rollback
            }
        }
        "SAVEPOINT" => Local::Savepoint("SAVEPOINT"),
        "RELEASE" => Local::Savepoint("RELEASE"),
        "DISCARD" => Local::Discard,
        "DEALLOCATE" => Local::Accepted("DEALLOCATE"),
        "LISTEN" => Local::Accepted("LISTEN"),
        "UNLISTEN" => Local::Accepted("UNLISTEN"),
        _ => return None,
    })
}

/// `name` and `value` of `SET [SESSION | LOCAL] name {= | TO} value` or
/// `SET TIME ZONE value`.
fn set_assignment(sql: &str) -> Option<(String, String)> {
    let rest = sql[3..].trim_start();
    let rest = strip_word(rest, "SESSION")
        .or_else(|| strip_word(rest, "LOCAL"))
        .unwrap_or(rest);
    if let Some(zone) = strip_word(rest, "TIME").and_then(|r| strip_word(r, "ZONE")) {
        return Some(("timezone".into(), unquote(zone.trim()).to_string()));
    }
    let (name, value) = match rest.find('=') {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => {
            let i = rest.to_ascii_uppercase().find(" TO ")?;
            (&rest[..i], &rest[i + 4..])
        }
    };
    let name = unquote(name.trim()).to_lowercase();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    Some((name, unquote(value.trim()).to_string()))
}

/// `s` without the word `w` (any case) and the blanks after it.
fn strip_word<'a>(s: &'a str, w: &str) -> Option<&'a str> {
    let head = s.get(..w.len())?;
    let tail = &s[w.len()..];
    (head.eq_ignore_ascii_case(w) && tail.starts_with(char::is_whitespace))
        .then(|| tail.trim_start())
}

/// A value without its single or double quotes.
fn unquote(v: &str) -> &str {
    for q in ['\'', '"'] {
        if let Some(inner) = v.strip_prefix(q).and_then(|x| x.strip_suffix(q)) {
            return inner;
        }
    }
    v
}

/// The session parameters of one connection, with PostgreSQL's defaults
/// for those clients read.
#[derive(Debug, Clone)]
pub struct Settings {
    values: BTreeMap<String, String>,
    /// Whether the connection may write (its read-only defaults are off).
    writable: bool,
}

/// The parameters a connection starts with: name, value, what it is.
const DEFAULTS: &[(&str, &str, &str)] = &[
    ("application_name", "", "Sets the application name."),
    (
        "client_encoding",
        "UTF8",
        "The client's character set (only UTF8).",
    ),
    ("datestyle", "ISO, MDY", "How dates are written."),
    (
        "default_transaction_read_only",
        "on",
        "Whether statements may not write (on: read-only server or user).",
    ),
    (
        "extra_float_digits",
        "1",
        "Floats are written in their shortest exact form.",
    ),
    ("integer_datetimes", "on", "Date/time values are integers."),
    ("intervalstyle", "postgres", "How intervals are written."),
    ("is_superuser", "off", "Whether the user is a superuser."),
    (
        "jetsql.dialect",
        "access",
        "The SQL statements are read in: access or datafusion.",
    ),
    ("max_identifier_length", "63", "Longest identifier."),
    (
        "search_path",
        "public",
        "Where unqualified names are looked up.",
    ),
    ("server_encoding", "UTF8", "The database's character set."),
    (
        "server_version",
        super::SERVER_VERSION,
        "The PostgreSQL version clients see.",
    ),
    (
        "server_version_num",
        "160006",
        "The PostgreSQL version as a number.",
    ),
    (
        "standard_conforming_strings",
        "on",
        "Backslashes in strings are literal.",
    ),
    ("statement_timeout", "0", "Longest statement (0: no limit)."),
    (
        "timezone",
        "UTC",
        "Time zone of zoned values (Access values have none).",
    ),
    (
        "transaction_isolation",
        "serializable",
        "Each statement reads one committed image.",
    ),
    (
        "transaction_read_only",
        "on",
        "Whether statements may not write (on: read-only server or user).",
    ),
];

/// Every parameter's name, default value and description (the rows of
/// `pg_settings`).
pub fn defaults() -> impl Iterator<Item = (&'static str, &'static str, &'static str)> {
    DEFAULTS
        .iter()
        .copied()
        .chain([("max_index_keys", "32", "Most columns in an index.")])
}

impl Settings {
    /// The defaults, with the connection's dialect.
    pub fn new(dialect: SqlDialect, writable: bool) -> Settings {
        let mut s = Settings {
            values: DEFAULTS
                .iter()
                .map(|(k, v, _)| (k.to_string(), v.to_string()))
                .collect(),
            writable,
        };
        s.values
            .insert("jetsql.dialect".into(), dialect_name(dialect).into());
        if writable {
            for k in ["transaction_read_only", "default_transaction_read_only"] {
                s.values.insert(k.into(), "off".into());
            }
        }
        s
    }

    /// Whether the connection's statements may write now: it may, and
    /// `transaction_read_only` is off.
    pub fn writes_allowed(&self) -> bool {
        self.writable && self.get("transaction_read_only") == Some("off")
    }

    /// The value of `name` (lower case), if set.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }

    /// Every parameter: name, value, description.
    pub fn all(&self) -> Vec<(String, String, String)> {
        self.values
            .iter()
            .map(|(k, v)| {
                let what = DEFAULTS
                    .iter()
                    .find(|(n, _, _)| n == k)
                    .map_or("", |(_, _, d)| d);
                (k.clone(), v.clone(), what.to_string())
            })
            .collect()
    }

    /// Sets `name` to `value`; the dialect when `name` is
    /// `jetsql.dialect`. Refused (with the reason): another client
    /// encoding than UTF-8, a read-write transaction, an unknown dialect,
    /// and DataFusion's own options (a server's limits are its own).
    pub fn set(&mut self, name: &str, value: &str) -> Result<Option<SqlDialect>, String> {
        let mut dialect = None;
        match name {
            "client_encoding" | "names" => {
                let v = value.to_ascii_uppercase().replace(['-', '_'], "");
                if v != "UTF8" && v != "UNICODE" {
                    return Err(format!(
                        "client_encoding {value} is not supported: the server speaks UTF8 only"
                    ));
                }
                self.values.insert("client_encoding".into(), "UTF8".into());
                return Ok(None);
            }
            "jetsql.dialect" => {
                dialect = Some(match value.to_ascii_lowercase().as_str() {
                    "access" => SqlDialect::Access,
                    "datafusion" | "postgres" | "postgresql" => SqlDialect::DataFusion,
                    _ => {
                        return Err(format!(
                            "jetsql.dialect must be access or datafusion, not {value:?}"
                        ));
                    }
                });
            }
            "transaction_read_only" | "default_transaction_read_only" => {
                let v = match value.to_ascii_lowercase().as_str() {
                    "off" | "false" | "0" => "off",
                    "on" | "true" | "1" => "on",
                    _ => return Err(format!("{name} must be on or off, not {value:?}")),
                };
                if v == "off" && !self.writable {
                    return Err("this connection is read-only (a read-only server or user)".into());
                }
                self.values.insert(name.to_string(), v.into());
                if name == "default_transaction_read_only" {
                    self.values.insert("transaction_read_only".into(), v.into());
                }
                return Ok(None);
            }
            "statement_timeout" => {
                super::limits::parse_timeout(value)?;
            }
            n if n.starts_with("datafusion.") => {
                return Err(format!("{name} is the server's to set, not a client's"));
            }
            _ => {}
        }
        let stored = match dialect {
            Some(d) => dialect_name(d).to_string(),
            None => value.to_string(),
        };
        self.values.insert(name.to_string(), stored);
        Ok(dialect)
    }

    /// Puts `name` back to its default (`None`: every parameter);
    /// returns the dialect when that changes it.
    pub fn reset(&mut self, name: Option<&str>, start: SqlDialect) -> Option<SqlDialect> {
        match name {
            None => {
                *self = Settings::new(start, self.writable);
                Some(start)
            }
            Some(n) => {
                match DEFAULTS.iter().find(|(k, _, _)| *k == n) {
                    Some((k, _, _)) if self.writable && k.ends_with("transaction_read_only") => {
                        self.values.insert(k.to_string(), "off".into());
                    }
                    Some((k, v, _)) => {
                        self.values.insert(k.to_string(), v.to_string());
                    }
                    None => {
                        self.values.remove(n);
                    }
                }
                (n == "jetsql.dialect").then(|| {
                    self.values
                        .insert("jetsql.dialect".into(), dialect_name(start).into());
                    start
                })
            }
        }
    }
}

/// The name `SHOW jetsql.dialect` gives a dialect.
pub fn dialect_name(d: SqlDialect) -> &'static str {
    match d {
        SqlDialect::Access => "access",
        SqlDialect::DataFusion => "datafusion",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_clients_send() {
        assert_eq!(
            parse("SET extra_float_digits = 3"),
            Some(Local::Set(Some(("extra_float_digits".into(), "3".into()))))
        );
        assert_eq!(
            parse("SET application_name = 'PostgreSQL JDBC Driver'"),
            Some(Local::Set(Some((
                "application_name".into(),
                "PostgreSQL JDBC Driver".into()
            ))))
        );
        assert_eq!(
            parse("set SESSION jetsql.dialect TO datafusion;"),
            Some(Local::Set(Some((
                "jetsql.dialect".into(),
                "datafusion".into()
            ))))
        );
        assert_eq!(
            parse("SET TIME ZONE 'UTC'"),
            Some(Local::Set(Some(("timezone".into(), "UTC".into()))))
        );
        assert_eq!(
            parse("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED"),
            Some(Local::Set(None))
        );
        assert_eq!(
            parse("show TimeZone"),
            Some(Local::Show(Some("timezone".into())))
        );
        assert_eq!(parse("SHOW ALL"), Some(Local::Show(None)));
        assert_eq!(
            parse("show transaction isolation level"),
            Some(Local::Show(Some("transaction_isolation".into())))
        );
        assert_eq!(parse("SHOW TABLES"), None);
        assert_eq!(parse("BEGIN"), Some(Local::Begin));
        assert_eq!(
            parse("begin transaction isolation level serializable"),
            Some(Local::Begin)
        );
        assert_eq!(parse("START TRANSACTION READ ONLY"), Some(Local::Begin));
        assert_eq!(parse("END"), Some(Local::Commit));
        assert_eq!(parse("ROLLBACK"), Some(Local::Rollback));
        assert_eq!(
            parse("ROLLBACK TO SAVEPOINT a"),
            Some(Local::Savepoint("ROLLBACK"))
        );
        assert_eq!(
            parse("RELEASE SAVEPOINT a"),
            Some(Local::Savepoint("RELEASE"))
        );
        assert_eq!(parse("SELECT 1"), None);
        assert_eq!(
            parse("SET datafusion.execution.batch_size = 1"),
            Some(Local::Set(Some((
                "datafusion.execution.batch_size".into(),
                "1".into()
            ))))
        );
    }

    #[test]
    fn settings_refuse_what_the_server_cannot_do() {
        let mut s = Settings::new(SqlDialect::Access, false);
        assert_eq!(s.get("jetsql.dialect"), Some("access"));
        assert_eq!(
            s.set("jetsql.dialect", "DataFusion"),
            Ok(Some(SqlDialect::DataFusion))
        );
        assert_eq!(s.get("jetsql.dialect"), Some("datafusion"));
        assert!(s.set("jetsql.dialect", "oracle").is_err());
        assert!(s.set("client_encoding", "LATIN1").is_err());
        assert!(s.set("client_encoding", "utf-8").is_ok());
        assert!(s.set("datafusion.execution.batch_size", "1").is_err());
        assert!(s.set("transaction_read_only", "off").is_err());
        assert_eq!(
            s.reset(Some("jetsql.dialect"), SqlDialect::Access),
            Some(SqlDialect::Access)
        );
        assert_eq!(s.get("jetsql.dialect"), Some("access"));
    }
}
