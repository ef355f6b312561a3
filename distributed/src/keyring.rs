//! Passwords of a cluster node. Plans sent between client, scheduler and
//! executors never carry a password; each process that opens a database
//! takes it from its own keyring, read from a file its operator controls.
//!
//! The file has one rule per line, `PATTERN = PASSWORD`: the pattern a
//! glob over absolute paths (`/data/archive/**/*.mdb`, `*` for every
//! file), the password everything after the first ` = ` (kept as written,
//! spaces included). Blank lines and lines starting with `#` are ignored.
//! The first rule whose pattern matches a file gives its password; a file
//! no rule matches is opened without one.

use glob::Pattern;
use jet_storage::Password;
use std::path::Path;

/// Passwords by file pattern (see the module docs). Its `Debug` never
/// shows a password.
#[derive(Clone, Default)]
pub struct Keyring {
    rules: Vec<(Pattern, Password)>,
}

impl std::fmt::Debug for Keyring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.rules.iter().map(|(p, _)| p.as_str()))
            .finish()
    }
}

/// A keyring file that could not be used: the line and what is wrong.
#[derive(Debug, thiserror::Error)]
pub enum KeyringError {
    /// The file could not be read.
    #[error("cannot read the password file {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not `PATTERN = PASSWORD` or its pattern is not a glob.
    #[error("password file line {line}: {why}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What is wrong (never the password).
        why: String,
    },
}

impl Keyring {
    /// The keyring of `text` (the file format of the module docs).
    pub fn parse(text: &str) -> Result<Keyring, KeyringError> {
        let mut rules = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim_start();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((pattern, password)) = line.split_once(" = ") else {
                return Err(KeyringError::Line {
                    line: i + 1,
                    why: "expected PATTERN = PASSWORD".into(),
                });
            };
            let pattern = Pattern::new(pattern.trim()).map_err(|e| KeyringError::Line {
                line: i + 1,
                why: format!("the pattern is not a valid glob ({})", e.msg),
            })?;
            rules.push((pattern, Password::new(password)));
        }
        Ok(Keyring { rules })
    }

    /// The keyring in the file at `path`.
    pub fn read(path: &Path) -> Result<Keyring, KeyringError> {
        let text = std::fs::read_to_string(path).map_err(|source| KeyringError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Keyring::parse(&text)
    }

    /// A keyring with one password for every file.
    pub fn everywhere(password: Password) -> Keyring {
        Keyring {
            rules: vec![(Pattern::new("*").expect("a valid glob"), password)],
        }
    }

    /// The password for the file at `path`: the first matching rule's, if
    /// any (a `*` in a pattern also matches `/`, so `*` matches every
    /// path).
    pub fn password_for(&self, path: &Path) -> Option<Password> {
        self.rules
            .iter()
            .find(|(p, _)| p.matches_path(path))
            .map(|(_, pw)| pw.clone())
    }

    /// How many rules the keyring has.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    /// Whether the keyring has no rule.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_matching_rule_gives_the_password() {
        let k = Keyring::parse(
            "# archive passwords\n\n/data/secret/*.accdb = two words \n/data/** = other\n",
        )
        .unwrap();
        assert_eq!(k.len(), 2);
        let pw = |p: &str| k.password_for(Path::new(p)).map(|p| format!("{p:?}"));
        assert!(pw("/data/secret/a.accdb").is_some());
        assert!(pw("/data/x/y.mdb").is_some());
        assert!(pw("/elsewhere/a.mdb").is_none());
        // the two rules give different passwords: the first rule wins
        let first = k.password_for(Path::new("/data/secret/a.accdb")).unwrap();
        let second = k.password_for(Path::new("/data/x/y.mdb")).unwrap();
        assert_ne!(first, second);
        assert_eq!(first, Password::new("two words "));
        assert!(!format!("{k:?}").contains("two words"));
    }

    #[test]
    fn bad_lines_are_named() {
        let e = Keyring::parse("/a/* = x\nno separator here\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "password file line 2: expected PATTERN = PASSWORD"
        );
        let e = Keyring::parse("[ = x\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("password file line 1: the pattern")
        );
        assert!(Keyring::parse("").unwrap().is_empty());
        let all = Keyring::everywhere(Password::new("pw"));
        assert!(all.password_for(Path::new("/any/where.mdb")).is_some());
    }
}
