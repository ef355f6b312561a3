//! The values written into a complex column, taken from Arrow lists.
//!
//! A write names a complex column's new values as one Arrow list per row,
//! typed as the reader types the column (see [`crate::read::complex::list_schema`]): a
//! list of the value type for a multi-value column, a list of structs
//! with at least `file_name` and `file_data` for an attachment column.
//! [`values_at`] turns one row's list into [`NewValue`]s, which the
//! transaction stores as rows of the hidden flat table (see
//! [`crate::write::Transaction::insert_complex`]).

use crate::read::complex::{ComplexColumn, ComplexKind};
use crate::write::Cell;
use crate::write::row::cell_from_array;
use arrow_array::cast::AsArray;
use arrow_array::{Array, ArrayRef, StructArray};
use arrow_schema::DataType;

/// One value of a complex column, ready to be stored.
#[derive(Debug, Clone, PartialEq)]
pub enum NewValue {
    /// One value of a multi-value column.
    Value(Cell),
    /// One attachment.
    Attachment(NewAttachment),
}

/// One attachment to store: the file's name and bytes, and what Access
/// keeps beside them.
#[derive(Debug, Clone, PartialEq)]
pub struct NewAttachment {
    /// The file's name (`FileName`, required).
    pub file_name: String,
    /// The file type (`FileType`); `None` takes the name's extension.
    pub file_type: Option<String>,
    /// The file's bytes (stored wrapped, see
    /// [`crate::read::complex::encode_file_data`]).
    pub file_data: Vec<u8>,
    /// `FileURL`, NULL unless given.
    pub file_url: Option<String>,
    /// `FileTimeStamp` (µs since 1970, zone-less), NULL unless given.
    pub file_timestamp: Option<i64>,
    /// `FileFlags`, NULL unless given.
    pub file_flags: Option<i32>,
}

impl NewAttachment {
    /// The file type that is stored: the given one, else the extension of
    /// the file name (lower case).
    pub fn stored_type(&self) -> String {
        match &self.file_type {
            Some(t) => t.clone(),
            None => crate::read::complex::file_type_of(&self.file_name),
        }
    }
}

/// The values that row `row` of the list array `lists` gives `column`:
/// `None` when the list is NULL (the column keeps no values). Refuses,
/// with a message for people, an array that is not a list, a NULL item
/// of a multi-value list, an attachment without a file name or data, and
/// the kinds this writer does not store (version history, unrecognised
/// templates).
pub fn values_at(
    column: &ComplexColumn,
    lists: &ArrayRef,
    row: usize,
) -> Result<Option<Vec<NewValue>>, String> {
    if row >= lists.len() || lists.is_null(row) {
        return Ok(None);
    }
    let items: ArrayRef = match lists.data_type() {
        DataType::List(_) => lists.as_list::<i32>().value(row),
        DataType::LargeList(_) => lists.as_list::<i64>().value(row),
        DataType::FixedSizeList(..) => lists.as_fixed_size_list().value(row),
        other => {
            return Err(format!(
                "a complex column takes a list of values, not {other}"
            ));
        }
    };
    match &column.kind {
        ComplexKind::MultiValue(_) => (0..items.len())
            .map(|i| match cell_from_array(items.as_ref(), i) {
                Some(Cell::Null) => Err("a multi-value list holds no NULL item".to_string()),
                Some(c) => Ok(NewValue::Value(c)),
                None => Err(format!(
                    "list items of type {} are not stored",
                    items.data_type()
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        ComplexKind::Attachment => {
            let DataType::Struct(_) = items.data_type() else {
                return Err(format!(
                    "an attachment column takes a list of structs with file_name and file_data, not a list of {}",
                    items.data_type()
                ));
            };
            let s = items.as_struct();
            (0..s.len())
                .map(|i| attachment_at(s, i).map(NewValue::Attachment))
                .collect::<Result<Vec<_>, _>>()
                .map(Some)
        }
        ComplexKind::VersionHistory { .. } | ComplexKind::Unsupported(_) => {
            Err(not_written(column).unwrap_or_default())
        }
    }
}

/// Why the values of `column` are not written, `None` for the kinds that
/// are (multi-value, attachments).
pub fn not_written(column: &ComplexColumn) -> Option<String> {
    match &column.kind {
        ComplexKind::MultiValue(_) | ComplexKind::Attachment => None,
        ComplexKind::VersionHistory { versioned_column } => Some(format!(
            "it is the version history of the append-only memo {versioned_column:?}, which jetsql does not write"
        )),
        ComplexKind::Unsupported(template) => Some(format!(
            "its template {template:?} is of a kind jetsql does not write"
        )),
    }
}

/// The attachment at `i` of the struct array `s` (fields by name,
/// ASCII case-insensitively; unknown fields are refused).
fn attachment_at(s: &StructArray, i: usize) -> Result<NewAttachment, String> {
    if s.is_null(i) {
        return Err("an attachment list holds no NULL item".into());
    }
    let mut a = NewAttachment {
        file_name: String::new(),
        file_type: None,
        file_data: Vec::new(),
        file_url: None,
        file_timestamp: None,
        file_flags: None,
    };
    let (mut has_name, mut has_data) = (false, false);
    for (field, child) in s.fields().iter().zip(s.columns()) {
        let name = field.name().to_ascii_lowercase();
        let cell = cell_from_array(child.as_ref(), i).ok_or_else(|| {
            format!(
                "attachment field {:?} of type {} is not stored",
                field.name(),
                child.data_type()
            )
        })?;
        let wrong = || {
            format!(
                "attachment field {:?} cannot hold {} ({})",
                field.name(),
                cell,
                child.data_type()
            )
        };
        match (name.as_str(), cell.clone()) {
            (_, Cell::Null) => {}
            ("file_name", Cell::Text(t)) => {
                a.file_name = t;
                has_name = true;
            }
            ("file_type", Cell::Text(t)) => a.file_type = Some(t),
            ("file_data", Cell::Bytes(b)) => {
                a.file_data = b;
                has_data = true;
            }
            ("file_data", Cell::Text(t)) => {
                a.file_data = t.into_bytes();
                has_data = true;
            }
            ("file_url", Cell::Text(t)) => a.file_url = Some(t),
            ("file_timestamp", Cell::Micros(m)) => a.file_timestamp = Some(m),
            ("file_flags", Cell::Int(v)) => {
                a.file_flags = Some(i32::try_from(v).map_err(|_| wrong())?);
            }
            (
                "file_name" | "file_type" | "file_data" | "file_url" | "file_timestamp"
                | "file_flags",
                _,
            ) => return Err(wrong()),
            _ => {
                return Err(format!(
                    "an attachment has no field {:?} (it has file_name, file_type, file_data, file_url, file_timestamp, file_flags)",
                    field.name()
                ));
            }
        }
    }
    if !has_name || a.file_name.is_empty() {
        return Err("an attachment needs a file_name".into());
    }
    if !has_data {
        return Err(format!("attachment {:?} needs file_data", a.file_name));
    }
    Ok(a)
}
