//! `jetsql export PATTERN` over an archive of 200 generated databases
//! (and one damaged file): the Hive layout, row counts equal to the rows
//! the generator wrote, a re-run that skips every complete file, and
//! `jet_files(…, 'skip_errors')` in a query reporting the damaged file.

use assert_cmd::Command;
use datafusion::parquet::file::reader::{FileReader, SerializedFileReader};
use jet_fixtures::archive::{SITES, Variant, archive_file, damage, write_archive};
use std::path::Path;

fn jetsql() -> Command {
    let mut c = Command::cargo_bin("jetsql").expect("the jetsql binary is built");
    c.env_remove("JETSQL_SAMPLE");
    c
}

fn parquet_rows(path: &Path) -> i64 {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    SerializedFileReader::new(f)
        .unwrap()
        .metadata()
        .file_metadata()
        .num_rows()
}

#[test]
fn archive_export_writes_a_hive_layout_and_resumes() {
    let src = tempfile::tempdir().unwrap();
    let entries = write_archive(src.path(), 200).unwrap();
    let damaged = src.path().join("2021/damaged.mdb");
    std::fs::write(&damaged, archive_file(9_999, Variant::Plain).unwrap().0).unwrap();
    damage(&damaged).unwrap();
    let out = tempfile::tempdir().unwrap();
    let pattern = format!("{}/**/*.mdb", src.path().display());
    let run = || {
        jetsql()
            .args(["export", &pattern, "--to"])
            .arg(out.path())
            .args(["--format", "parquet"])
            .output()
            .unwrap()
    };
    let first = run();
    let stdout = String::from_utf8_lossy(&first.stdout);
    let stderr = String::from_utf8_lossy(&first.stderr);
    // the damaged file fails (named), the others are exported
    assert!(!first.status.success(), "{stdout}{stderr}");
    assert!(stderr.contains("damaged.mdb"), "{stderr}");
    let total: usize = entries.iter().map(|e| e.rows.len()).sum();
    assert!(
        stdout.contains(&format!(
            "200 files exported (400 parts, {} rows), 0 skipped (complete), 1 failed",
            total + 200 * SITES.len()
        )),
        "{stdout}"
    );
    for e in &entries {
        let stem = e.path.file_stem().unwrap().to_string_lossy().into_owned();
        let orders = out
            .path()
            .join("Orders")
            .join(format!("_file={stem}"))
            .join("part-0.parquet");
        assert_eq!(
            parquet_rows(&orders),
            e.rows.len() as i64,
            "{}",
            orders.display()
        );
        let sites = out
            .path()
            .join("Sites")
            .join(format!("_file={stem}"))
            .join("part-0.parquet");
        assert_eq!(parquet_rows(&sites), SITES.len() as i64);
    }
    // nothing half-written is left, and the damaged file has no parts
    let mut leftovers = Vec::new();
    for table in ["Orders", "Sites"] {
        for d in std::fs::read_dir(out.path().join(table)).unwrap() {
            let d = d.unwrap().path();
            for f in std::fs::read_dir(&d).unwrap() {
                let name = f.unwrap().file_name().to_string_lossy().into_owned();
                if name != "part-0.parquet" {
                    leftovers.push(format!("{}/{name}", d.display()));
                }
            }
        }
        assert!(!out.path().join(table).join("_file=damaged").exists());
    }
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // the re-run skips every complete file and retries the damaged one
    let stamp = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let some_part = out.path().join("Orders/_file=site_0042/part-0.parquet");
    let before = stamp(&some_part);
    let second = run();
    let stdout = String::from_utf8_lossy(&second.stdout);
    assert!(
        stdout.contains("0 files exported (0 parts, 0 rows), 200 skipped (complete), 1 failed"),
        "{stdout}"
    );
    assert_eq!(
        stamp(&some_part),
        before,
        "a complete file was written again"
    );
    // a changed source is exported again
    std::fs::copy(&entries[5].path, &entries[42].path).unwrap();
    let third = run();
    let stdout = String::from_utf8_lossy(&third.stdout);
    assert!(
        stdout.contains(&format!(
            "1 files exported (2 parts, {} rows), 199 skipped (complete), 1 failed",
            entries[5].rows.len() + SITES.len()
        )),
        "{stdout}"
    );
    assert_eq!(parquet_rows(&some_part), entries[5].rows.len() as i64);
}

#[test]
fn jet_files_in_a_query_reports_skipped_files() {
    let src = tempfile::tempdir().unwrap();
    let entries = write_archive(src.path(), 12).unwrap();
    let damaged = src.path().join("2019/damaged.mdb");
    std::fs::write(&damaged, archive_file(9_999, Variant::Plain).unwrap().0).unwrap();
    damage(&damaged).unwrap();
    let total: usize = entries.iter().map(|e| e.rows.len()).sum();
    let pattern = format!("{}/**/*.mdb", src.path().display());
    let out = jetsql()
        .args([
            "--format",
            "csv",
            "-c",
            &format!("SELECT count(*) AS n FROM jet_files('{pattern}', 'Orders', 'skip_errors')"),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert_eq!(stdout.trim(), format!("n\n{total}"));
    assert!(
        stderr.contains("warning:") && stderr.contains("damaged.mdb"),
        "{stderr}"
    );
    // without the option the query fails naming the file
    let out = jetsql()
        .args([
            "-c",
            &format!("SELECT count(*) FROM jet_files('{pattern}', 'Orders')"),
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("damaged.mdb"), "{stderr}");
}
