//! The PostgreSQL functions catalog queries call (`version()`,
//! `format_type`, `pg_get_indexdef`, `pg_table_is_visible`, …), answered
//! from the served database's snapshot. Each is evaluated value by value:
//! catalog tables hold hundreds of rows, not millions.

use super::tables::{Snapshot, format_type};
use datafusion::arrow::array::ArrayRef;
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::error::Result;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, TypeSignature,
    Volatility,
};
use std::sync::Arc;

type Body = Arc<dyn Fn(&[ScalarValue]) -> ScalarValue + Send + Sync>;

/// A catalog function: its name, result type and body.
struct PgFunction {
    name: &'static str,
    signature: Signature,
    returns: DataType,
    body: Body,
}

impl std::fmt::Debug for PgFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq for PgFunction {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for PgFunction {}

impl std::hash::Hash for PgFunction {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state);
    }
}

impl ScalarUDFImpl for PgFunction {
    fn name(&self) -> &str {
        self.name
    }

    fn signature(&self) -> &Signature {
        &self.signature
    }

    fn return_type(&self, _: &[DataType]) -> Result<DataType> {
        Ok(self.returns.clone())
    }

    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let rows = args.number_rows;
        let arrays: Vec<ArrayRef> = args
            .args
            .iter()
            .map(|a| a.to_array(rows))
            .collect::<Result<_>>()?;
        let mut out = Vec::with_capacity(rows);
        let mut values = Vec::with_capacity(arrays.len());
        for r in 0..rows {
            values.clear();
            for a in &arrays {
                values.push(ScalarValue::try_from_array(a, r)?);
            }
            out.push((self.body)(&values));
        }
        if out.is_empty() {
            return Ok(ColumnarValue::Array(
                datafusion::arrow::array::new_empty_array(&self.returns),
            ));
        }
        Ok(ColumnarValue::Array(ScalarValue::iter_to_array(out)?))
    }
}

fn function(
    name: &'static str,
    returns: DataType,
    body: impl Fn(&[ScalarValue]) -> ScalarValue + Send + Sync + 'static,
) -> ScalarUDF {
    ScalarUDF::new_from_impl(PgFunction {
        name,
        signature: Signature::one_of(
            vec![TypeSignature::Nullary, TypeSignature::VariadicAny],
            Volatility::Stable,
        ),
        returns,
        body: Arc::new(body),
    })
}

/// Argument `i` as an integer (an OID, a type modifier).
fn int(args: &[ScalarValue], i: usize) -> Option<i64> {
    match args.get(i)? {
        ScalarValue::Int8(v) => v.map(i64::from),
        ScalarValue::Int16(v) => v.map(i64::from),
        ScalarValue::Int32(v) => v.map(i64::from),
        ScalarValue::Int64(v) => *v,
        ScalarValue::UInt32(v) => v.map(i64::from),
        ScalarValue::UInt64(v) => v.and_then(|v| i64::try_from(v).ok()),
        ScalarValue::Utf8(Some(s)) | ScalarValue::Utf8View(Some(s)) => s.parse().ok(),
        _ => None,
    }
}

/// Argument `i` as text.
fn text(args: &[ScalarValue], i: usize) -> Option<String> {
    match args.get(i)? {
        ScalarValue::Utf8(v) | ScalarValue::Utf8View(v) | ScalarValue::LargeUtf8(v) => v.clone(),
        v if v.is_null() => None,
        v => Some(v.to_string()),
    }
}

/// `s` as a JSON string.
fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn utf8(v: Option<String>) -> ScalarValue {
    ScalarValue::Utf8(v)
}

/// The functions over snapshot `s`.
pub fn all(
    s: &Arc<Snapshot>,
    settings: Arc<std::sync::Mutex<super::super::local::Settings>>,
) -> Vec<ScalarUDF> {
    let version = format!(
        "PostgreSQL 16.6 (jetsql {}) on {}-linux, serving Microsoft Access databases",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::ARCH
    );
    let db = s.database.clone();
    let (s1, s2, s3, s4) = (s.clone(), s.clone(), s.clone(), s.clone());
    let yes = |_: &[ScalarValue]| ScalarValue::Boolean(Some(true));
    vec![
        function("version", DataType::Utf8, move |_| {
            utf8(Some(version.clone()))
        }),
        function("current_database", DataType::Utf8, move |_| {
            utf8(Some(db.clone()))
        }),
        function("current_schema", DataType::Utf8, |_| {
            utf8(Some("public".into()))
        }),
        function("pg_get_userbyid", DataType::Utf8, |_| {
            utf8(Some("jetsql".into()))
        }),
        function("pg_encoding_to_char", DataType::Utf8, |_| {
            utf8(Some("UTF8".into()))
        }),
        function("pg_table_is_visible", DataType::Boolean, yes),
        function("pg_type_is_visible", DataType::Boolean, yes),
        function("pg_function_is_visible", DataType::Boolean, yes),
        function("pg_collation_is_visible", DataType::Boolean, yes),
        function("has_table_privilege", DataType::Boolean, yes),
        function("has_schema_privilege", DataType::Boolean, yes),
        function("has_database_privilege", DataType::Boolean, yes),
        function("format_type", DataType::Utf8, |a| {
            utf8(int(a, 0).and_then(|oid| {
                format_type(
                    oid,
                    int(a, 1).and_then(|m| i32::try_from(m).ok()).unwrap_or(-1),
                )
            }))
        }),
        function("pg_get_expr", DataType::Utf8, |a| utf8(text(a, 0))),
        function("pg_get_indexdef", DataType::Utf8, move |a| {
            let Some(x) = int(a, 0).and_then(|oid| s1.indexes.iter().find(|x| x.oid == oid)) else {
                return utf8(None);
            };
            match int(a, 1).unwrap_or(0) {
                0 => utf8(Some(x.definition.clone())),
                k => {
                    let table = s1
                        .relations
                        .get((x.table - super::tables::FIRST_USER_OID) as usize);
                    let col = usize::try_from(k - 1)
                        .ok()
                        .and_then(|k| x.keys.get(k))
                        .and_then(|n| table?.columns.get(usize::try_from(*n).ok()? - 1));
                    utf8(col.map(|c| super::tables::quoted(&c.name)))
                }
            }
        }),
        function("pg_get_constraintdef", DataType::Utf8, move |a| {
            utf8(
                int(a, 0)
                    .and_then(|oid| s2.constraints.iter().find(|c| c.oid == oid))
                    .map(|c| c.definition.clone()),
            )
        }),
        function("to_regtype", DataType::Int64, |a| {
            let name = text(a, 0).map(|n| n.to_lowercase());
            ScalarValue::Int64(name.and_then(|n| {
                let n = n.strip_prefix("pg_catalog.").unwrap_or(&n).to_string();
                super::tables::TYPES
                    .iter()
                    .find(|t| t.1 == n || format_type(t.0, -1).as_deref() == Some(n.as_str()))
                    .map(|t| t.0)
            }))
        }),
        function("to_regclass", DataType::Int64, move |a| {
            ScalarValue::Int64(
                text(a, 0)
                    .map(|n| super::rewrite::regclass(&s3, &n))
                    .filter(|oid| *oid != 0),
            )
        }),
        function("json_build_object", DataType::Utf8, |a| {
            let mut out = String::from("{");
            for (i, pair) in a.chunks(2).enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let key = text(pair, 0).unwrap_or_default();
                out.push_str(&json_string(&key));
                out.push_str(" : ");
                out.push_str(&match pair.get(1) {
                    None => "null".to_string(),
                    Some(v) if v.is_null() => "null".to_string(),
                    Some(ScalarValue::Boolean(Some(b))) => b.to_string(),
                    Some(
                        v @ (ScalarValue::Int16(_)
                        | ScalarValue::Int32(_)
                        | ScalarValue::Int64(_)
                        | ScalarValue::Float64(_)),
                    ) => v.to_string(),
                    Some(v) => json_string(&v.to_string()),
                });
            }
            out.push('}');
            utf8(Some(out))
        }),
        function("pg_regclass", DataType::Int64, move |a| {
            ScalarValue::Int64(match a.first() {
                Some(v) if v.is_null() => None,
                _ => text(a, 0).map(|n| super::rewrite::regclass(&s4, &n)),
            })
        }),
        function("current_setting", DataType::Utf8, move |a| {
            let name = text(a, 0).map(|n| n.to_lowercase());
            utf8(name.and_then(|n| match n.as_str() {
                "default_table_access_method" => Some("heap".to_string()),
                n => settings.lock().ok()?.get(n).map(str::to_string),
            }))
        }),
        function("obj_description", DataType::Utf8, |_| utf8(None)),
        function("col_description", DataType::Utf8, |_| utf8(None)),
        function("shobj_description", DataType::Utf8, |_| utf8(None)),
        function("pg_get_partkeydef", DataType::Utf8, |_| utf8(None)),
        function("pg_get_serial_sequence", DataType::Utf8, |_| utf8(None)),
        function("pg_expandarray", expanded_type(), |a| expand(a.first())),
    ]
}

/// `{x, n}`: an element and its position.
fn expanded_fields() -> datafusion::arrow::datatypes::Fields {
    use datafusion::arrow::datatypes::Field;
    vec![
        Field::new("x", DataType::Int16, true),
        Field::new("n", DataType::Int32, true),
    ]
    .into()
}

/// A list of `{x, n}` structs.
fn expanded_type() -> DataType {
    DataType::List(Arc::new(
        datafusion::arrow::datatypes::Field::new_list_field(
            DataType::Struct(expanded_fields()),
            true,
        ),
    ))
}

/// `information_schema._pg_expandarray(a)` before it is unnested: the
/// elements of `a` (an `int2vector` or `int2[]`) each with its position
/// from 1, as PostgreSQL's function returns them row by row.
fn expand(a: Option<&ScalarValue>) -> ScalarValue {
    use datafusion::arrow::array::{Array, Int16Array, Int32Array, ListArray, StructArray};
    use datafusion::arrow::buffer::OffsetBuffer;
    let values: Vec<i16> = match a {
        Some(ScalarValue::List(l)) if !l.is_empty() && !l.is_null(0) => l
            .value(0)
            .as_any()
            .downcast_ref::<Int16Array>()
            .map(|v| v.iter().flatten().collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let n = values.len();
    let structs = StructArray::new(
        expanded_fields(),
        vec![
            Arc::new(Int16Array::from(values)) as ArrayRef,
            Arc::new(Int32Array::from_iter_values(1..=n as i32)),
        ],
        None,
    );
    let list = ListArray::new(
        Arc::new(datafusion::arrow::datatypes::Field::new_list_field(
            DataType::Struct(expanded_fields()),
            true,
        )),
        OffsetBuffer::from_lengths([n]),
        Arc::new(structs),
        None,
    );
    ScalarValue::List(Arc::new(list))
}

/// The names of the functions of [`all`] (a statement that calls one and
/// reads no served table is a catalog statement).
pub const NAMES: &[&str] = &[
    "version",
    "current_database",
    "current_schema",
    "pg_get_userbyid",
    "pg_encoding_to_char",
    "pg_table_is_visible",
    "pg_type_is_visible",
    "pg_function_is_visible",
    "pg_collation_is_visible",
    "has_table_privilege",
    "has_schema_privilege",
    "has_database_privilege",
    "format_type",
    "pg_get_expr",
    "pg_get_indexdef",
    "pg_get_constraintdef",
    "obj_description",
    "col_description",
    "shobj_description",
    "pg_get_partkeydef",
    "pg_get_serial_sequence",
    "to_regtype",
    "to_regclass",
    "json_build_object",
    "current_setting",
];
