//! Running statements and meta-commands: the state a REPL or a batch run
//! carries (session, open databases, output format, timing).

use crate::meta;
use crate::output::{Format, Sink};
use crate::render::{Expanded, View, pager};
use crate::script::{Item, Placed, split_placed};
use crate::session::OpenDb;
use datafusion::common::tree_node::{Transformed, TreeNode};
use datafusion::error::DataFusionError;
use datafusion::physical_plan::coop::CooperativeExec;
use datafusion::physical_plan::execution_plan::replace_children_if_necessary;
use datafusion::physical_plan::{ExecutionPlan, execute_stream};
use futures::StreamExt;
use jet_provider::JetSession;
use jet_provider::frontdoor::catch_panic;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Refuses a script path (`-f FILE`, `\i FILE`) that names something
/// other than a regular file, in one line naming it: reading a FIFO that
/// nobody writes would wait for ever, and a directory or a device holds
/// no script. A path that cannot be inspected (missing, unreadable)
/// passes; reading it then says why.
pub fn check_script_path(path: &std::path::Path) -> Result<(), String> {
    match jet_storage::journal::vfs::not_a_regular_file(path) {
        Some(kind) => Err(format!(
            "{} is {kind}, not a script file",
            jet_storage::error::printable(&path.display().to_string())
        )),
        None => Ok(()),
    }
}

/// What to do after an item ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Go on.
    Continue,
    /// `\q`: leave.
    Quit,
}

/// Stack of each runtime worker thread.
const WORKER_STACK: usize = 16 << 20;

/// Statements running now; while one runs, a panic is reported through
/// the statement's error (the panic hook stays quiet).
static RUNNING: AtomicUsize = AtomicUsize::new(0);

/// Installs the panic hook: quiet while a statement runs (the statement
/// turns the panic into its error, [`jet_provider::frontdoor::catch_panic`]),
/// otherwise one line naming the panic as a bug.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        if RUNNING.load(Ordering::SeqCst) > 0 {
            return;
        }
        let msg = jet_provider::frontdoor::panic_text(info.payload());
        let at = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!(
            "jetsql: internal error: {}{at}; this is a bug, please report it",
            msg.replace('\n', " ")
        );
    }));
}

/// Counts a running statement for the panic hook while alive.
struct Running;

impl Running {
    fn start() -> Running {
        RUNNING.fetch_add(1, Ordering::SeqCst);
        Running
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        RUNNING.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Deepest `\i` nesting accepted (a script including itself stops here).
const MAX_INCLUDE_DEPTH: usize = 16;

/// A shell: the session, its databases and the output settings.
pub struct Shell {
    /// The session: DataFusion with the Jet entry point for writes.
    pub session: Arc<JetSession>,
    /// Databases in the order they were opened (the first is the default).
    pub dbs: Vec<OpenDb>,
    /// Output format of query results.
    pub format: Format,
    /// Print elapsed time after each statement.
    pub timing: bool,
    /// REPL mode: a row cap on tables, a footer, Ctrl-C cancels a query.
    pub interactive: bool,
    /// Row cap of table output in REPL mode.
    pub max_rows: usize,
    /// What NULL shows as in tables (`\null`, `--null`).
    pub null: String,
    /// What NULL is written as in CSV (`--null`; empty by default).
    pub csv_null: String,
    /// Expanded display (`\x`).
    pub expanded: Expanded,
    /// Long interactive results go through the pager (`\pset pager`).
    pub pager: bool,
    /// Errors with their whole chain of causes (`\set VERBOSITY verbose`,
    /// `-v`).
    pub verbose: bool,
    runtime: tokio::runtime::Runtime,
    depth: usize,
    /// The session's `jet_files` function: the archive files a statement
    /// skipped (`skip_errors`) are printed after it.
    pub archive: Option<Arc<jet_provider::archive::JetFilesFunction>>,
}

impl Shell {
    /// A shell over `session` and `dbs`.
    pub fn new(
        session: JetSession,
        dbs: Vec<OpenDb>,
        format: Format,
        interactive: bool,
        max_rows: usize,
    ) -> std::io::Result<Self> {
        // deep (but admitted) statements recurse while planning: give the
        // worker threads room
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_stack_size(WORKER_STACK)
            .build()?;
        Ok(Shell {
            session: Arc::new(session),
            dbs,
            format,
            timing: interactive,
            interactive,
            max_rows,
            null: "NULL".into(),
            csv_null: String::new(),
            expanded: Expanded::Auto,
            pager: true,
            verbose: false,
            runtime,
            depth: 0,
            archive: None,
        })
    }

    /// The names of the tables and saved queries of every open database,
    /// and of their columns (for "did you mean").
    fn known_names(&self) -> (Vec<String>, Vec<String>) {
        let (mut tables, mut columns) = (Vec::new(), Vec::new());
        for d in &self.dbs {
            let Ok(db) = d.db() else { continue };
            for name in db.table_names() {
                if let Ok(t) = db.table(&name) {
                    columns.extend(t.def().columns.iter().map(|c| c.name.clone()));
                }
                tables.push(name);
            }
            tables.extend(db.queries().unwrap_or_default().into_iter().map(|q| q.name));
        }
        columns.sort();
        columns.dedup();
        (tables, columns)
    }

    /// Takes every read-only database's lock for one statement, reading a
    /// file again when another process changed it (see
    /// `JetHandle::read_snapshot`).
    fn snapshots(&self) -> Result<Vec<jet_storage::journal::lock::FileLock>, String> {
        let mut held = Vec::new();
        for d in &self.dbs {
            match d.handle.read_snapshot() {
                Ok(Some(lock)) => held.push(lock),
                Ok(None) => {}
                Err(e) => return Err(format!("{}: {}", d.name, self.explain(&e))),
            }
        }
        Ok(held)
    }

    /// A statement's error as a person reads it (see [`crate::errors`]).
    fn explain(&self, e: &DataFusionError) -> String {
        let (tables, columns) = self.known_names();
        crate::errors::for_people(&e.to_string(), &tables, &columns, self.verbose)
    }

    /// The table view for a result shown now: the shell's settings and the
    /// terminal's current width.
    fn view(&self) -> View {
        View {
            null: self.null.clone(),
            expanded: self.expanded,
            width: crate::render::terminal_size().0,
        }
    }

    /// Runs `f` to completion on the shell's runtime (for meta-commands
    /// that ask the catalog).
    pub fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.runtime.block_on(f)
    }

    /// Runs every complete item of `text`; a trailing statement without
    /// `;` runs too (scripts and `-c` need not end with one). Stops at the
    /// first error.
    pub fn run_text(&mut self, text: &str) -> Result<Flow, String> {
        self.run_source(text, None)
    }

    /// [`Shell::run_text`] for the text of a script file: an error names
    /// the file and the line its statement starts on (`report.sql:12: …`).
    ///
    /// The text is split as the session's dialect reads comments; when a
    /// meta-command (`\dialect`) changes the dialect, the text after it is
    /// split again in the new one.
    fn run_source(&mut self, text: &str, source: Option<&str>) -> Result<Flow, String> {
        // where the text not yet split starts, and its line
        let mut from = 0usize;
        loop {
            let dialect = self.session.dialect();
            let unread = &text[from..];
            let lines_before = text[..from].matches('\n').count();
            let (mut items, rest) = split_placed(unread, dialect);
            if !rest.is_empty() {
                let offset = unread.len() - unread.trim_start().len();
                let start = unread.rfind(rest.as_str()).unwrap_or(offset);
                let line = unread[..start].matches('\n').count() + 1;
                items.push(Placed {
                    line,
                    end: unread.len(),
                    item: Item::Sql(rest),
                });
            }
            let mut resplit_at = None;
            for Placed { line, end, item } in items {
                let line = lines_before + line;
                let meta = matches!(item, Item::Meta(_));
                // read-only databases: this item's snapshot (and lock)
                let _snapshots = self.snapshots()?;
                let flow = match item {
                    Item::Sql(sql) => self.run_sql(&sql).map(|()| Flow::Continue),
                    Item::Meta(cmd) => self.run_meta(&cmd),
                };
                let flow = match (flow, source) {
                    (Ok(f), _) => f,
                    // an inner script already named its own file and line
                    (Err(e), Some(file)) if !e.starts_with(&format!("{file}:")) => {
                        return Err(format!("{file}:{line}: {e}"));
                    }
                    (Err(e), _) => return Err(e),
                };
                if flow == Flow::Quit {
                    return Ok(Flow::Quit);
                }
                if meta && self.session.dialect() != dialect {
                    resplit_at = Some(from + end);
                    break;
                }
            }
            match resplit_at {
                Some(at) => from = at,
                None => return Ok(Flow::Continue),
            }
        }
    }

    /// Runs a meta-command (without its `\`).
    pub fn run_meta(&mut self, cmd: &str) -> Result<Flow, String> {
        let (name, arg) = match cmd.split_once(char::is_whitespace) {
            Some((n, a)) => (n, a.trim()),
            None => (cmd, ""),
        };
        let mut out = std::io::stdout().lock();
        let w = |out: &mut std::io::StdoutLock, s: String| {
            out.write_all(s.as_bytes()).map_err(|e| e.to_string())
        };
        match name {
            "q" | "quit" => return Ok(Flow::Quit),
            "?" | "h" | "help" => w(&mut out, meta::HELP.to_string())?,
            "d" | "dt" if arg.is_empty() => w(&mut out, meta::list_tables(self)?)?,
            "dv" | "dv+" if arg.is_empty() => {
                w(&mut out, meta::list_queries(self, name == "dv+")?)?
            }
            "dv" | "dv+" => w(&mut out, meta::describe_query(self, arg)?)?,
            "d" => w(&mut out, meta::describe(self, arg)?)?,
            "di" => w(&mut out, meta::list_indexes(self, arg)?)?,
            "dr" => w(&mut out, meta::list_relationships(self)?)?,
            "x" => {
                self.expanded = match arg {
                    "" if self.expanded == Expanded::On => Expanded::Off,
                    "" => Expanded::On,
                    "on" => Expanded::On,
                    "off" => Expanded::Off,
                    "auto" => Expanded::Auto,
                    _ => return Err(format!("\\x takes on, off or auto, not {arg:?}")),
                };
                if self.interactive || arg.is_empty() {
                    w(
                        &mut out,
                        format!("Expanded display is {}.\n", self.expanded.name()),
                    )?;
                }
            }
            "null" => {
                if !arg.is_empty() {
                    self.null = meta::unquote_text(arg).to_string();
                    self.csv_null = self.null.clone();
                }
                if self.interactive || arg.is_empty() {
                    w(&mut out, format!("NULL is shown as {:?}.\n", self.null))?;
                }
            }
            "pset" | "pager" => {
                let value = match (name, arg.split_once(char::is_whitespace)) {
                    ("pager", _) => arg,
                    (_, Some(("pager", v))) => v.trim(),
                    _ if arg == "pager" => "",
                    _ => return Err("\\pset takes pager [on|off]".into()),
                };
                self.pager = match value {
                    "" => !self.pager,
                    "on" => true,
                    "off" => false,
                    _ => return Err(format!("the pager is on or off, not {value:?}")),
                };
                if self.interactive || arg.is_empty() {
                    w(
                        &mut out,
                        format!("Pager is {}.\n", if self.pager { "on" } else { "off" }),
                    )?;
                }
            }
            "set" => {
                let (var, value) = arg.split_once(char::is_whitespace).unwrap_or((arg, ""));
                if !var.eq_ignore_ascii_case("verbosity") {
                    return Err("\\set knows VERBOSITY (default or verbose)".into());
                }
                self.verbose = match value.trim().to_ascii_lowercase().as_str() {
                    "verbose" => true,
                    "default" | "terse" => false,
                    v => return Err(format!("VERBOSITY is default or verbose, not {v:?}")),
                };
            }
            "timing" => {
                self.timing = match arg {
                    "" => !self.timing,
                    "on" => true,
                    "off" => false,
                    _ => return Err(format!("\\timing takes on or off, not {arg:?}")),
                };
                w(
                    &mut out,
                    format!("Timing is {}.\n", if self.timing { "on" } else { "off" }),
                )?;
            }
            "format" | "f" => {
                if arg.is_empty() {
                    w(
                        &mut out,
                        format!("Output format is {}.\n", self.format.name()),
                    )?;
                } else {
                    self.format = Format::parse(arg).ok_or_else(|| {
                        format!("unknown format {arg:?}: use table, csv, json or ndjson")
                    })?;
                    if self.interactive {
                        w(
                            &mut out,
                            format!("Output format is {}.\n", self.format.name()),
                        )?;
                    }
                }
            }
            "dialect" => {
                if !arg.is_empty() {
                    let d: jet_provider::SqlDialect = arg.parse()?;
                    self.session.set_dialect(d);
                }
                if self.interactive || arg.is_empty() {
                    w(
                        &mut out,
                        format!("SQL dialect is {}.\n", self.session.dialect()),
                    )?;
                }
            }
            "param" | "p" => match split_param(arg) {
                _ if arg.is_empty() => {
                    let names = self.session.param_names();
                    w(
                        &mut out,
                        if names.is_empty() {
                            "No parameters are bound.\n".to_string()
                        } else {
                            format!("Bound parameters: {}\n", names.join(", "))
                        },
                    )?;
                }
                None if arg.eq_ignore_ascii_case("clear") => self.session.clear_params(),
                None => {
                    return Err(format!(
                        "\\param {arg}: give a value too, e.g. \\param [{arg}] 42"
                    ));
                }
                Some((name, value)) => {
                    // [Beginning Date] is the parameter Beginning Date;
                    // Forms![Dialog]!Control keeps its brackets
                    let name = match name.strip_prefix('[').and_then(|n| n.strip_suffix(']')) {
                        Some(inner) if !inner.contains(']') => inner,
                        _ => name,
                    };
                    self.session
                        .bind(name, jet_provider::access::parse_param_value(value));
                }
            },
            "i" | "include" => {
                if arg.is_empty() {
                    return Err("\\i needs a file name".into());
                }
                drop(out);
                return self.include(arg);
            }
            _ => return Err(format!("unknown command \\{name}; \\? lists the commands")),
        }
        Ok(Flow::Continue)
    }

    /// `\i FILE`: runs the statements of a script file (a regular file:
    /// [`check_script_path`]).
    pub fn include(&mut self, path: &str) -> Result<Flow, String> {
        if self.depth >= MAX_INCLUDE_DEPTH {
            return Err(format!(
                "\\i {path}: scripts nest deeper than {MAX_INCLUDE_DEPTH}"
            ));
        }
        check_script_path(std::path::Path::new(path))?;
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        self.depth += 1;
        let r = self.run_source(&text, Some(path));
        self.depth -= 1;
        r
    }

    /// Runs one SQL statement and writes its result.
    pub fn run_sql(&mut self, sql: &str) -> Result<(), String> {
        let r = self.run_sql_once(sql);
        self.report_skipped();
        r
    }

    /// Prints the archive files the last statement skipped
    /// (`jet_files(…, 'skip_errors')`) on standard error.
    fn report_skipped(&self) {
        if let Some(f) = &self.archive {
            for w in f.stats().take_warnings() {
                eprintln!("warning: {w}");
            }
        }
    }

    fn run_sql_once(&mut self, sql: &str) -> Result<(), String> {
        let start = Instant::now();
        if self.interactive {
            return self.run_sql_cancellable(sql, start);
        }
        let session = self.session.clone();
        let format = self.format;
        let (view, csv_null) = (self.view(), self.csv_null.clone());
        let _running = Running::start();
        let rows = self
            .runtime
            .block_on(catch_panic(async move {
                let df = session.sql_frame(sql).await?;
                let schema = std::sync::Arc::new(df.schema().as_arrow().clone());
                let mut stream = df.execute_stream().await?;
                let out = std::io::BufWriter::new(std::io::stdout().lock());
                let mut sink = Sink::new(out, format, schema, None, view).with_csv_null(&csv_null);
                while let Some(b) = stream.next().await {
                    sink.push(b?)?;
                }
                Ok::<_, DataFusionError>(sink.finish()?.1)
            }))
            .map_err(|e| self.explain(&e))?;
        if self.timing {
            eprintln!("{} ({})", rows_text(rows), ms(start.elapsed()));
        }
        Ok(())
    }

    /// REPL execution: the query runs on a task; Ctrl-C aborts it (dropping
    /// its streams cancels the plan) and the session stays.
    fn run_sql_cancellable(&mut self, sql: &str, start: Instant) -> Result<(), String> {
        let session = self.session.clone();
        let format = self.format;
        let cap = (format == Format::Table).then_some(self.max_rows);
        let (view, csv_null) = (self.view(), self.csv_null.clone());
        let ordered = sql.to_ascii_lowercase().contains("order by");
        let sql = sql.to_string();
        let _running = Running::start();
        let outcome = self.runtime.block_on(async move {
            let mut task = tokio::spawn(catch_panic(async move {
                let df = session.sql_frame(&sql).await?;
                let schema = std::sync::Arc::new(df.schema().as_arrow().clone());
                let empty = schema.fields().is_empty();
                let task_ctx = df.task_ctx();
                let plan = yielding(df.create_physical_plan().await?)?;
                let mut stream = execute_stream(plan, std::sync::Arc::new(task_ctx))?;
                let mut sink =
                    Sink::new(Vec::new(), format, schema, cap, view).with_csv_null(&csv_null);
                while let Some(b) = stream.next().await {
                    sink.push(b?)?;
                }
                let truncated = sink.truncated();
                let (text, rows, omitted) = sink.finish()?;
                Ok::<_, DataFusionError>((text, rows, truncated, empty, omitted))
            }));
            tokio::select! {
                r = &mut task => Some(r),
                _ = tokio::signal::ctrl_c() => {
                    task.abort();
                    None
                }
            }
        });
        let elapsed = start.elapsed();
        let Some(joined) = outcome else {
            return Err(format!("query cancelled after {}", ms(elapsed)));
        };
        let (text, rows, truncated, empty, omitted) = joined
            .map_err(|e| format!("query task failed: {e}"))?
            .map_err(|e| self.explain(&e))?;
        let text = String::from_utf8_lossy(&text);
        let paged = !empty && pager::wanted(&text, self.pager) && pager::page(&text);
        let mut out = std::io::stdout().lock();
        if !empty && !paged {
            out.write_all(text.as_bytes()).map_err(|e| e.to_string())?;
        }
        let mut footer = if empty {
            "OK".to_string()
        } else {
            rows_text(rows)
        };
        if truncated {
            footer.push_str(&format!(
                ", first {} shown (\\format csv or LIMIT for the rest)",
                self.max_rows
            ));
            if !ordered {
                // partitions are read in parallel: which rows come first
                // is not fixed without ORDER BY
                footer.push_str(", in no set order (ORDER BY fixes one)");
            }
        }
        if omitted.columns > 0 {
            footer.push_str(&format!(
                ", {} columns not shown (\\x shows every column)",
                omitted.columns
            ));
        }
        if omitted.cut > 0 {
            footer.push_str(", long values cut with … (\\format csv shows them whole)");
        }
        if self.timing {
            footer.push_str(&format!(" ({})", ms(elapsed)));
        }
        writeln!(out, "{footer}").map_err(|e| e.to_string())?;
        Ok(())
    }
}

/// Wraps the output of every operator in a `CooperativeExec`, so that each
/// batch passed between operators spends the task's scheduling budget.
/// An operator that makes many batches from buffered input (a cross join)
/// then still yields to the runtime, and an aborted query stops within a
/// few batches instead of running to its end.
fn yielding(plan: Arc<dyn ExecutionPlan>) -> Result<Arc<dyn ExecutionPlan>, DataFusionError> {
    plan.transform_up(|node| {
        if node.children().is_empty() && node.is::<CooperativeExec>() {
            return Ok(Transformed::no(node));
        }
        let children: Vec<Arc<dyn ExecutionPlan>> = node
            .children()
            .into_iter()
            .map(|c| {
                if c.is::<CooperativeExec>() {
                    c.clone()
                } else {
                    Arc::new(CooperativeExec::new(c.clone())) as Arc<dyn ExecutionPlan>
                }
            })
            .collect();
        if children.is_empty() {
            return Ok(Transformed::no(node));
        }
        replace_children_if_necessary(node, children).map(Transformed::yes)
    })
    .map(|t| t.data)
    .map(|p| {
        if p.is::<CooperativeExec>() {
            p
        } else {
            Arc::new(CooperativeExec::new(p)) as Arc<dyn ExecutionPlan>
        }
    })
}

fn rows_text(rows: usize) -> String {
    if rows == 1 {
        "1 row".to_string()
    } else {
        format!("{rows} rows")
    }
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1000.0;
    if ms < 10.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{ms:.0} ms")
    }
}

/// `\param`'s argument split into the name and the value: the name ends at
/// the first blank outside brackets (`[Beginning Date] #1/1/1995#`).
fn split_param(arg: &str) -> Option<(&str, &str)> {
    let mut depth = 0usize;
    for (i, c) in arg.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            c if c.is_whitespace() && depth == 0 => {
                return Some((&arg[..i], arg[i..].trim_start()));
            }
            _ => {}
        }
    }
    None
}
