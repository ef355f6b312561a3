//! The Jet codecs on their own (no cluster): every Jet plan and table
//! survives encoding and decoding in a process that has only its own
//! configuration (no Access functions registered by name, no passwords
//! but its keyring): the same plan, the same rows. Bytes never carry a
//! password, and damaged bytes are refused with an error, never a panic.

use crate::support;
use support::{lines, runtime};

use datafusion::arrow::array::RecordBatch;
use datafusion::physical_plan::{ExecutionPlan, collect, displayable};
use datafusion::prelude::SessionConfig;
use datafusion_proto::bytes::{
    logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};
use jet_distributed::Node;
use jet_distributed::codec::{JetLogicalCodec, JetPhysicalCodec};
use jet_fixtures::archive::{ArchiveEntry, write_archive};
use jet_provider::{JetOptions, JetSession, SqlDialect};
use std::sync::{Arc, OnceLock};

const SECRET: &str = "SeCrEt-pw-4711";

struct Fixture {
    dir: tempfile::TempDir,
    entries: Vec<ArchiveEntry>,
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let entries = write_archive(dir.path(), 24).unwrap();
        Fixture { dir, entries }
    })
}

/// A single-machine session with archive file 1 as the default database
/// (opened with a password it does not need: it must not travel).
fn session(dialect: SqlDialect) -> JetSession {
    let s = jet_provider::session::new_session(1 << 30).unwrap();
    let options = JetOptions {
        password: Some(jet_storage::Password::new(SECRET)),
        ..JetOptions::default()
    };
    s.register("site", &fixture().entries[1].path, options, true)
        .unwrap();
    s.set_dialect(dialect);
    s
}

fn glob() -> String {
    format!("{}/**/*.mdb", fixture().dir.path().display())
}

/// The receiving process: its own session, Access functions not
/// registered by name.
fn receiver() -> (
    Arc<Node>,
    datafusion::execution::session_state::SessionState,
) {
    let node = Arc::new(Node::default());
    let state = node.session_state(SessionConfig::new()).unwrap();
    (node, state)
}

/// Plans `sql` in `s`, sends the physical plan through the codec, and
/// checks the plan and its rows are the same on the other side. Returns
/// the plan's text and the bytes sent.
fn physical_roundtrip(
    rt: &tokio::runtime::Runtime,
    s: &JetSession,
    sql: &str,
) -> (String, Vec<u8>) {
    let (node, state) = receiver();
    let codec = JetPhysicalCodec::new(node);
    let plan: Arc<dyn ExecutionPlan> = rt
        .block_on(async { s.sql_frame(sql).await?.create_physical_plan().await })
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let bytes = physical_plan_to_bytes_with_extension_codec(plan.clone(), &codec)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let ctx = state.task_ctx();
    let back = physical_plan_from_bytes_with_extension_codec(&bytes, &ctx, &codec)
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    let text = displayable(plan.as_ref()).indent(true).to_string();
    assert_eq!(
        displayable(back.as_ref()).indent(true).to_string(),
        text,
        "{sql}"
    );
    let want = rt.block_on(collect(plan, s.context().task_ctx())).unwrap();
    let got = rt.block_on(collect(back, ctx)).unwrap();
    assert!(
        !want.is_empty() && want.iter().any(|b| b.num_rows() > 0),
        "{sql}"
    );
    // partitions run in parallel: the same rows, in any order
    let sorted = |b: &[RecordBatch]| {
        let mut l = lines(b);
        l.sort();
        l
    };
    assert_eq!(sorted(&got), sorted(&want), "{sql}");
    (text, bytes.to_vec())
}

#[test]
fn jet_plans_survive_the_physical_codec() {
    let rt = runtime();
    let g = glob();
    let df = session(SqlDialect::DataFusion);
    let cases = [
        // a scan in page ranges, a seek with its re-check, a limit
        ("SELECT * FROM \"Orders\"", "JetScanExec"),
        (
            "SELECT \"Site\", \"Qty\" FROM \"Orders\" WHERE \"OrderID\" BETWEEN 10003 AND 10030 AND \"Qty\" > 5",
            "IndexSeekExec",
        ),
        ("SELECT \"Note\" FROM \"Orders\" LIMIT 7", "limit=7"),
        // a multi-file scan: `_file` pruning, filters for every file,
        // a column one file spells QTY
        (
            &*format!(
                "SELECT _file, \"OrderID\", \"Qty\", \"Priority\" FROM jet_files('{g}', 'Orders') \
                 WHERE \"Site\" = 'Nord' AND _file LIKE '%2019%'"
            ),
            "JetFilesExec",
        ),
    ];
    for (sql, node) in cases {
        let (text, bytes) = physical_roundtrip(&rt, &df, sql);
        assert!(text.contains(node), "{sql}: {text}");
        assert!(
            !contains(&bytes, SECRET.as_bytes()),
            "{sql}: the password was sent"
        );
    }
    // Access functions that share DataFusion's names keep Access's meaning
    let access = session(SqlDialect::Access);
    let (text, _) = physical_roundtrip(
        &rt,
        &access,
        "SELECT OrderID, Log(Qty + 1) AS l, Round(Amount / 3, 2) AS r, Replace(Site, 'o', '0') AS s, \
         IIf(Qty > 50, 'big', 'small') AS size FROM Orders WHERE Site Like 'N*' OR OrderID = 10005",
    );
    assert!(text.contains("log"), "{text}");
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn jet_tables_survive_the_logical_codec() {
    let rt = runtime();
    let s = session(SqlDialect::DataFusion);
    let (node, state) = receiver();
    let codec = JetLogicalCodec::new(node);
    let sqls = [
        "SELECT \"Site\", count(*) AS n FROM \"Orders\" GROUP BY \"Site\" ORDER BY \"Site\""
            .to_string(),
        format!(
            "SELECT _file, sum(\"Amount\") AS a FROM jet_files('{}', 'Orders', 'password={SECRET}') \
             GROUP BY _file ORDER BY _file",
            glob()
        ),
    ];
    for sql in &sqls {
        let plan = rt
            .block_on(async { s.sql_frame(sql).await?.into_optimized_plan() })
            .unwrap();
        let bytes = logical_plan_to_bytes_with_extension_codec(&plan, &codec).unwrap();
        assert!(
            !contains(&bytes, SECRET.as_bytes()),
            "{sql}: the password was sent"
        );
        let back = logical_plan_from_bytes_with_extension_codec(&bytes, &state.task_ctx(), &codec)
            .unwrap();
        assert_eq!(back.schema(), plan.schema(), "{sql}");
        let want = rt.block_on(s.sql(sql)).unwrap();
        let got = rt
            .block_on(async {
                let physical = state.create_physical_plan(&back).await?;
                collect(physical, state.task_ctx()).await
            })
            .unwrap();
        assert_eq!(lines(&got), lines(&want), "{sql}");
    }
}

/// The first Jet node of `plan` (depth first).
fn jet_leaf(plan: &Arc<dyn ExecutionPlan>) -> Option<Arc<dyn ExecutionPlan>> {
    if plan.children().is_empty()
        && (plan.name().starts_with("Jet") || plan.name().starts_with("Index"))
    {
        return Some(plan.clone());
    }
    plan.children().into_iter().find_map(jet_leaf)
}

#[test]
fn damaged_bytes_are_refused_without_a_panic() {
    use datafusion_proto::physical_plan::{DefaultPhysicalProtoConverter, PhysicalExtensionCodec};
    let rt = runtime();
    let s = session(SqlDialect::DataFusion);
    let (node, state) = receiver();
    let codec = JetPhysicalCodec::new(node);
    let ctx = state.task_ctx();
    let converter = DefaultPhysicalProtoConverter {};
    let sqls = [
        format!(
            "SELECT \"Site\", \"Qty\" FROM jet_files('{}', 'Orders') WHERE \"OrderID\" > 3",
            glob()
        ),
        "SELECT \"Site\" FROM \"Orders\" WHERE \"OrderID\" = 10004 AND \"Qty\" > 1".to_string(),
        "SELECT \"Site\" FROM \"Orders\"".to_string(),
    ];
    let mut refused = 0;
    let mut tried = 0;
    for sql in &sqls {
        let plan: Arc<dyn ExecutionPlan> = rt
            .block_on(async { s.sql_frame(sql).await?.create_physical_plan().await })
            .unwrap();
        let leaf = jet_leaf(&plan).unwrap_or_else(|| panic!("{sql}: no Jet node"));
        let mut original = Vec::new();
        codec
            .try_encode(leaf.clone(), &mut original, &converter)
            .unwrap();
        let back = codec.try_decode(&original, &[], &ctx, &converter).unwrap();
        assert_eq!(back.name(), leaf.name());
        // every cut, and every byte changed three ways, at each position
        for i in 0..original.len() {
            let mut variants = vec![original[..i].to_vec()];
            for x in [0x01u8, 0x80, 0xff] {
                let mut v = original.clone();
                v[i] ^= x;
                variants.push(v);
            }
            for v in variants {
                tried += 1;
                if codec.try_decode(&v, &[], &ctx, &converter).is_err() {
                    refused += 1;
                }
            }
        }
    }
    assert!(refused > 0 && tried > refused / 2, "{refused} of {tried}");
    // a Jet message that names a column the table lacks is refused by name
    let wire = jet_distributed::wire::JetNode {
        kind: Some(jet_distributed::wire::jet_node::Kind::Scan(
            jet_distributed::wire::Scan {
                table: Some(jet_distributed::wire::DatabaseTable {
                    path: fixture().entries[1].path.display().to_string(),
                    table: "Orders".into(),
                    pushdown: true,
                    batch_size: u64::MAX,
                }),
                projection: Some(jet_distributed::wire::Columns { columns: vec![99] }),
                limit: None,
                ranges: vec![],
            },
        )),
    };
    let mut buf = Vec::new();
    jet_distributed::wire::encode(&wire, &mut buf);
    let e = codec.try_decode(&buf, &[], &ctx, &converter).unwrap_err();
    assert!(e.to_string().contains("column 99 of a table of 6"), "{e}");
}

/// Ballista gives a task a slice of a stage's partitions by rewriting the
/// leaves it knows; a Jet scan it does not know would be sent whole and
/// read once per task. Wrapped in a `TaskSliceExec` it is sliced: a task
/// given partitions 1 and 4 of 6 reads exactly those, after the trip
/// through the codec.
#[test]
fn a_task_reads_only_its_slice_of_a_jet_scan() {
    use ballista_scheduler::state::task_builder::restrict_plan_to_partitions;
    use jet_distributed::slice::TaskSliceExec;
    let rt = runtime();
    let s = session(SqlDialect::DataFusion);
    let sql = format!(
        "SELECT _file, \"OrderID\" FROM jet_files('{}', 'Orders')",
        glob()
    );
    rt.block_on(s.sql("SET datafusion.execution.target_partitions = 6"))
        .unwrap();
    let plan: Arc<dyn ExecutionPlan> = rt
        .block_on(async { s.sql_frame(&sql).await?.create_physical_plan().await })
        .unwrap();
    let scan = jet_leaf(&plan).unwrap();
    assert_eq!(scan.properties().partitioning.partition_count(), 6);
    let ctx = s.context().task_ctx();
    let part = |p: usize| {
        lines(
            &rt.block_on(datafusion::physical_plan::common::collect(
                scan.execute(p, ctx.clone()).unwrap(),
            ))
            .unwrap(),
        )
    };
    // Ballista leaves a leaf it does not know whole
    let raw = restrict_plan_to_partitions(scan.clone(), &[1, 4]).unwrap();
    assert_eq!(raw.properties().partitioning.partition_count(), 6);
    // the slice wrapper is cut to the task's partitions
    let sliced: Arc<dyn ExecutionPlan> = Arc::new(TaskSliceExec::whole(scan.clone()).unwrap());
    let task = restrict_plan_to_partitions(sliced, &[1, 4]).unwrap();
    assert_eq!(task.properties().partitioning.partition_count(), 2);
    let (node, state) = receiver();
    let codec = JetPhysicalCodec::new(node);
    let bytes = physical_plan_to_bytes_with_extension_codec(task, &codec).unwrap();
    let back =
        physical_plan_from_bytes_with_extension_codec(&bytes, &state.task_ctx(), &codec).unwrap();
    assert_eq!(back.properties().partitioning.partition_count(), 2);
    let got = rt.block_on(collect(back, state.task_ctx())).unwrap();
    let mut want = part(1);
    let four = part(4);
    assert!(
        want.len() > 4 && four.len() > 4,
        "partitions 1 and 4 have rows"
    );
    // same rows: the header and frame lines of two tables, the rows of both
    let rows = |l: &[String]| -> Vec<String> {
        let mut r: Vec<String> = l
            .iter()
            .filter(|x| x.starts_with("| ") && !x.contains("_file"))
            .cloned()
            .collect();
        r.sort();
        r
    };
    want.extend(four);
    assert_eq!(rows(&lines(&got)), rows(&want));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

    /// Any bytes after the Jet marker decode to a plan or an error, never
    /// a panic.
    #[test]
    fn any_jet_message_decodes_or_is_refused(body in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..256)) {
        use datafusion_proto::physical_plan::{DefaultPhysicalProtoConverter, PhysicalExtensionCodec};
        let (node, state) = receiver();
        let codec = JetPhysicalCodec::new(node.clone());
        let mut buf = jet_distributed::wire::MAGIC.to_vec();
        buf.extend_from_slice(&body);
        let _ = codec.try_decode(&buf, &[], &state.task_ctx(), &DefaultPhysicalProtoConverter {});
        let logical = JetLogicalCodec::new(node);
        let _ = datafusion_proto::logical_plan::LogicalExtensionCodec::try_decode_table_provider(
            &logical,
            &buf,
            &datafusion::common::TableReference::bare("t"),
            Arc::new(datafusion::arrow::datatypes::Schema::empty()),
            &state.task_ctx(),
        );
    }
}
