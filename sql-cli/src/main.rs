//! `jetsql`: a SQL shell and batch tool over Microsoft Access databases,
//! on DataFusion, with export to Parquet, Arrow and CSV.
//!
//! Modules: `session` builds the DataFusion session and registers the
//! databases; `shell` runs statements and meta-commands; `script` splits
//! input into statements; `output` writes results; `meta` answers `\d`;
//! `repl` is the interactive loop; `export` writes tables to files;
//! `legacy` keeps the storage-level subcommands.

mod archive_export;
mod attachments;
mod errors;
mod export;
mod export_views;
mod legacy;
mod lists_text;
mod meta;
mod migrate;
mod output;
mod password;
mod protect;
mod recover;
mod render;
mod repl;
mod sample;
mod script;
mod serve;
mod session;
mod shell;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use output::Format;
use session::OpenRequest;
use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;

const EXAMPLES: &str = "\
Examples:
  jetsql nwind.mdb                               interactive shell
  jetsql nwind.mdb -c 'SELECT count(*) FROM orders'
  jetsql nwind.mdb --format json -f report.sql
  echo 'SELECT 1;' | jetsql nwind.mdb
  jetsql a.mdb b.accdb -c 'SELECT * FROM b.public.t'
  jetsql --write copy.mdb -c \"INSERT INTO t SELECT * FROM 'data.parquet'\"
  jetsql export nwind.mdb --to out/ --format parquet
  jetsql dump nwind.mdb --to postgres -o nwind.sql
  jetsql migrate nwind.mdb nwind.sqlite
  jetsql migrate nwind.mdb postgresql://user@localhost/nwind
With no FILE, jetsql opens the sample database built into it. A file
named like a subcommand (export, tables, ...) opens as ./NAME.";

#[derive(Parser)]
#[command(
    name = "jetsql",
    version = concat!(env!("CARGO_PKG_VERSION"), " (git ", env!("JETSQL_GIT_REV"), ")"),
    about = "SQL shell and batch tool for Microsoft Access (.mdb/.accdb) databases",
    long_about = "SQL shell and batch tool for Microsoft Access (.mdb/.accdb) databases.\n\n\
        Each FILE is registered as a catalog named after its stem (tables as \
        stem.public.\"Table\"); the first also answers to bare table names. \
        Without -c, -f or piped input, jetsql starts an interactive shell.",
    after_help = EXAMPLES,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Command>,
    /// Database files (.mdb, .accdb); none: the bundled sample.
    #[arg(value_name = "FILE")]
    files: Vec<PathBuf>,
    /// Run this SQL (or \meta-command) and exit; repeatable, runs in order with -f.
    #[arg(short = 'c', long = "command", value_name = "SQL")]
    command: Vec<String>,
    /// Run the statements of this script file and exit; repeatable; `-`
    /// reads standard input. A directory, FIFO or device is refused.
    #[arg(short = 'f', long = "file", value_name = "SCRIPT")]
    file: Vec<PathBuf>,
    /// Result format [default: table in the shell and on a terminal, csv when piped].
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Database password: opens encrypted ACCDB (Agile, Standard and RC4
    /// CryptoAPI) and Money files, and writes keep them encrypted; a
    /// Jet3/Jet4 database password is checked when given. Default:
    /// $JETSQL_PASSWORD. Subcommands take it too
    /// (`jetsql tables FILE --password P`).
    #[arg(long, value_name = "PASSWORD", global = true)]
    password: Option<String>,
    /// Open the databases for writing: INSERT, UPDATE, DELETE, CREATE TABLE,
    /// DROP TABLE and BEGIN/COMMIT/ROLLBACK change the files (each
    /// statement, or each BEGIN…COMMIT, is one journaled transaction).
    /// Without it the databases are read-only and writes are refused.
    #[arg(long)]
    write: bool,
    /// SQL dialect: access (Access SQL: [names], #dates#, &, Like with * and ?,
    /// IIf, Nz, Format, …; text compares ignoring case) or datafusion
    /// (DataFusion's SQL: COPY, :: casts, arrays, case-sensitive text).
    #[arg(long, value_name = "DIALECT", default_value = "access")]
    dialect: jet_provider::SqlDialect,
    /// Memory a query may use (e.g. 2GiB, 512M); an operator, a text
    /// function or an aggregate that would need more fails with
    /// "resources exhausted". At most half the process's own limit
    /// (ulimit -v, ulimit -d, the cgroup's memory limit): a larger size is
    /// lowered to it [default: half of the machine's memory, within that].
    #[arg(long, value_name = "SIZE", value_parser = jet_provider::frontdoor::parse_memory_size)]
    memory_limit: Option<u64>,
    /// What NULL is shown as: in tables (default NULL) and in CSV
    /// (default empty). JSON always writes null.
    #[arg(long, value_name = "TEXT")]
    null: Option<String>,
    /// Errors with their whole chain of causes (default: the innermost).
    #[arg(short = 'v', long)]
    verbose: bool,
    /// Most rows a table shows in the interactive shell.
    #[arg(long, value_name = "N", default_value_t = 40)]
    max_rows: usize,
    /// Run queries on a cluster: the `jetsql-scheduler` at HOST:PORT plans
    /// them and its `jetsql-executor`s run them, reading the files at the
    /// same paths (a shared file system). Reads only.
    #[arg(long, value_name = "HOST:PORT", conflicts_with = "write")]
    cluster: Option<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Write every user table to DIR, one file each (NAME.parquet, .arrow or .csv);
    /// with --views also the saved select queries, run as views. Given a
    /// pattern ('archive/**/*.mdb', quoted), every table of every file in a
    /// Hive layout, DIR/<table>/_file=<name>/part-0.parquet, in parallel and
    /// resumable (files complete from an earlier run are skipped).
    Export {
        /// Database file, or a quoted pattern of files (*, ?, [..], **);
        /// a path that exists is always that file, whatever its name holds.
        file: PathBuf,
        /// Target directory (created if missing).
        #[arg(long, value_name = "DIR")]
        to: PathBuf,
        /// File format.
        #[arg(long, value_enum, default_value = "parquet")]
        format: export::ExportFormat,
        /// Only this table (repeatable; names match ignoring case; with
        /// --views also a saved query).
        #[arg(long, value_name = "NAME")]
        table: Vec<String>,
        /// Also export the saved select, union and crosstab queries, each
        /// run through the Access dialect; one that cannot run as it stands
        /// (parameters, untranslated constructs) is reported on standard
        /// error and skipped.
        #[arg(long)]
        views: bool,
        /// Files exported at once from a pattern (default: the number of cores).
        #[arg(long, value_name = "N", default_value_t = 0)]
        jobs: usize,
    },
    /// Recover a database after a crash: roll back or finish the
    /// transaction its journal (`FILE.jetjournal`) records.
    Recover {
        /// Database file.
        file: PathBuf,
        /// Remove a journal that recovery refused (damaged, truncated, or
        /// of another database) without applying it, keeping the database
        /// exactly as it is. Copy both files first.
        #[arg(long)]
        discard_journal: bool,
    },
    /// Compact a database: rewrite it without free space, deleted rows or
    /// fragmented long values (tables, indexes, relationships, properties
    /// and saved queries kept), built beside it and swapped in atomically
    /// (or written to -o OUT). Access 97, Jet4 and ACE files.
    Compact {
        /// Database file.
        file: PathBuf,
        /// Write the compacted copy here (a new file) instead of replacing FILE.
        #[arg(short = 'o', long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Give an ACCDB file a password: encrypt it as Access 2013 and later
    /// do (Agile, AES-256, SHA-512), in place or to -o OUT, all or
    /// nothing. The password: --password, $JETSQL_PASSWORD, or typed twice
    /// at the terminal.
    Encrypt {
        /// Database file (.accdb, not encrypted yet).
        file: PathBuf,
        /// Write the encrypted copy here (a new file) instead of replacing FILE.
        #[arg(short = 'o', long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Remove a file's password: decrypt an encrypted ACCDB (Agile,
    /// Standard, RC4 CryptoAPI) or an encoded MDB, and remove a Jet
    /// database password; in place or to -o OUT, all or nothing. The
    /// current password: --password, $JETSQL_PASSWORD, or typed at the
    /// terminal.
    Decrypt {
        /// Database file.
        file: PathBuf,
        /// Write the decrypted copy here (a new file) instead of replacing FILE.
        #[arg(short = 'o', long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Write every attachment of a table as a file:
    /// DIR/<table>/<column>/<key>/<file name>, <key> the row's primary key
    /// (a one-column key) or row-<n>; names from the file are made safe
    /// (no separators, `..`, device names), existing files are never
    /// replaced.
    Attachments {
        /// Database file.
        file: PathBuf,
        /// The table (names match ignoring case).
        table: String,
        /// Only this attachment column (default: every one).
        #[arg(long, value_name = "COLUMN")]
        column: Option<String>,
        /// Target directory (created if missing).
        #[arg(long, value_name = "DIR")]
        to: PathBuf,
    },
    /// Print a SQL script that builds the database in another engine:
    /// tables (types mapped, NOT NULL, defaults, auto-numbers), the data,
    /// primary keys, indexes and enforced relationships, in one
    /// transaction. Values the target cannot hold are listed by table,
    /// column and row (written as NULL; the exit status is 1).
    Dump {
        /// Database file.
        file: PathBuf,
        /// The SQL dialect of the script.
        #[arg(long, value_enum, value_name = "TARGET")]
        to: migrate::Target,
        /// Write the script here (built beside and renamed when complete)
        /// instead of standard output.
        #[arg(short = 'o', long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Write the database into a new SQLite file (TARGET is a path; built
    /// beside it and renamed when complete) or a PostgreSQL database
    /// (TARGET is a postgresql:// URL or a "host=… dbname=…" string; one
    /// transaction, data through COPY). All or nothing: on any failure, or
    /// a value the target cannot hold, nothing is written.
    Migrate {
        /// Database file.
        file: PathBuf,
        /// SQLite file path or PostgreSQL connection string.
        target: String,
    },
    /// Serve the databases to PostgreSQL clients (psql, JDBC, ODBC, BI
    /// tools) over the PostgreSQL wire protocol: read-only, on a loopback
    /// address, without authentication (docs/serve-design.md has what
    /// comes next). A client names the database by the file's stem in
    /// lower case; SQL is read in the Access dialect unless the client
    /// sets `jetsql.dialect` to datafusion (`SET` or `PGOPTIONS='-c
    /// jetsql.dialect=datafusion'`).
    Serve(serve::ServeArgs),
    #[command(flatten)]
    Storage(legacy::Cmd),
}

fn main() -> ExitCode {
    shell::install_panic_hook();
    let matches = match Cli::command().try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            if e.use_stderr() {
                hint_file_named_like_subcommand();
            }
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    let result = Cli::from_arg_matches(&matches)
        .map_err(|e| e.to_string())
        .and_then(|cli| run(cli, &matches));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // the reader of standard output went away (`jetsql … | head`):
        // what it wanted was written, so this is no failure
        Err(e) if stdout_closed(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("jetsql: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Whether an error is a write to a closed pipe (EPIPE), the way a reader
/// like `head` ends its input.
fn stdout_closed(e: &str) -> bool {
    let epipe = std::io::Error::from(std::io::ErrorKind::BrokenPipe).to_string();
    e.ends_with(&epipe) || e.ends_with("Broken pipe (os error 32)")
}

/// Writes one line to standard output, an error (a closed pipe) returned.
fn out_line(line: std::fmt::Arguments) -> Result<(), String> {
    use std::io::Write;
    writeln!(std::io::stdout(), "{line}").map_err(|e| e.to_string())
}

/// After a usage error: if the first argument names a subcommand and a
/// file of that name exists, say how to open the file.
fn hint_file_named_like_subcommand() {
    let Some(first) = std::env::args().nth(1) else {
        return;
    };
    let cmd = Cli::command();
    let is_sub = cmd.get_subcommands().any(|s| s.get_name() == first);
    if is_sub && std::path::Path::new(&first).is_file() {
        eprintln!("hint: to open the file named {first:?}, write ./{first}");
    }
}

/// One batch input, in command-line order.
enum Input {
    Sql(String),
    Script(PathBuf),
}

/// Whether a `-f` value names standard input (`-f -`).
fn is_stdin(path: &std::path::Path) -> bool {
    path.as_os_str() == "-"
}

/// All of standard input as text (`-f -`, or statements piped in).
fn read_stdin() -> Result<String, String> {
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .map_err(|e| format!("standard input: {e}"))?;
    Ok(text)
}

/// `-c` and `-f` values in the order they were given.
fn ordered_inputs(cli: &Cli, m: &clap::ArgMatches) -> Vec<Input> {
    let mut v: Vec<(usize, Input)> = Vec::new();
    if let Some(idx) = m.indices_of("command") {
        v.extend(idx.zip(cli.command.iter().cloned().map(Input::Sql)));
    }
    if let Some(idx) = m.indices_of("file") {
        v.extend(idx.zip(cli.file.iter().cloned().map(Input::Script)));
    }
    v.sort_by_key(|(i, _)| *i);
    v.into_iter().map(|(_, x)| x).collect()
}

fn run(cli: Cli, matches: &clap::ArgMatches) -> Result<(), String> {
    let req = OpenRequest::new(
        cli.password.clone().or_else(|| {
            std::env::var("JETSQL_PASSWORD")
                .ok()
                .filter(|p| !p.is_empty())
        }),
        // a person at a terminal is asked for a missing password
        std::io::stdin().is_terminal() && std::io::stderr().is_terminal(),
    );
    match cli.cmd {
        Some(Command::Export {
            file,
            to,
            format,
            table,
            views,
            jobs,
        }) => {
            let pattern = file.to_string_lossy();
            // a path that exists names that file, whatever its name holds
            // (`[`, `*`, `?`, an escape sequence); only one that does not
            // exist is read as a pattern
            let exists = std::fs::symlink_metadata(&file).is_ok();
            if !exists && jet_provider::archive::is_glob(&pattern) {
                if views {
                    return Err("--views exports the saved queries of one database; give one file, not a pattern".into());
                }
                let files = jet_provider::archive::expand(
                    &jet_provider::archive::FileSource::Glob(pattern.into_owned()),
                )
                .map_err(|e| e.message().into_owned())?;
                let s = archive_export::export_archive(&files, &to, format, &table, &req, jobs)?;
                out_line(format_args!(
                    "{} files exported ({} parts, {} rows), {} skipped (complete), {} failed",
                    s.exported,
                    s.parts,
                    s.rows,
                    s.skipped,
                    s.failed.len()
                ))?;
                if !s.failed.is_empty() {
                    return Err(format!(
                        "{} of {} files failed (listed above); run the export again to retry them",
                        s.failed.len(),
                        files.len()
                    ));
                }
                return Ok(());
            }
            let (tables, view_names) = if views {
                export_views::split_names(&file, &table, &req)?
            } else {
                (table.clone(), Vec::new())
            };
            // --table naming only views exports no table
            if table.is_empty() || !tables.is_empty() {
                for e in export::export(&file, &to, format, &tables, &req)? {
                    out_line(format_args!(
                        "{}\t{} rows\t{}",
                        e.table,
                        e.rows,
                        e.path.display()
                    ))?;
                }
            }
            if views && (table.is_empty() || !view_names.is_empty()) {
                let (done, skipped) =
                    export_views::export_views(&file, &to, format, &view_names, &req)?;
                for e in done {
                    out_line(format_args!(
                        "{}\t{} rows\t{}",
                        e.table,
                        e.rows,
                        e.path.display()
                    ))?;
                }
                for s in skipped {
                    eprintln!("{}\tskipped: {}", s.view, s.reason);
                }
            }
            return Ok(());
        }
        Some(Command::Compact { file, output }) => {
            let r = jet_storage::write::compact_file(&file, output.as_deref())
                .map_err(|e| format!("{}: {e}", file.display()))?;
            out_line(format_args!(
                "{}: {} → {} bytes ({} tables, {} rows, {} indexes)",
                output.as_deref().unwrap_or(&file).display(),
                r.bytes_before,
                r.bytes_after,
                r.tables,
                r.rows,
                r.indexes
            ))?;
            return Ok(());
        }
        Some(Command::Encrypt { file, output }) => {
            let line = protect::encrypt(&file, output.as_deref(), &req)?;
            out_line(format_args!("{line}"))?;
            return Ok(());
        }
        Some(Command::Decrypt { file, output }) => {
            let line = protect::decrypt(&file, output.as_deref(), &req)?;
            out_line(format_args!("{line}"))?;
            return Ok(());
        }
        Some(Command::Storage(legacy::Cmd::Describe {
            file,
            table,
            layout: false,
        })) => {
            // the shell's `\d NAME`, so batch and shell say the same
            let session = session::new_session(jet_provider::frontdoor::default_memory_limit())
                .map_err(|e| e.to_string())?;
            let dbs = session::register_files(&session, &[file], &req, false)?;
            let mut shell = shell::Shell::new(session, dbs, Format::Table, false, cli.max_rows)
                .map_err(|e| format!("cannot start the runtime: {e}"))?;
            shell.run_text(&format!("\\d \"{}\"", table.replace('"', "")))?;
            return Ok(());
        }
        Some(Command::Attachments {
            file,
            table,
            column,
            to,
        }) => {
            let w = attachments::write_attachments(&file, &table, column.as_deref(), &to, &req)?;
            for (path, bytes) in &w.files {
                out_line(format_args!("{}\t{bytes} bytes", path.display()))?;
            }
            return Ok(());
        }
        Some(Command::Dump { file, to, output }) => {
            return migrate::dump(&file, to, output.as_deref(), &req);
        }
        Some(Command::Migrate { file, target }) => {
            let line = migrate::migrate(&file, &target, &req)?;
            eprintln!("{line}");
            return Ok(());
        }
        Some(Command::Serve(args)) => {
            return serve::run(
                args,
                &req,
                jet_provider::frontdoor::memory_limit(cli.memory_limit),
            );
        }
        Some(Command::Storage(cmd)) => return legacy::run(cmd, &req).map_err(|e| e.to_string()),
        Some(Command::Recover {
            file,
            discard_journal,
        }) => {
            out_line(format_args!("{}", recover::run(&file, discard_journal)?))?;
            return Ok(());
        }
        None => {}
    }
    let inputs = ordered_inputs(&cli, matches);
    // a script that is not a regular file is refused before anything runs
    // (reading a FIFO nobody writes would wait for ever)
    for input in &inputs {
        if let Input::Script(path) = input
            && !is_stdin(path)
        {
            shell::check_script_path(path)?;
        }
    }
    let stdin_script = inputs.is_empty() && !std::io::stdin().is_terminal();
    let interactive = inputs.is_empty() && !stdin_script;
    let files = if cli.files.is_empty() {
        vec![sample::sample_path()?]
    } else {
        cli.files.clone()
    };
    let limit = jet_provider::frontdoor::memory_limit(cli.memory_limit);
    let session = match &cli.cluster {
        None => session::new_session(limit).map_err(|e| e.to_string())?,
        Some(address) => session::cluster_session(address, limit)?,
    };
    let archive = session::install_archive_function(&session, req.password.clone());
    session.set_dialect(cli.dialect);
    let dbs = session::register_files(&session, &files, &req, cli.write)?;
    let format = cli
        .format
        .unwrap_or(if interactive || std::io::stdout().is_terminal() {
            Format::Table
        } else {
            Format::Csv
        });
    let mut shell = shell::Shell::new(session, dbs, format, interactive, cli.max_rows)
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    shell.verbose = cli.verbose;
    shell.archive = Some(archive);
    if let Some(null) = &cli.null {
        shell.null.clone_from(null);
        shell.csv_null.clone_from(null);
    }
    if interactive {
        return repl::run(&mut shell);
    }
    if stdin_script {
        shell.run_text(&read_stdin()?)?;
        return Ok(());
    }
    for input in inputs {
        let flow = match input {
            Input::Sql(sql) => shell.run_text(&sql)?,
            Input::Script(path) if is_stdin(&path) => shell.run_text(&read_stdin()?)?,
            Input::Script(path) => shell.include(&path.to_string_lossy())?,
        };
        if flow == shell::Flow::Quit {
            break;
        }
    }
    Ok(())
}
