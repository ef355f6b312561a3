//! The files of a multi-file table: a glob (`archive/**/*.mdb`) or a
//! list of paths, expanded once, sorted, without duplicates.

use datafusion::error::{DataFusionError, Result};
use std::path::{Path, PathBuf};

/// Where the files of a multi-file table come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileSource {
    /// A glob pattern (`*`, `?`, `[..]`, and `**` for any depth of
    /// folders); a pattern without wildcards names one file.
    Glob(String),
    /// These files, in this order (duplicates dropped).
    List(Vec<PathBuf>),
}

impl From<&str> for FileSource {
    fn from(s: &str) -> Self {
        FileSource::Glob(s.to_string())
    }
}

impl From<Vec<PathBuf>> for FileSource {
    fn from(v: Vec<PathBuf>) -> Self {
        FileSource::List(v)
    }
}

/// Whether `s` holds a glob wildcard (`*`, `?` or `[`).
pub fn is_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

/// The files `source` names: a glob's regular files sorted by path, a
/// list as given (duplicates dropped). A pattern that is not a valid
/// glob, a folder that cannot be read, or a glob that matches no file is
/// an error naming the pattern.
pub fn expand(source: &FileSource) -> Result<Vec<PathBuf>> {
    let mut out: Vec<PathBuf> = match source {
        FileSource::List(v) => {
            let mut seen = std::collections::HashSet::new();
            v.iter().filter(|p| seen.insert(*p)).cloned().collect()
        }
        FileSource::Glob(pattern) => {
            if !is_glob(pattern) {
                vec![PathBuf::from(pattern)]
            } else {
                let paths = glob::glob(pattern).map_err(|e| {
                    DataFusionError::Plan(format!("{pattern:?} is not a valid file pattern: {e}"))
                })?;
                let mut out = Vec::new();
                for p in paths {
                    let p = p.map_err(|e| {
                        DataFusionError::Plan(format!(
                            "{pattern:?}: {}: {}",
                            e.path().display(),
                            e.error()
                        ))
                    })?;
                    if p.is_file() {
                        out.push(p);
                    }
                }
                out.sort();
                out
            }
        }
    };
    if out.is_empty() {
        return Err(DataFusionError::Plan(match source {
            FileSource::Glob(p) => format!("no file matches {p:?}"),
            FileSource::List(_) => "the list of files is empty".into(),
        }));
    }
    out.shrink_to_fit();
    Ok(out)
}

/// How a path is shown in `_file` and in messages: as given, with `/`
/// separators on every platform.
pub fn shown(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_sort_and_lists_dedup() {
        let dir = std::env::temp_dir().join(format!("jet-files-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("b/c")).unwrap();
        for f in ["b/c/2.mdb", "1.mdb", "b/3.mdb", "x.txt"] {
            std::fs::write(dir.join(f), b"").unwrap();
        }
        let pat = format!("{}/**/*.mdb", dir.display());
        let got = expand(&FileSource::Glob(pat)).unwrap();
        let rel: Vec<String> = got
            .iter()
            .map(|p| shown(p.strip_prefix(&dir).unwrap()))
            .collect();
        assert_eq!(rel, ["1.mdb", "b/3.mdb", "b/c/2.mdb"]);
        let none = expand(&FileSource::Glob(format!("{}/*.accdb", dir.display())));
        assert!(none.unwrap_err().to_string().contains("no file matches"));
        let list = expand(&FileSource::List(vec!["a".into(), "b".into(), "a".into()])).unwrap();
        assert_eq!(list, [PathBuf::from("a"), PathBuf::from("b")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
