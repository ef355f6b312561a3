//! Generates (if missing) the inflated scan-only bench files of
//! [`jet_benches::DATASETS`] and prints one line per file:
//! `name<TAB>path<TAB>table`. Used by `benches/compare.py`.

fn main() -> std::process::ExitCode {
    for d in jet_benches::DATASETS {
        match jet_benches::ensure(d) {
            Ok(p) => println!("{}\t{}\t{}", d.name, p.display(), d.table),
            Err(e) => {
                eprintln!("bench_data: {}: {e}", d.name);
                return std::process::ExitCode::FAILURE;
            }
        }
    }
    std::process::ExitCode::SUCCESS
}
