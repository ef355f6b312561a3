//! The Inspection functions that look at what kind of value an argument
//! is rather than at its contents: VarType, TypeName, IsArray, IsError,
//! IsMissing and IsObject (IsNull, IsNumeric, IsDate and IsEmpty read
//! the value and live in [`super::logic`]).
//!
//! # Access types of jetsql's values
//!
//! A value's Access type is told from its Arrow type, the way the rest of
//! the library reads values ([`super::udf::variant_type`]) and the way
//! jetsql maps Jet columns to Arrow:
//!
//! | Arrow type | Access type | `VarType` | `TypeName` |
//! |---|---|---|---|
//! | (a Null value, any type) | Null | 1 | `Null` |
//! | Int16 (Int8) | Integer | 2 | `Integer` |
//! | Int32 (UInt16) | Long | 3 | `Long` |
//! | Float32 | Single | 4 | `Single` |
//! | Float64 | Double | 5 | `Double` |
//! | Decimal128(19, 4) | Currency | 6 | `Currency` |
//! | Timestamp, Date32/64 | Date | 7 | `Date` |
//! | Utf8 (Text, Memo, Replication ID columns) | String | 8 | `String` |
//! | Boolean | Boolean | 11 | `Boolean` |
//! | any other decimal | Decimal | 14 | `Decimal` |
//! | UInt8 | Byte | 17 | `Byte` |
//! | Int64 (UInt32, UInt64) | LongLong (Access's Large Number) | 20 | `LongLong` |
//! | Binary (OLE Object, Binary columns) | Byte array | 8209 | `Byte()` |
//! | List of T | array of T | 8192 + T's | T's name + `()` |
//!
//! The codes and names are VBA's
//! (<https://learn.microsoft.com/office/vba/language/reference/user-interface-help/vartype-function>,
//! <https://learn.microsoft.com/office/vba/language/reference/user-interface-help/typename-function>):
//! an array is `vbArray` (8192) plus its element's code and its
//! element's name followed by `()`. A Numeric column declared with
//! precision 19 and scale 4 has Currency's Arrow type and is reported as
//! Currency (as `/` divides it, see the Access planner).
//!
//! # Constants
//!
//! Access types a number written in a statement by its form: a whole
//! number from -32,768 to 32,767 is an Integer, a larger one a Long (and
//! beyond a Long a Double), a number with a decimal point a Double; so
//! `VarType(1)` is 2 and `TypeName(1)` is `Integer` in Access. jetsql
//! parses `1` as a 64-bit integer and `1.5` as a decimal, so a constant
//! argument (one DataFusion evaluates once for the statement: a literal,
//! or an expression of literals that it folds) is typed the way Access
//! types the literal: a 64-bit whole number by its size, a decimal as
//! Double. Constants made by `CCur` (Decimal128(19, 4)) and `CDec`
//! (Decimal128(38, 10)) keep Currency and Decimal. Values read from
//! columns keep their column's type; a computed column does too, and
//! DataFusion's arithmetic widens differently from Access's
//! (`[Quantity] * 2` is an Int64, reported as LongLong, where Access says
//! Integer).

use super::value::fn_err;
use datafusion::arrow::array::{Array, ArrayRef, BooleanArray, Int16Array, StringArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::ScalarValue;
use datafusion::error::Result;
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDFImpl, Signature, Volatility,
};
use std::sync::Arc;

/// `vbNull`: no valid data.
pub const VB_NULL: i16 = 1;
/// `vbInteger`.
pub const VB_INTEGER: i16 = 2;
/// `vbLong`.
pub const VB_LONG: i16 = 3;
/// `vbSingle`.
pub const VB_SINGLE: i16 = 4;
/// `vbDouble`.
pub const VB_DOUBLE: i16 = 5;
/// `vbCurrency`.
pub const VB_CURRENCY: i16 = 6;
/// `vbDate`.
pub const VB_DATE: i16 = 7;
/// `vbString`.
pub const VB_STRING: i16 = 8;
/// `vbBoolean`.
pub const VB_BOOLEAN: i16 = 11;
/// `vbVariant` (only with `vbArray`: an array of Variants).
pub const VB_VARIANT: i16 = 12;
/// `vbDecimal`.
pub const VB_DECIMAL: i16 = 14;
/// `vbByte`.
pub const VB_BYTE: i16 = 17;
/// `vbLongLong`: a 64-bit integer (Access's Large Number).
pub const VB_LONG_LONG: i16 = 20;
/// `vbArray`, added to the element's code.
pub const VB_ARRAY: i16 = 8192;

/// What VarType and TypeName say of one value: VBA's code and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subtype {
    /// The `VarType` code.
    pub code: i16,
    /// The `TypeName` string.
    pub name: String,
}

impl Subtype {
    fn new(code: i16, name: &str) -> Self {
        Subtype {
            code,
            name: name.to_string(),
        }
    }
    /// The subtype of a Null value.
    pub fn null() -> Self {
        Subtype::new(VB_NULL, "Null")
    }
}

/// The code and name of a value (not an array) of Arrow type `t`, or
/// `None` for a type no Access value has.
fn scalar_subtype(t: &DataType) -> Option<(i16, &'static str)> {
    use DataType::*;
    Some(match t {
        Null => (VB_NULL, "Null"),
        Boolean => (VB_BOOLEAN, "Boolean"),
        UInt8 => (VB_BYTE, "Byte"),
        Int8 | Int16 => (VB_INTEGER, "Integer"),
        UInt16 | Int32 => (VB_LONG, "Long"),
        Int64 | UInt32 | UInt64 => (VB_LONG_LONG, "LongLong"),
        Float16 | Float32 => (VB_SINGLE, "Single"),
        Float64 => (VB_DOUBLE, "Double"),
        Decimal128(19, 4) => (VB_CURRENCY, "Currency"),
        Decimal32(..) | Decimal64(..) | Decimal128(..) | Decimal256(..) => (VB_DECIMAL, "Decimal"),
        Date32 | Date64 | Timestamp(..) => (VB_DATE, "Date"),
        Utf8 | LargeUtf8 | Utf8View => (VB_STRING, "String"),
        Dictionary(_, v) => return scalar_subtype(v),
        _ => return None,
    })
}

/// The subtype of a non-Null value of Arrow type `t` (binary data is a
/// Byte array, a list an array of its element type, a list of Nulls an
/// array of Variants), or `None` for a type no Access value has.
pub fn subtype_of(t: &DataType) -> Option<Subtype> {
    use DataType::*;
    match t {
        Binary | LargeBinary | BinaryView | FixedSizeBinary(_) => {
            Some(Subtype::new(VB_ARRAY + VB_BYTE, "Byte()"))
        }
        List(f) | LargeList(f) | FixedSizeList(f, _) => {
            let elem = f.data_type();
            if matches!(elem, Binary | LargeBinary | BinaryView | FixedSizeBinary(_)) {
                // an array of arrays has no VarType code
                return None;
            }
            let (code, name) = scalar_subtype(elem)?;
            Some(if code == VB_NULL {
                Subtype::new(VB_ARRAY + VB_VARIANT, "Variant()")
            } else {
                Subtype::new(VB_ARRAY + code, &format!("{name}()"))
            })
        }
        Dictionary(_, v) => subtype_of(v),
        other => scalar_subtype(other).map(|(code, name)| Subtype::new(code, name)),
    }
}

/// The subtype Access gives a constant (see the module docs): Null; a
/// 64-bit whole number as Integer, Long or Double by its size; a decimal
/// other than Currency's and `CDec`'s types as Double; any other by its
/// type.
pub fn constant_subtype(v: &ScalarValue) -> Option<Subtype> {
    if v.is_null() {
        return Some(Subtype::null());
    }
    match v {
        ScalarValue::Int64(Some(n)) => Some(if i16::try_from(*n).is_ok() {
            Subtype::new(VB_INTEGER, "Integer")
        } else if i32::try_from(*n).is_ok() {
            Subtype::new(VB_LONG, "Long")
        } else {
            Subtype::new(VB_DOUBLE, "Double")
        }),
        // Currency is Decimal128(19, 4) (types::currency), CDec's result
        // Decimal128(38, 10) (types::decimal); other decimal constants
        // are literals with a decimal point, Doubles in Access
        ScalarValue::Decimal128(_, p, s) if !matches!((*p, *s), (19, 4) | (38, 10)) => {
            Some(Subtype::new(VB_DOUBLE, "Double"))
        }
        other => subtype_of(&other.data_type()),
    }
}

/// Whether a non-Null value of Arrow type `t` is an array for `IsArray`:
/// binary data (a Byte array in Access) and lists.
fn is_array_type(t: &DataType) -> bool {
    use DataType::*;
    match t {
        Binary | LargeBinary | BinaryView | FixedSizeBinary(_) | List(_) | LargeList(_)
        | FixedSizeList(..) => true,
        Dictionary(_, v) => is_array_type(v),
        _ => false,
    }
}

/// Which inspection a [`TypeInspect`] makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    VarType,
    TypeName,
    IsArray,
    IsError,
    IsMissing,
    IsObject,
}

/// One of VarType, TypeName, IsArray, IsError, IsMissing, IsObject as a
/// DataFusion UDF. Unlike the other Access functions it sees its
/// argument's own Arrow type (no argument is converted before the call),
/// since the type is what it reports; every Arrow type with an Access
/// value (see [`subtype_of`]) is accepted, and by the Is functions any
/// type at all.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct TypeInspect {
    kind: Kind,
    title: &'static str,
    name: String,
    signature: Signature,
}

impl TypeInspect {
    fn new(kind: Kind, title: &'static str) -> Self {
        TypeInspect {
            kind,
            title,
            name: title.to_ascii_lowercase(),
            signature: Signature::user_defined(Volatility::Immutable),
        }
    }

    /// The six inspection functions.
    pub fn all() -> Vec<TypeInspect> {
        vec![
            TypeInspect::new(Kind::VarType, "VarType"),
            TypeInspect::new(Kind::TypeName, "TypeName"),
            TypeInspect::new(Kind::IsArray, "IsArray"),
            TypeInspect::new(Kind::IsError, "IsError"),
            TypeInspect::new(Kind::IsMissing, "IsMissing"),
            TypeInspect::new(Kind::IsObject, "IsObject"),
        ]
    }

    fn unsupported(&self, t: &DataType) -> datafusion::error::DataFusionError {
        fn_err(
            self.title,
            format!("a value of type {t} has no Access type to report"),
        )
    }

    /// The answer for one value of type `t`, `null` telling a Null value.
    fn answer(&self, t: &DataType, null: bool) -> Result<ScalarValue> {
        Ok(match self.kind {
            Kind::VarType | Kind::TypeName => {
                let s = if null {
                    Subtype::null()
                } else {
                    subtype_of(t).ok_or_else(|| self.unsupported(t))?
                };
                self.report(s)
            }
            Kind::IsArray => ScalarValue::Boolean(Some(!null && is_array_type(t))),
            // no jetsql value is an Error (CVErr), a missing optional
            // argument or an object
            Kind::IsError | Kind::IsMissing | Kind::IsObject => ScalarValue::Boolean(Some(false)),
        })
    }

    /// VarType's or TypeName's result for a subtype.
    fn report(&self, s: Subtype) -> ScalarValue {
        match self.kind {
            Kind::VarType => ScalarValue::Int16(Some(s.code)),
            _ => ScalarValue::Utf8(Some(s.name)),
        }
    }

    /// The answer for a constant argument (see the module docs).
    fn constant(&self, v: &ScalarValue) -> Result<ScalarValue> {
        match self.kind {
            Kind::VarType | Kind::TypeName => {
                let s = constant_subtype(v).ok_or_else(|| self.unsupported(&v.data_type()))?;
                Ok(self.report(s))
            }
            _ => self.answer(&v.data_type(), v.is_null()),
        }
    }

    /// The answers for a column of values.
    fn column(&self, a: &ArrayRef) -> Result<ArrayRef> {
        let t = a.data_type();
        let nulls = a.logical_nulls();
        let is_null = |r: usize| nulls.as_ref().is_some_and(|n| n.is_null(r));
        let n = a.len();
        Ok(match self.kind {
            Kind::VarType => {
                let code = subtype_of(t).ok_or_else(|| self.unsupported(t))?.code;
                let codes: Vec<i16> = (0..n)
                    .map(|r| if is_null(r) { VB_NULL } else { code })
                    .collect();
                Arc::new(Int16Array::from(codes))
            }
            Kind::TypeName => {
                let name = subtype_of(t).ok_or_else(|| self.unsupported(t))?.name;
                let names: Vec<&str> = (0..n)
                    .map(|r| if is_null(r) { "Null" } else { name.as_str() })
                    .collect();
                Arc::new(StringArray::from(names))
            }
            Kind::IsArray => {
                let array = is_array_type(t);
                let flags: Vec<bool> = (0..n).map(|r| array && !is_null(r)).collect();
                Arc::new(BooleanArray::from(flags))
            }
            Kind::IsError | Kind::IsMissing | Kind::IsObject => {
                Arc::new(BooleanArray::from(vec![false; n]))
            }
        })
    }
}

impl ScalarUDFImpl for TypeInspect {
    fn name(&self) -> &str {
        &self.name
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    /// The argument keeps its type: that type is what is inspected.
    fn coerce_types(&self, arg_types: &[DataType]) -> Result<Vec<DataType>> {
        let [t] = arg_types else {
            return Err(fn_err(
                self.title,
                format!("takes 1 argument, {} given", arg_types.len()),
            ));
        };
        if matches!(self.kind, Kind::VarType | Kind::TypeName) && subtype_of(t).is_none() {
            return Err(self.unsupported(t));
        }
        Ok(vec![t.clone()])
    }
    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(match self.kind {
            Kind::VarType => DataType::Int16,
            Kind::TypeName => DataType::Utf8,
            _ => DataType::Boolean,
        })
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [arg] = args.args.as_slice() else {
            return Err(fn_err(
                self.title,
                format!("takes 1 argument, {} given", args.args.len()),
            ));
        };
        match arg {
            ColumnarValue::Scalar(v) => Ok(ColumnarValue::Scalar(self.constant(v)?)),
            ColumnarValue::Array(a) => Ok(ColumnarValue::Array(self.column(a)?)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{
        BinaryArray, Decimal128Array, Float32Array, Float64Array, Int32Array, Int64Array,
        NullArray, TimestampMicrosecondArray, UInt8Array,
    };
    use datafusion::arrow::datatypes::{Field, TimeUnit};

    const VARTYPE: &str = "https://learn.microsoft.com/office/vba/language/reference/user-interface-help/vartype-function";
    const TYPENAME: &str = "https://learn.microsoft.com/office/vba/language/reference/user-interface-help/typename-function";

    fn f(kind: Kind) -> TypeInspect {
        TypeInspect::all()
            .into_iter()
            .find(|f| f.kind == kind)
            .unwrap()
    }

    fn arr(a: impl Array + 'static) -> ArrayRef {
        Arc::new(a)
    }

    /// VarType and TypeName of every row of `a`.
    fn both(a: ArrayRef) -> Vec<(i16, String)> {
        let codes = f(Kind::VarType).column(&a).unwrap();
        let names = f(Kind::TypeName).column(&a).unwrap();
        let codes = codes.as_any().downcast_ref::<Int16Array>().unwrap();
        let names = names.as_any().downcast_ref::<StringArray>().unwrap();
        (0..a.len())
            .map(|r| (codes.value(r), names.value(r).to_string()))
            .collect()
    }

    #[test]
    fn columns_report_their_access_type() {
        let cases: Vec<(ArrayRef, i16, &str)> = vec![
            (arr(Int16Array::from(vec![Some(1), None])), 2, "Integer"),
            (arr(Int32Array::from(vec![Some(1), None])), 3, "Long"),
            (arr(Float32Array::from(vec![Some(1.5), None])), 4, "Single"),
            (arr(Float64Array::from(vec![Some(1.5), None])), 5, "Double"),
            (
                arr(Decimal128Array::from(vec![Some(15_000), None])
                    .with_precision_and_scale(19, 4)
                    .unwrap()),
                6,
                "Currency",
            ),
            (
                arr(TimestampMicrosecondArray::from(vec![Some(0), None])),
                7,
                "Date",
            ),
            (arr(StringArray::from(vec![Some("a"), None])), 8, "String"),
            (
                arr(BooleanArray::from(vec![Some(true), None])),
                11,
                "Boolean",
            ),
            (
                arr(Decimal128Array::from(vec![Some(15), None])
                    .with_precision_and_scale(12, 2)
                    .unwrap()),
                14,
                "Decimal",
            ),
            (arr(UInt8Array::from(vec![Some(1), None])), 17, "Byte"),
            (arr(Int64Array::from(vec![Some(1), None])), 20, "LongLong"),
            (
                arr(BinaryArray::from(vec![Some(&b"ab"[..]), None])),
                8209,
                "Byte()",
            ),
        ];
        for (a, code, name) in cases {
            let t = a.data_type().clone();
            let got = both(a);
            // the value's type: VBA's code and name for it
            assert_eq!(
                got[0],
                (code, name.to_string()),
                "{t}: {VARTYPE} {TYPENAME}"
            );
            // a Null value is vbNull, "Null", whatever its column's type
            assert_eq!(got[1], (1, "Null".to_string()), "{t} Null");
        }
        assert_eq!(both(Arc::new(NullArray::new(2)))[1], (1, "Null".into()));
        let ts = DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()));
        assert_eq!(subtype_of(&ts).unwrap().code, VB_DATE);
    }

    #[test]
    fn arrays_add_vb_array_to_their_element() {
        // "the value returned for an array of integers is calculated as
        // vbInteger + vbArray, or 8194" (VarType page); TypeName appends
        // "()" (TypeName page: an array of integers is "Integer()")
        let ints = DataType::List(Arc::new(Field::new("item", DataType::Int16, true)));
        assert_eq!(
            subtype_of(&ints).unwrap(),
            Subtype {
                code: 8194,
                name: "Integer()".into()
            }
        );
        let vars = DataType::List(Arc::new(Field::new("item", DataType::Null, true)));
        assert_eq!(subtype_of(&vars).unwrap().code, VB_ARRAY + VB_VARIANT);
        let nested = DataType::List(Arc::new(Field::new("item", ints.clone(), true)));
        assert!(subtype_of(&nested).is_none());
        assert!(f(Kind::VarType).coerce_types(&[nested]).is_err());
    }

    #[test]
    fn constants_are_typed_as_access_types_literals() {
        let s = |v: ScalarValue| constant_subtype(&v).unwrap();
        // VarType(1) is 2, TypeName(1) "Integer"
        assert_eq!(s(ScalarValue::Int64(Some(1))), Subtype::new(2, "Integer"));
        assert_eq!(s(ScalarValue::Int64(Some(-32768))).code, VB_INTEGER);
        assert_eq!(
            s(ScalarValue::Int64(Some(100_000))),
            Subtype::new(3, "Long")
        );
        assert_eq!(s(ScalarValue::Int64(Some(3_000_000_000))).code, VB_DOUBLE);
        // 1.5 is a Double
        assert_eq!(
            s(ScalarValue::Decimal128(Some(15), 2, 1)),
            Subtype::new(5, "Double")
        );
        // CCur and CDec results keep their types
        assert_eq!(
            s(ScalarValue::Decimal128(Some(15_000), 19, 4)).code,
            VB_CURRENCY
        );
        assert_eq!(
            s(ScalarValue::Decimal128(Some(15), 38, 10)).code,
            VB_DECIMAL
        );
        // CInt and CLng results are typed already
        assert_eq!(s(ScalarValue::Int16(Some(1))).code, VB_INTEGER);
        assert_eq!(s(ScalarValue::Int32(Some(1))).code, VB_LONG);
        assert_eq!(s(ScalarValue::Utf8(Some("x".into()))).code, VB_STRING);
        // Null is vbNull whatever the constant's type
        assert_eq!(s(ScalarValue::Null), Subtype::null());
        assert_eq!(s(ScalarValue::Int64(None)), Subtype::null());
        // through the UDF: a scalar answer
        assert_eq!(
            f(Kind::VarType)
                .constant(&ScalarValue::Int64(Some(1)))
                .unwrap(),
            ScalarValue::Int16(Some(2))
        );
        assert_eq!(
            f(Kind::TypeName).constant(&ScalarValue::Null).unwrap(),
            ScalarValue::Utf8(Some("Null".into()))
        );
    }

    #[test]
    fn is_functions() {
        // IsArray: True for an array (binary data is a Byte array), False
        // for Null and other values
        // (https://learn.microsoft.com/office/vba/language/reference/user-interface-help/isarray-function)
        let bin: ArrayRef = Arc::new(BinaryArray::from(vec![Some(&b"ab"[..]), None]));
        let got = f(Kind::IsArray).column(&bin).unwrap();
        let got = got.as_any().downcast_ref::<BooleanArray>().unwrap();
        assert!(got.value(0));
        assert!(!got.value(1));
        let text: ArrayRef = Arc::new(StringArray::from(vec!["a"]));
        let got = f(Kind::IsArray).column(&text).unwrap();
        assert!(
            !got.as_any()
                .downcast_ref::<BooleanArray>()
                .unwrap()
                .value(0)
        );
        // IsError, IsMissing, IsObject: no jetsql value is an error value,
        // a missing argument or an object
        for k in [Kind::IsError, Kind::IsMissing, Kind::IsObject] {
            for a in [bin.clone(), text.clone()] {
                let got = f(k).column(&a).unwrap();
                let got = got.as_any().downcast_ref::<BooleanArray>().unwrap();
                assert_eq!(got.true_count(), 0, "{k:?}");
                assert_eq!(got.null_count(), 0, "{k:?}");
            }
            assert_eq!(
                f(k).constant(&ScalarValue::Null).unwrap(),
                ScalarValue::Boolean(Some(false))
            );
        }
    }

    #[test]
    fn one_argument_of_any_access_type() {
        let v = f(Kind::VarType);
        assert!(v.coerce_types(&[]).is_err());
        assert!(v.coerce_types(&[DataType::Int16, DataType::Int16]).is_err());
        // the argument is not converted
        assert_eq!(
            v.coerce_types(&[DataType::UInt8]).unwrap(),
            vec![DataType::UInt8]
        );
        let msg = v
            .coerce_types(&[DataType::Struct(Default::default())])
            .unwrap_err()
            .to_string();
        assert!(msg.contains("VarType: a value of type"), "{msg}");
        // the Is functions take any type
        assert!(
            f(Kind::IsObject)
                .coerce_types(&[DataType::Struct(Default::default())])
                .is_ok()
        );
    }
}
