//! Functions of the Database and Miscellaneous groups of Microsoft's
//! "Access functions (by category)" that compute a value from their
//! arguments alone: Partition, QBColor and RGB.

use super::types;
use super::udf::{AccessScalar, Call, NULL_NONE};
use super::value::Value;
use datafusion::error::Result;

/// A whole-number argument of type Long: rounded half to even, an
/// "overflow" outside the Long range. Null is an error.
fn long(c: &Call, i: usize, label: &str) -> Result<i64> {
    let v = c.int(i, label)?;
    if i32::try_from(v).is_err() {
        return Err(c.err(format!("overflow in argument {label}")));
    }
    Ok(v)
}

/// Characters of a whole number written out (its minus sign included).
fn width_of(n: i64) -> usize {
    n.to_string().len()
}

/// `Partition(number, start, stop, interval)`: the range of
/// `start..=stop`, cut into ranges of `interval` numbers, that holds
/// `number`, as `lower:upper`; `" :start-1"` before `start` and
/// `"stop+1: "` after `stop`
/// (<https://learn.microsoft.com/office/vba/language/reference/user-interface-help/partition-function>).
///
/// Every argument is rounded to a whole number (half to even); `start`
/// must be 0 or more, `stop` more than `start`, `interval` 1 or more. Both
/// sides of the colon are padded with leading spaces to the width of
/// `stop + 1` written out (Microsoft's VB.NET page of the same function
/// says so: "the same number of characters as the string representation
/// of the value (Stop + 1)",
/// <https://learn.microsoft.com/previous-versions/visualstudio/visual-studio-2008/ek4702k8(v=vs.90)>),
/// or of `start - 1` when that is wider (`-1` for a range from 0 to at
/// most 8), so that the ranges sort as text in numeric order. The last
/// range ends at `stop` even when it is shorter than `interval`. A Null
/// argument gives Null.
fn partition(c: &Call) -> Result<Value> {
    let number = long(c, 0, "number")?;
    let start = long(c, 1, "start")?;
    let stop = long(c, 2, "stop")?;
    let interval = long(c, 3, "interval")?;
    if start < 0 {
        return Err(c.err(format!("start must be 0 or more, not {start}")));
    }
    if stop <= start {
        return Err(c.err(format!(
            "stop must be greater than start ({start}), not {stop}"
        )));
    }
    if interval < 1 {
        return Err(c.err(format!("interval must be 1 or more, not {interval}")));
    }
    let w = width_of(stop + 1).max(width_of(start - 1));
    let text = if number < start {
        format!("{:>w$}:{:>w$}", "", start - 1)
    } else if number > stop {
        format!("{:>w$}:{:>w$}", stop + 1, "")
    } else {
        let lower = start + (number - start) / interval * interval;
        let upper = (lower + interval - 1).min(stop);
        format!("{lower:>w$}:{upper:>w$}")
    };
    Ok(Value::Text(text))
}

/// The RGB values of QBColor's sixteen colours, red in the lowest byte.
/// Microsoft's page names the colours (0 Black … 7 White, 8 Gray, 9 Light
/// Blue … 15 Bright White) without their values: 1 to 6 are the primary
/// and secondary colours at half intensity (&H80), 7 is light gray
/// (&HC0C0C0), 8 gray (&H808080), and 9 to 15 the same colours at full
/// intensity, the values of VBA's colour constants `vbBlue` … `vbWhite`.
const QB_COLORS: [i64; 16] = [
    0x000000, 0x800000, 0x008000, 0x808000, 0x000080, 0x800080, 0x008080, 0xC0C0C0, 0x808080,
    0xFF0000, 0x00FF00, 0xFFFF00, 0x0000FF, 0xFF00FF, 0x00FFFF, 0xFFFFFF,
];

/// `QBColor(color)`: the RGB colour (a Long) of a colour number 0–15 of
/// earlier Basics
/// (<https://learn.microsoft.com/office/vba/language/reference/user-interface-help/qbcolor-function>).
/// The number is rounded to a whole number (half to even); outside 0–15,
/// or Null, it is an error.
fn qbcolor(c: &Call) -> Result<Value> {
    let n = c.int(0, "color")?;
    match usize::try_from(n).ok().and_then(|i| QB_COLORS.get(i)) {
        Some(rgb) => Ok(Value::Int(*rgb)),
        None => Err(c.err(format!(
            "color must be a whole number from 0 to 15, not {n}"
        ))),
    }
}

/// `RGB(red, green, blue)`: `red + green × 256 + blue × 65536`, a Long
/// (<https://learn.microsoft.com/office/vba/language/reference/user-interface-help/rgb-function>).
/// Each component is rounded to a whole number (half to even); one above
/// 255 counts as 255, as the page says; a negative one or a Null is an
/// error (the page allows 0–255).
fn rgb(c: &Call) -> Result<Value> {
    let mut out = 0i64;
    for (i, label, shift) in [(0, "red", 0), (1, "green", 8), (2, "blue", 16)] {
        let v = c.int(i, label)?;
        if v < 0 {
            return Err(c.err(format!("{label} must be from 0 to 255, not {v}")));
        }
        out |= v.min(255) << shift;
    }
    Ok(Value::Int(out))
}

/// Partition, QBColor and RGB.
pub fn functions() -> Vec<AccessScalar> {
    use types::*;
    vec![
        AccessScalar::new("Partition", 4, 4, utf8, partition),
        AccessScalar::new("QBColor", 1, 1, int32, qbcolor).nulls(NULL_NONE),
        AccessScalar::new("RGB", 3, 3, int32, rgb).nulls(NULL_NONE),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::DataType;

    fn call(f: fn(&Call) -> Result<Value>, args: &[Value]) -> Result<Value> {
        let ret = DataType::Utf8;
        f(&Call {
            name: "t",
            args,
            ret: &ret,
        })
    }

    fn part(n: i64, start: i64, stop: i64, interval: i64) -> String {
        let args = [n, start, stop, interval].map(Value::Int);
        match call(partition, &args).unwrap() {
            Value::Text(t) => t,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn partition_ranges() {
        // Microsoft's VBA page: "if interval is 1, number is 100 and stop
        // is 1000, Partition returns " 100: 100""
        assert_eq!(part(100, 0, 1000, 1), " 100: 100");
        // Microsoft's VB.NET page's table, start 20, stop 199, interval
        // 10: first range " 20: 29", last "190:199"; start 100, stop
        // 1010, interval 20: first " 100: 119", last "1000:1010"
        assert_eq!(part(20, 20, 199, 10), " 20: 29");
        assert_eq!(part(29, 20, 199, 10), " 20: 29");
        assert_eq!(part(195, 20, 199, 10), "190:199");
        assert_eq!(part(100, 100, 1010, 20), " 100: 119");
        assert_eq!(part(1005, 100, 1010, 20), "1000:1010");
        // before the first and after the last range: ": start-1" and
        // "stop+1:", padded to the same width
        assert_eq!(part(-5, 0, 99, 5), "   : -1");
        assert_eq!(part(120, 0, 99, 5), "100:   ");
        assert_eq!(part(2000, 100, 1010, 20), "1011:    ");
        // no padding when stop + 1 has the width of every number shown
        assert_eq!(part(20, 0, 98, 5), "20:24");
        // a range from 0 to a one-digit stop is as wide as "-1"
        assert_eq!(part(2, 0, 5, 2), " 2: 3");
    }

    #[test]
    fn partition_arguments() {
        // decimals are rounded to even before use
        let args = [
            Value::Double(24.5),
            Value::Int(0),
            Value::Int(99),
            Value::Int(5),
        ];
        assert_eq!(
            call(partition, &args).unwrap(),
            Value::Text(" 20: 24".into())
        );
        for (start, stop, interval) in [(-1, 10, 1), (10, 10, 1), (0, 10, 0)] {
            let args = [0, start, stop, interval].map(Value::Int);
            assert!(call(partition, &args).is_err(), "{start} {stop} {interval}");
        }
        let args = [
            Value::Int(1),
            Value::Int(0),
            Value::Int(3_000_000_000),
            Value::Int(1),
        ];
        let e = call(partition, &args).unwrap_err().to_string();
        assert!(e.contains("overflow"), "{e}");
    }

    #[test]
    fn qbcolor_values() {
        let q = |n: i64| call(qbcolor, &[Value::Int(n)]);
        // Black is RGB(0, 0, 0), Bright White RGB(255, 255, 255)
        // (the RGB page's table of standard colours)
        assert_eq!(q(0).unwrap(), Value::Int(0));
        assert_eq!(q(15).unwrap(), Value::Int(16_777_215));
        // 1 to 8 as VBA returns them (LibreOffice's VBA-compatibility
        // test basic/qa/vba_tests/qbcolor.vb measures the same numbers)
        let dim = [
            8_388_608, 32_768, 8_421_376, 128, 8_388_736, 32_896, 12_632_256, 8_421_504,
        ];
        for (i, want) in dim.iter().enumerate() {
            assert_eq!(
                q(i as i64 + 1).unwrap(),
                Value::Int(*want),
                "QBColor({})",
                i + 1
            );
        }
        assert!(q(16).is_err());
        assert!(q(-1).is_err());
        assert!(call(qbcolor, &[Value::Null]).is_err());
    }

    #[test]
    fn rgb_values() {
        let r = |a: i64, b: i64, c: i64| call(rgb, &[Value::Int(a), Value::Int(b), Value::Int(c)]);
        // the RGB page's table: Red is (255, 0, 0), Blue (0, 0, 255),
        // White (255, 255, 255); its example RGB(75, 139, 203)
        assert_eq!(r(255, 0, 0).unwrap(), Value::Int(255));
        assert_eq!(r(0, 0, 255).unwrap(), Value::Int(16_711_680));
        assert_eq!(r(255, 255, 255).unwrap(), Value::Int(16_777_215));
        assert_eq!(
            r(75, 139, 203).unwrap(),
            Value::Int(75 + 139 * 256 + 203 * 65_536)
        );
        // "The value for any argument to RGB that exceeds 255 is assumed
        // to be 255."
        assert_eq!(r(300, 0, 1000).unwrap(), Value::Int(255 + 255 * 65_536));
        assert!(r(-1, 0, 0).is_err());
        let null = [Value::Null, Value::Int(0), Value::Int(0)];
        assert!(call(rgb, &null).is_err());
    }
}
