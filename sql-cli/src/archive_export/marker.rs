//! The completion marker of one source file of an archive export: written
//! (to a temporary name, then renamed) only after every part file of the
//! source is complete; it records the source's size and modification time,
//! so a re-run skips the source while it is unchanged and exports it again
//! when it changed.

use std::path::Path;
use std::time::UNIX_EPOCH;

/// What a marker records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    /// Source size in bytes.
    pub size: u64,
    /// Source modification time, nanoseconds since 1970 (0 if unknown).
    pub mtime_ns: u128,
    /// Tables written, with their rows.
    pub tables: Vec<(String, usize)>,
}

impl Marker {
    /// The size and modification time of `source` now, with `tables`.
    pub fn of(source: &Path, tables: Vec<(String, usize)>) -> std::io::Result<Marker> {
        let meta = std::fs::metadata(source)?;
        let mtime_ns = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        Ok(Marker {
            size: meta.len(),
            mtime_ns,
            tables,
        })
    }

    fn text(&self) -> String {
        let mut s = format!("size\t{}\nmtime_ns\t{}\n", self.size, self.mtime_ns);
        for (t, rows) in &self.tables {
            // names are written escaped: a tab or line break stays in one field
            s.push_str(&format!("table\t{}\t{rows}\n", t.escape_default()));
        }
        s
    }

    fn parse(text: &str) -> Option<Marker> {
        let mut size = None;
        let mut mtime_ns = None;
        let mut tables = Vec::new();
        for line in text.lines() {
            let mut f = line.split('\t');
            match f.next()? {
                "size" => size = f.next()?.parse().ok(),
                "mtime_ns" => mtime_ns = f.next()?.parse().ok(),
                "table" => {
                    let name = f.next()?.to_string();
                    tables.push((name, f.next()?.parse().ok()?));
                }
                _ => return None,
            }
        }
        Some(Marker {
            size: size?,
            mtime_ns: mtime_ns?,
            tables,
        })
    }

    /// Writes the marker at `path` atomically (temporary file, rename).
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = path.with_extension("done.partial");
        std::fs::write(&tmp, self.text())?;
        std::fs::rename(&tmp, path)
    }

    /// The marker at `path` when it exists, is whole, and matches
    /// `source` as it is now.
    pub fn complete(path: &Path, source: &Path) -> Option<Marker> {
        let m = Marker::parse(&std::fs::read_to_string(path).ok()?)?;
        let now = Marker::of(source, Vec::new()).ok()?;
        (m.size == now.size && m.mtime_ns == now.mtime_ns && now.mtime_ns != 0).then_some(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_round_trip_and_notice_changes() {
        let dir = std::env::temp_dir().join(format!("jet-marker-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let src = dir.join("a.mdb");
        std::fs::write(&src, b"abc").unwrap();
        let m = Marker::of(&src, vec![("Orders".into(), 12)]).unwrap();
        let at = dir.join("m/a.done");
        m.write(&at).unwrap();
        assert_eq!(Marker::complete(&at, &src), Some(m));
        std::fs::write(&src, b"abcd").unwrap();
        assert_eq!(Marker::complete(&at, &src), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
