//! The options of a multi-file table, from the library or from the third
//! argument of `jet_files(…)` (`'skip_errors, max_open=16'`).

use datafusion::error::{DataFusionError, Result};

/// How a multi-file table reads its files.
#[derive(Clone)]
pub struct JetFilesOptions {
    /// A file that cannot be read (damaged, without the table, wrong
    /// password) is left out and reported in the table's warnings
    /// ([`super::ArchiveStats::take_warnings`]) instead of failing the
    /// query. A file failing in the middle of its rows keeps the rows read
    /// before the failure; the warning says how many.
    pub skip_errors: bool,
    /// The most files open at once, over every scan of the table
    /// (default 64); thousands of files never need more descriptors.
    pub max_open: usize,
    /// The password of every file (one for the whole archive). Never shown.
    pub password: Option<jet_storage::Password>,
    /// A file larger than this many bytes is read in several parts (page
    /// ranges of its table) when the session has the partitions for them
    /// (default 64 MiB).
    pub split_bytes: u64,
    /// Filters become index seeks in every file (as for one database).
    pub pushdown: bool,
    /// Rows per batch.
    pub batch_size: usize,
}

impl Default for JetFilesOptions {
    fn default() -> Self {
        JetFilesOptions {
            skip_errors: false,
            max_open: 64,
            password: None,
            split_bytes: 64 << 20,
            pushdown: true,
            batch_size: 8192,
        }
    }
}

impl std::fmt::Debug for JetFilesOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JetFilesOptions")
            .field("skip_errors", &self.skip_errors)
            .field("max_open", &self.max_open)
            .field("password", &self.password.as_ref().map(|_| "…"))
            .field("split_bytes", &self.split_bytes)
            .field("pushdown", &self.pushdown)
            .field("batch_size", &self.batch_size)
            .finish()
    }
}

impl JetFilesOptions {
    /// The single-file options each file's scan runs with.
    pub(crate) fn jet_options(&self) -> crate::JetOptions {
        crate::JetOptions {
            pushdown: self.pushdown,
            batch_size: self.batch_size,
            password: self.password.clone(),
            ..crate::JetOptions::default()
        }
    }

    /// These options changed by `text`: a list separated by commas of
    /// `skip_errors`, `skip_errors=true|false`, `max_open=N`,
    /// `split_mb=N`, `pushdown=true|false`, `password=TEXT`. An unknown
    /// key or a bad value is an error naming it.
    pub fn parse(mut self, text: &str) -> Result<Self> {
        for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            let (key, value) = match item.split_once('=') {
                Some((k, v)) => (k.trim().to_ascii_lowercase(), Some(v.trim())),
                None => (item.to_ascii_lowercase(), None),
            };
            let bad = || {
                DataFusionError::Plan(format!(
                    "jet_files option {key:?}: {:?} is not a valid value",
                    value.unwrap_or("")
                ))
            };
            let flag = |v: Option<&str>| match v.map(str::to_ascii_lowercase).as_deref() {
                None | Some("true") | Some("on") | Some("1") => Ok(true),
                Some("false") | Some("off") | Some("0") => Ok(false),
                _ => Err(bad()),
            };
            let number = |v: Option<&str>| {
                v.and_then(|v| v.parse::<u64>().ok())
                    .filter(|n| *n > 0)
                    .ok_or_else(bad)
            };
            match key.as_str() {
                "skip_errors" => self.skip_errors = flag(value)?,
                "pushdown" => self.pushdown = flag(value)?,
                "max_open" => self.max_open = number(value)? as usize,
                "split_mb" => self.split_bytes = number(value)?.saturating_mul(1 << 20),
                "password" => {
                    self.password = Some(jet_storage::Password::from(value.unwrap_or("")))
                }
                _ => {
                    return Err(DataFusionError::Plan(format!(
                        "jet_files has no option {key:?} (options: skip_errors, max_open=N, split_mb=N, pushdown=BOOL, password=TEXT)"
                    )));
                }
            }
        }
        Ok(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse_and_refuse() {
        let o = JetFilesOptions::default()
            .parse("skip_errors, max_open=8 ,split_mb=2")
            .unwrap();
        assert!(o.skip_errors);
        assert_eq!(o.max_open, 8);
        assert_eq!(o.split_bytes, 2 << 20);
        assert!(JetFilesOptions::default().parse("max_open=0").is_err());
        let e = JetFilesOptions::default().parse("colour=red").unwrap_err();
        assert!(e.to_string().contains("colour"));
        let o = JetFilesOptions::default().parse("password=s3cret").unwrap();
        assert!(o.password.is_some());
        assert!(!format!("{o:?}").contains("s3cret"));
    }
}
