//! Where an archive export puts things (documented in the README):
//!
//! ```text
//! OUT/<table>/_file=<value>/part-0.<ext>   one per table and source file
//! OUT/.jetsql-archive/<value>.done          a source file's completion marker
//! ```
//!
//! `<value>` is the source file's name without extension, escaped as
//! Hive escapes partition values (`%`, `/`, `\`, `=`, `:`, `#`, `?`, `*`,
//! `'`, `"`, `[`, `]`, `^`, `{`, `}` and control characters become
//! `%XX`); when two files of the archive share a name, both use their
//! path below the archive's common folder (folders joined with `_`)
//! instead. `<table>` is the table name with `/`, `\`, `:` and control
//! characters replaced by `_`.

use std::path::{Path, PathBuf};

/// The Hive partition column of an archive export.
pub const PARTITION: &str = "_file";

/// The folder of the completion markers, inside the target directory.
pub const MARKERS: &str = ".jetsql-archive";

/// `s` escaped as a Hive partition value.
pub fn hive_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_control() || "%/\\=:#?*'\"[]^{}".contains(c) {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        } else {
            out.push(c);
        }
    }
    if out.is_empty() {
        out.push_str("%00");
    }
    out
}

/// The folder name of table `name`.
pub fn table_dir(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c == '/' || c == '\\' || c == ':' || c.is_control() {
                '_'
            } else {
                c
            }
        })
        .collect();
    if s.is_empty() || s == "." || s == ".." || s.starts_with('.') {
        s.insert(0, '_');
    }
    s
}

/// The partition value of every file of `files` (see the module docs),
/// unique within the archive.
pub fn partition_values(files: &[PathBuf]) -> Vec<String> {
    let stem = |p: &Path| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let base = common_dir(files);
    let mut values: Vec<String> = files
        .iter()
        .map(|p| {
            let s = stem(p);
            if files.iter().filter(|q| stem(q) == s).count() > 1 {
                let rel = p.strip_prefix(&base).unwrap_or(p).with_extension("");
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                hive_escape(&parts.join("_"))
            } else {
                hive_escape(&s)
            }
        })
        .collect();
    // still equal (a_b/c and a/b_c): number the later ones
    for i in 0..values.len() {
        let base = values[i].clone();
        let mut n = 2;
        while values[..i].contains(&values[i]) {
            values[i] = format!("{base}~{n}");
            n += 1;
        }
    }
    values
}

/// The deepest folder holding every file of `files`.
fn common_dir(files: &[PathBuf]) -> PathBuf {
    let mut base: Option<PathBuf> = None;
    for f in files {
        let dir = f.parent().map(Path::to_path_buf).unwrap_or_default();
        base = Some(match base {
            None => dir,
            Some(b) => {
                let mut common = PathBuf::new();
                for (x, y) in b.components().zip(dir.components()) {
                    if x != y {
                        break;
                    }
                    common.push(x);
                }
                common
            }
        });
    }
    base.unwrap_or_default()
}

/// The part file of table `table` from the file with partition `value`.
pub fn part_path(out: &Path, table: &str, value: &str, ext: &str) -> PathBuf {
    out.join(table_dir(table))
        .join(format!("{PARTITION}={value}"))
        .join(format!("part-0.{ext}"))
}

/// The completion marker of the file with partition `value`.
pub fn marker_path(out: &Path, value: &str) -> PathBuf {
    out.join(MARKERS).join(format!("{value}.done"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_escaped_and_unique() {
        assert_eq!(hive_escape("a=b/c%"), "a%3Db%2Fc%25");
        assert_eq!(hive_escape("Zürich 2019"), "Zürich 2019");
        let files: Vec<PathBuf> = ["arc/2019/x.mdb", "arc/2020/x.mdb", "arc/2020/y.mdb"]
            .iter()
            .map(PathBuf::from)
            .collect();
        assert_eq!(partition_values(&files), ["2019_x", "2020_x", "y"]);
        assert_eq!(table_dir("a/b"), "a_b");
        assert_eq!(table_dir(".."), "_..");
    }
}
