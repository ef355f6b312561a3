//! Reading `MSysQueries` into [`QueryRow`]s grouped by query object id:
//! the row type the rebuild reads, and the table read into it.

use crate::error::{Error, Result, SchemaError};
use crate::read::database::Database;
use crate::read::scan::ScanOptions;
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Int8Type, Int16Type, Int32Type, Int64Type, UInt8Type, UInt16Type, UInt32Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::DataType;
use std::collections::HashMap;

/// One row of `MSysQueries`, as the rebuild reads it: every field is
/// optional because every column of the table may be NULL (and `LvExtra`
/// does not exist in Jet3 files).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryRow {
    /// `Attribute`: what the row describes (1 type, 2 parameter, 3 flags,
    /// 4 remote database, 5 input table, 6 output column, 7 join, 8 WHERE,
    /// 9 GROUP BY, 10 HAVING, 11 ORDER BY; 0 and 255 open and close the
    /// query). `None` when NULL or outside 0–255.
    pub attribute: Option<u8>,
    /// `Expression`: an expression, ON condition, union part or stored text.
    pub expression: Option<String>,
    /// `Flag`: the query type, select flags, join type, parameter type, …
    pub flag: Option<i16>,
    /// `LvExtra`: the size of a Text parameter (Jet4 and later).
    pub extra: Option<i32>,
    /// `Name1`: a table, alias, parameter name, TOP count, "D" for DESC, …
    pub name1: Option<String>,
    /// `Name2`: an alias, target column, union part id, …
    pub name2: Option<String>,
}

/// The system table holding saved queries.
const TABLE: &str = "MSysQueries";

/// The rows of every query in `MSysQueries`, by `ObjectId`, each list in
/// table order (the order Access wrote them, which Jackcess keeps too).
/// `None` when the database has no `MSysQueries` table. Rows without an
/// `ObjectId` belong to no query and are dropped.
pub(crate) fn read_rows(db: &Database) -> Result<Option<HashMap<i32, Vec<QueryRow>>>> {
    let present = db
        .catalog()
        .iter()
        .any(|e| e.is_table() && e.name.eq_ignore_ascii_case(TABLE));
    if !present {
        return Ok(None);
    }
    let table = db.table(TABLE)?;
    let position = |name: &str| {
        table
            .def()
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    };
    let need = |name: &str| {
        position(name).ok_or_else(|| {
            Error::from(SchemaError::NoSuchColumn {
                table: TABLE.into(),
                column: name.into(),
            })
        })
    };
    // projection order: ObjectId, Attribute, then the optional columns
    let mut projection = vec![need("ObjectId")?, need("Attribute")?];
    let optional = ["Expression", "Flag", "LvExtra", "Name1", "Name2"];
    let mut slots = [None; 5];
    for (slot, name) in slots.iter_mut().zip(optional) {
        if let Some(p) = position(name) {
            *slot = Some(projection.len());
            projection.push(p);
        }
    }
    let names: Vec<&str> = ["ObjectId", "Attribute"]
        .into_iter()
        .chain(optional.into_iter().filter(|n| position(n).is_some()))
        .collect();
    let scan = table
        .scan(ScanOptions {
            projection: Some(projection),
            ..ScanOptions::default()
        })
        .map_err(|e| e.in_table(TABLE))?;
    let mut out: HashMap<i32, Vec<QueryRow>> = HashMap::new();
    for batch in scan {
        let batch = batch.map_err(|e| e.in_table(TABLE))?;
        let column = |i: usize| {
            Column::new(batch.column(i), names[i]).map_err(|what| SchemaError::BadTdef {
                table: TABLE.into(),
                page: table.def().page,
                what,
            })
        };
        let ids = column(0)?;
        let attributes = column(1)?;
        let opt = |slot: Option<usize>| slot.map(column).transpose();
        let expression = opt(slots[0])?;
        let flag = opt(slots[1])?;
        let extra = opt(slots[2])?;
        let name1 = opt(slots[3])?;
        let name2 = opt(slots[4])?;
        for r in 0..batch.num_rows() {
            let Some(id) = ids.int(r).and_then(|v| i32::try_from(v).ok()) else {
                continue;
            };
            let text = |c: &Option<Column<'_>>| c.as_ref().and_then(|c| c.text(r));
            let int = |c: &Option<Column<'_>>| c.as_ref().and_then(|c| c.int(r));
            out.entry(id).or_default().push(QueryRow {
                attribute: attributes.int(r).and_then(|v| u8::try_from(v).ok()),
                expression: text(&expression),
                flag: int(&flag).and_then(|v| i16::try_from(v).ok()),
                extra: int(&extra).and_then(|v| i32::try_from(v).ok()),
                name1: text(&name1),
                name2: text(&name2),
            });
        }
    }
    Ok(Some(out))
}

/// One projected column of a batch, read as integers or as text whatever
/// the Arrow width the table's column type gave.
struct Column<'a> {
    array: &'a ArrayRef,
    text: bool,
}

impl<'a> Column<'a> {
    /// Accepts the integer and text types a Jet column decodes to;
    /// refuses any other with an error naming the column.
    fn new(array: &'a ArrayRef, name: &str) -> Result<Column<'a>, String> {
        let text = match array.data_type() {
            DataType::Utf8 | DataType::LargeUtf8 => true,
            DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::UInt8
            | DataType::UInt16
            | DataType::UInt32 => false,
            other => {
                return Err(format!(
                    "column {name} has type {other}, where a number or text is expected"
                ));
            }
        };
        Ok(Column { array, text })
    }

    /// The integer at row `r`; `None` when NULL or a text column.
    fn int(&self, r: usize) -> Option<i64> {
        let a = self.array;
        if self.text || a.is_null(r) {
            return None;
        }
        Some(match a.data_type() {
            DataType::Int8 => i64::from(a.as_primitive::<Int8Type>().value(r)),
            DataType::Int16 => i64::from(a.as_primitive::<Int16Type>().value(r)),
            DataType::Int32 => i64::from(a.as_primitive::<Int32Type>().value(r)),
            DataType::Int64 => a.as_primitive::<Int64Type>().value(r),
            DataType::UInt8 => i64::from(a.as_primitive::<UInt8Type>().value(r)),
            DataType::UInt16 => i64::from(a.as_primitive::<UInt16Type>().value(r)),
            DataType::UInt32 => i64::from(a.as_primitive::<UInt32Type>().value(r)),
            _ => return None,
        })
    }

    /// The text at row `r`; `None` when NULL or a number column.
    fn text(&self, r: usize) -> Option<String> {
        let a = self.array;
        if !self.text || a.is_null(r) {
            return None;
        }
        match a.data_type() {
            DataType::Utf8 => Some(a.as_string::<i32>().value(r).to_string()),
            DataType::LargeUtf8 => Some(a.as_string::<i64>().value(r).to_string()),
            _ => None,
        }
    }
}
