//! One value as the table view shows it, the way Access displays it:
//! NULL distinct from empty text, control characters escaped so a cell
//! stays on its line, OLE objects and other binary values summarised
//! (`<OLE: Bitmap Image, 21,626 bytes>`), dates without a `T` and without
//! fractional zeros (a date alone at midnight and a time alone on Access's
//! day zero, 1899-12-30, as Access's General Date shows them),
//! currency with at most its two significant decimals kept when the rest
//! are zeros. Numbers are right-aligned. CSV and JSON never come here:
//! they keep every value whole.

use datafusion::arrow::array::{Array, AsArray, temporal_conversions::as_datetime};
use datafusion::arrow::datatypes::{
    DataType, Decimal128Type, DecimalType, TimeUnit, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};

/// How a column's cells are aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Text and everything else.
    Left,
    /// Numbers.
    Right,
}

/// The alignment of a column of `t`.
pub fn align_of(t: &DataType) -> Align {
    if t.is_numeric() {
        Align::Right
    } else {
        Align::Left
    }
}

/// Text with its control characters made visible: a line break (`\r\n`,
/// `\n` or `\r`) as `↵`, a tab as `→`, any other control character as
/// `\xNN`.
pub fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {
                if chars.peek() == Some(&'\n') {
                    chars.next();
                }
                out.push('↵');
            }
            '\n' => out.push('↵'),
            '\t' => out.push('→'),
            c if c.is_control() => out.push_str(&format!("\\x{:02X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

/// `n` with thousands separators (`21,626`).
fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// A binary value summarised: the OLE object's name and size when it is
/// an Access OLE object (`<OLE: Bitmap Image, 21,626 bytes>`), else its
/// kind where the first bytes tell it, else `<binary, N bytes>`.
pub fn binary_summary(v: &[u8]) -> String {
    let size = grouped(v.len());
    if let Some(n) = jet_kernels::ole::ole_names(v) {
        let pick = if n.name.is_empty() { n.class } else { n.name };
        let name = String::from_utf8_lossy(&v[pick]);
        let name = escape_text(name.trim());
        return if name.is_empty() {
            format!("<OLE, {size} bytes>")
        } else {
            format!("<OLE: {name}, {size} bytes>")
        };
    }
    let kind = match v {
        [0x89, b'P', b'N', b'G', ..] => "PNG image",
        [0xFF, 0xD8, 0xFF, ..] => "JPEG image",
        [b'G', b'I', b'F', b'8', ..] => "GIF image",
        [b'B', b'M', ..] => "bitmap",
        [b'%', b'P', b'D', b'F', ..] => "PDF",
        [b'P', b'K', 3, 4, ..] => "zip",
        [0xD0, 0xCF, 0x11, 0xE0, ..] => "OLE compound file",
        _ => "binary",
    };
    format!("<{kind}, {size} bytes>")
}

/// A timestamp as Access shows a Date/Time: `HH:MM:SS` on 1899-12-30
/// (Access's day zero, where a time without a date lies:
/// `TimeSerial(14, 30, 0)`, `#2:30 PM#`, and midnight itself, serial 0,
/// which General Date shows as a time), `YYYY-MM-DD` at midnight of any
/// other day, else `YYYY-MM-DD HH:MM:SS`; a fraction of a second only
/// when there is one.
fn timestamp_text(a: &dyn Array, row: usize, unit: TimeUnit) -> Option<String> {
    let dt = match unit {
        TimeUnit::Second => {
            as_datetime::<TimestampSecondType>(a.as_primitive::<TimestampSecondType>().value(row))
        }
        TimeUnit::Millisecond => as_datetime::<TimestampMillisecondType>(
            a.as_primitive::<TimestampMillisecondType>().value(row),
        ),
        TimeUnit::Microsecond => as_datetime::<TimestampMicrosecondType>(
            a.as_primitive::<TimestampMicrosecondType>().value(row),
        ),
        TimeUnit::Nanosecond => as_datetime::<TimestampNanosecondType>(
            a.as_primitive::<TimestampNanosecondType>().value(row),
        ),
    }?;
    let midnight = dt.time() == chrono::NaiveTime::MIN;
    let day_zero = chrono::NaiveDate::from_ymd_opt(1899, 12, 30) == Some(dt.date());
    Some(if day_zero {
        dt.format("%H:%M:%S%.f").to_string()
    } else if midnight {
        dt.format("%Y-%m-%d").to_string()
    } else {
        dt.format("%Y-%m-%d %H:%M:%S%.f").to_string()
    })
}

/// A decimal of scale above 2 with its trailing zeros dropped down to two
/// decimals (Currency `14.0000` → `14.00`, `14.1250` → `14.125`).
fn decimal_text(a: &dyn Array, row: usize, scale: i8) -> String {
    let v = a.as_primitive::<Decimal128Type>().value(row);
    let text = Decimal128Type::format_decimal(v, 38, scale);
    match text.split_once('.') {
        Some((int, frac)) if scale > 2 => {
            let kept = frac.trim_end_matches('0');
            let kept = if kept.len() < 2 { &frac[..2] } else { kept };
            format!("{int}.{kept}")
        }
        _ => text,
    }
}

/// The text of one cell (`null` for a NULL). Values the helpers above do
/// not cover use Arrow's display.
pub fn cell_text(a: &dyn Array, row: usize, null: &str) -> String {
    // logical nulls: a NullArray (`SELECT NULL`) has no null buffer
    if a.logical_nulls().is_some_and(|n| n.is_null(row)) {
        return null.to_string();
    }
    match a.data_type() {
        DataType::Utf8 => escape_text(a.as_string::<i32>().value(row)),
        DataType::LargeUtf8 => escape_text(a.as_string::<i64>().value(row)),
        DataType::Utf8View => escape_text(a.as_string_view().value(row)),
        DataType::Binary => binary_summary(a.as_binary::<i32>().value(row)),
        DataType::LargeBinary => binary_summary(a.as_binary::<i64>().value(row)),
        DataType::BinaryView => binary_summary(a.as_binary_view().value(row)),
        DataType::FixedSizeBinary(_) => binary_summary(a.as_fixed_size_binary().value(row)),
        DataType::Timestamp(unit, None) => {
            timestamp_text(a, row, *unit).unwrap_or_else(|| fallback(a, row))
        }
        DataType::Decimal128(_, scale) => decimal_text(a, row, *scale),
        DataType::List(_) => list_text(a.as_list::<i32>().value(row).as_ref(), null),
        DataType::LargeList(_) => list_text(a.as_list::<i64>().value(row).as_ref(), null),
        _ => escape_text(&fallback(a, row)),
    }
}

/// A list (one cell's elements) in brief: attachments (structs with a
/// `file_name`) as `<2 attachments: x.png, y.txt>`, a version history
/// (structs with a `value` and a `modified`) as `<3 versions, newest:
/// text>`, other lists as `{a, b}` with each element shown as a cell.
fn list_text(values: &dyn Array, null: &str) -> String {
    let n = values.len();
    let plural = |one: &str| format!("{n} {one}{}", if n == 1 { "" } else { "s" });
    if let DataType::Struct(fields) = values.data_type() {
        let s = values.as_struct();
        let field = |name: &str| {
            fields
                .iter()
                .position(|f| f.name() == name)
                .map(|i| s.column(i).as_ref())
        };
        if let Some(names) = field("file_name") {
            if n == 0 {
                return "<no attachments>".into();
            }
            let listed: Vec<String> = (0..n).map(|r| cell_text(names, r, null)).collect();
            return format!("<{}: {}>", plural("attachment"), listed.join(", "));
        }
        if let (Some(text), Some(_)) = (field("value"), field("modified")) {
            if n == 0 {
                return "<no versions>".into();
            }
            return format!(
                "<{}, newest: {}>",
                plural("version"),
                cell_text(text, 0, null)
            );
        }
    }
    let items: Vec<String> = (0..n).map(|r| cell_text(values, r, null)).collect();
    format!("{{{}}}", items.join(", "))
}

fn fallback(a: &dyn Array, row: usize) -> String {
    let options = FormatOptions::default().with_null("NULL");
    match ArrayFormatter::try_new(a, &options) {
        Ok(f) => f.value(row).to_string(),
        Err(e) => format!("<{e}>"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{
        BinaryArray, Decimal128Array, StringArray, TimestampMicrosecondArray,
    };

    #[test]
    fn lists_in_brief() {
        use datafusion::arrow::array::{
            ArrayRef, Int32Array, LargeBinaryArray, ListArray, StructArray,
            TimestampMicrosecondArray,
        };
        use datafusion::arrow::buffer::OffsetBuffer;
        use datafusion::arrow::datatypes::{Field, Fields};
        use std::sync::Arc;
        let list = |values: ArrayRef, offsets: Vec<i32>| {
            let item = Arc::new(Field::new("item", values.data_type().clone(), true));
            ListArray::new(item, OffsetBuffer::new(offsets.into()), values, None)
        };
        let multi = list(
            Arc::new(StringArray::from(vec![Some("a"), Some("b\nc"), None])),
            vec![0, 3, 3],
        );
        assert_eq!(cell_text(&multi, 0, "NULL"), "{a, b↵c, NULL}");
        assert_eq!(cell_text(&multi, 1, "NULL"), "{}");
        let names: ArrayRef = Arc::new(StringArray::from(vec!["x.png", "y.txt", "z.doc"]));
        let data: ArrayRef = Arc::new(LargeBinaryArray::from_vec(vec![b"1", b"2", b"3"]));
        let files = StructArray::new(
            Fields::from(vec![
                Field::new("file_name", DataType::Utf8, true),
                Field::new("file_data", DataType::LargeBinary, true),
            ]),
            vec![names, data],
            None,
        );
        let attach = list(Arc::new(files), vec![0, 2, 3, 3]);
        assert_eq!(
            cell_text(&attach, 0, "NULL"),
            "<2 attachments: x.png, y.txt>"
        );
        assert_eq!(cell_text(&attach, 1, "NULL"), "<1 attachment: z.doc>");
        assert_eq!(cell_text(&attach, 2, "NULL"), "<no attachments>");
        let versions = StructArray::new(
            Fields::from(vec![
                Field::new("value", DataType::Utf8, true),
                Field::new(
                    "modified",
                    DataType::Timestamp(TimeUnit::Microsecond, None),
                    true,
                ),
            ]),
            vec![
                Arc::new(StringArray::from(vec!["new", "old"])),
                Arc::new(TimestampMicrosecondArray::from(vec![2, 1])),
            ],
            None,
        );
        let history = list(Arc::new(versions), vec![0, 2]);
        assert_eq!(cell_text(&history, 0, "NULL"), "<2 versions, newest: new>");
        let ints = list(Arc::new(Int32Array::from(vec![1, 2])), vec![0, 2]);
        assert_eq!(cell_text(&ints, 0, "NULL"), "{1, 2}");
    }

    #[test]
    fn text_keeps_to_its_line() {
        assert_eq!(escape_text("a\r\nb\nc\rd\te\u{7}"), "a↵b↵c↵d→e\\x07");
        assert_eq!(escape_text("Umsätze"), "Umsätze");
    }

    #[test]
    fn nulls_and_empty_text_differ() {
        let a = StringArray::from(vec![Some(""), None]);
        assert_eq!(cell_text(&a, 0, "NULL"), "");
        assert_eq!(cell_text(&a, 1, "NULL"), "NULL");
        assert_eq!(cell_text(&a, 1, "∅"), "∅");
        // SELECT NULL: an array of type Null
        let n = datafusion::arrow::array::NullArray::new(1);
        assert_eq!(cell_text(&n, 0, "∅"), "∅");
    }

    #[test]
    fn binary_is_summarised() {
        // nwind.mdb Employees.Photo starts with this header (mdb-export -b hex)
        let mut photo = vec![
            0x15, 0x1c, 0x2f, 0x00, 0x02, 0x00, 0x00, 0x00, 0x0d, 0x00, 0x0e, 0x00, 0x14, 0x00,
            0x21, 0x00, 0xff, 0xff, 0xff, 0xff,
        ];
        photo.extend_from_slice(b"Bitmap Image\0Paint.Picture\0");
        photo.resize(21_626, 0);
        let a = BinaryArray::from(vec![&photo[..], b"\x89PNG\r\n", b"xy"]);
        assert_eq!(
            cell_text(&a, 0, "NULL"),
            "<OLE: Bitmap Image, 21,626 bytes>"
        );
        assert_eq!(cell_text(&a, 1, "NULL"), "<PNG image, 6 bytes>");
        assert_eq!(cell_text(&a, 2, "NULL"), "<binary, 2 bytes>");
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(999), "999");
    }

    #[test]
    fn dates_as_access_shows_them() {
        // 1996-07-04 00:00, 1996-07-04 15:30:05, and .25 s later
        let day = 836_438_400_000_000i64;
        let a =
            TimestampMicrosecondArray::from(vec![day, day + 55_805_000_000, day + 55_805_250_000]);
        assert_eq!(cell_text(&a, 0, "NULL"), "1996-07-04");
        assert_eq!(cell_text(&a, 1, "NULL"), "1996-07-04 15:30:05");
        assert_eq!(cell_text(&a, 2, "NULL"), "1996-07-04 15:30:05.250");
        // a time alone is on 1899-12-30 (Access's day zero) and shows
        // without its date, as General Date shows it, midnight too
        // (serial 0: `Format(0, "General Date")` is "12:00:00 AM")
        let day_zero = -2_209_161_600_000_000i64;
        let t = TimestampMicrosecondArray::from(vec![
            day_zero + 52_200_000_000,
            day_zero + 52_200_500_000,
            day_zero,
            day_zero + 86_400_000_000 + 3_600_000_000,
        ]);
        assert_eq!(cell_text(&t, 0, "NULL"), "14:30:00");
        assert_eq!(cell_text(&t, 1, "NULL"), "14:30:00.500");
        assert_eq!(cell_text(&t, 2, "NULL"), "00:00:00");
        assert_eq!(cell_text(&t, 3, "NULL"), "1899-12-31 01:00:00");
    }

    #[test]
    fn currency_keeps_two_decimals_at_least() {
        let a = Decimal128Array::from(vec![140_000i128, 141_250, -5, 123_456_789])
            .with_precision_and_scale(19, 4)
            .unwrap();
        let got: Vec<String> = (0..4).map(|r| cell_text(&a, r, "NULL")).collect();
        assert_eq!(got, ["14.00", "14.125", "-0.0005", "12345.6789"]);
        let two = Decimal128Array::from(vec![1405i128])
            .with_precision_and_scale(10, 2)
            .unwrap();
        assert_eq!(cell_text(&two, 0, "NULL"), "14.05");
        assert_eq!(align_of(two.data_type()), Align::Right);
        assert_eq!(align_of(&DataType::Utf8), Align::Left);
    }
}
