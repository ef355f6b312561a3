//! Access's text comparison fold (`access_text_fold`): the key Access
//! compares texts by (trailing spaces dropped, ASCII letters in lower
//! case), as a UDF the operator planner and the pushdown rules share.

use datafusion::arrow::array::{ArrayRef, StringArray};
use datafusion::arrow::datatypes::DataType;
use datafusion::common::{ScalarValue, cast::as_string_array};
use datafusion::error::{DataFusionError, Result};
use datafusion::logical_expr::{
    ColumnarValue, ScalarFunctionArgs, ScalarUDF, ScalarUDFImpl, Signature, TypeSignature,
    Volatility,
};
use std::sync::Arc;

use crate::scan::pushdown::TEXT_FOLD;

/// The comparison key of Access text: ASCII letters lower-cased, trailing
/// spaces removed. Jet's text index keys ignore case and trailing spaces
/// too, so an equality on the folded column still seeks its index (the
/// seek reads a superset and the plan re-checks). Letters beyond ASCII
/// keep their case: that keeps every folded-equal pair key-equal, so a
/// seek can never miss a row the comparison accepts.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct TextFold {
    signature: Signature,
}

impl Default for TextFold {
    fn default() -> Self {
        TextFold {
            signature: Signature::one_of(
                vec![
                    TypeSignature::Exact(vec![DataType::Utf8]),
                    TypeSignature::Exact(vec![DataType::LargeUtf8]),
                    TypeSignature::Exact(vec![DataType::Utf8View]),
                ],
                Volatility::Immutable,
            ),
        }
    }
}

/// Folds one value (see [`TextFold`]).
pub fn fold(s: &str) -> String {
    s.trim_end_matches(' ').to_ascii_lowercase()
}

impl ScalarUDFImpl for TextFold {
    fn name(&self) -> &str {
        TEXT_FOLD
    }
    fn signature(&self) -> &Signature {
        &self.signature
    }
    fn return_type(&self, _arg_types: &[DataType]) -> Result<DataType> {
        Ok(DataType::Utf8)
    }
    fn invoke_with_args(&self, args: ScalarFunctionArgs) -> Result<ColumnarValue> {
        let [arg] = args.args.as_slice() else {
            return Err(DataFusionError::Execution(format!(
                "{TEXT_FOLD} takes one argument"
            )));
        };
        match arg {
            ColumnarValue::Scalar(s) => {
                let v = match s {
                    ScalarValue::Utf8(v) | ScalarValue::LargeUtf8(v) | ScalarValue::Utf8View(v) => {
                        v.as_deref().map(fold)
                    }
                    _ => None,
                };
                Ok(ColumnarValue::Scalar(ScalarValue::Utf8(v)))
            }
            ColumnarValue::Array(a) => {
                let a = datafusion::arrow::compute::cast(a, &DataType::Utf8)?;
                let strings = as_string_array(&a)?;
                let out: StringArray = strings.iter().map(|v| v.map(fold)).collect();
                Ok(ColumnarValue::Array(Arc::new(out) as ArrayRef))
            }
        }
    }
}

/// The folding function as a UDF.
pub fn text_fold_udf() -> Arc<ScalarUDF> {
    Arc::new(ScalarUDF::new_from_impl(TextFold::default()))
}
