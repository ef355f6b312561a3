//! Jet column types and their Arrow mapping.

use arrow_schema::{DataType, TimeUnit};

/// A Jet column type (the type byte of a column descriptor).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JetType {
    /// Yes/No, stored in the null mask.
    Boolean,
    /// Unsigned 8-bit.
    Byte,
    /// Signed 16-bit ("Integer").
    Integer,
    /// Signed 32-bit ("Long Integer").
    Long,
    /// Signed 64-bit scaled by 10 000.
    Currency,
    /// IEEE single.
    Single,
    /// IEEE double.
    Double,
    /// Days since 1899-12-30 as a double.
    DateTime,
    /// Up to 255 bytes.
    Binary,
    /// Up to 255 characters.
    Text,
    /// Long binary (OLE object), a long value.
    Ole,
    /// Long text, a long value.
    Memo,
    /// 16-byte GUID (replication ID).
    Guid,
    /// 17-byte scaled decimal.
    Numeric,
    /// Complex column (attachment, multi-value, version history): a 4-byte id
    /// into a hidden table.
    Complex,
    /// Signed 64-bit ("Large Number", ACE 16+).
    BigInt,
    /// Extended date/time: 42 ASCII bytes, 100 ns ticks from 0001-01-01.
    ExtDateTime,
    /// A type byte this reader does not interpret; its bytes are passed through.
    Unknown(u8),
}

impl JetType {
    /// Maps a type byte. Total: unknown bytes become [`JetType::Unknown`].
    pub fn from_byte(b: u8) -> JetType {
        match b {
            0x01 => JetType::Boolean,
            0x02 => JetType::Byte,
            0x03 => JetType::Integer,
            0x04 => JetType::Long,
            0x05 => JetType::Currency,
            0x06 => JetType::Single,
            0x07 => JetType::Double,
            0x08 => JetType::DateTime,
            0x09 => JetType::Binary,
            0x0A => JetType::Text,
            0x0B => JetType::Ole,
            0x0C => JetType::Memo,
            0x0F => JetType::Guid,
            0x10 => JetType::Numeric,
            0x12 => JetType::Complex,
            0x13 => JetType::BigInt,
            0x14 => JetType::ExtDateTime,
            other => JetType::Unknown(other),
        }
    }

    /// The type's name as Access shows it.
    pub fn name(self) -> &'static str {
        match self {
            JetType::Boolean => "Boolean",
            JetType::Byte => "Byte",
            JetType::Integer => "Integer",
            JetType::Long => "Long",
            JetType::Currency => "Currency",
            JetType::Single => "Single",
            JetType::Double => "Double",
            JetType::DateTime => "DateTime",
            JetType::Binary => "Binary",
            JetType::Text => "Text",
            JetType::Ole => "OLE",
            JetType::Memo => "Memo",
            JetType::Guid => "GUID",
            JetType::Numeric => "Numeric",
            JetType::Complex => "Complex",
            JetType::BigInt => "BigInt",
            JetType::ExtDateTime => "ExtDateTime",
            JetType::Unknown(_) => "Unknown",
        }
    }

    /// Bytes a value occupies in the fixed area, for fixed-size types.
    pub fn fixed_size(self) -> Option<usize> {
        Some(match self {
            JetType::Boolean => 0,
            JetType::Byte => 1,
            JetType::Integer => 2,
            JetType::Long | JetType::Single | JetType::Complex => 4,
            JetType::Currency | JetType::Double | JetType::DateTime | JetType::BigInt => 8,
            JetType::Guid => 16,
            JetType::Numeric => 17,
            JetType::ExtDateTime => 42,
            _ => return None,
        })
    }

    /// Whether values are long values (12-byte descriptor + LVAL pages).
    pub fn is_long_value(self) -> bool {
        matches!(self, JetType::Memo | JetType::Ole)
    }

    /// The Arrow type of this column's values.
    ///
    /// Boolean → Boolean; Byte → UInt8; Integer → Int16; Long → Int32;
    /// BigInt → Int64; Currency → Decimal128(19,4); Single → Float32;
    /// Double → Float64; DateTime → Timestamp(µs); ExtDateTime →
    /// Timestamp(µs) (full 0001–9999 range; the seventh fractional digit,
    /// 100 ns, is truncated); Numeric → Decimal128(p,s); GUID, Text, Memo →
    /// Utf8; Binary, OLE, unknown → Binary; Complex → Int32 (the id of the
    /// row group in the column's hidden table).
    pub fn arrow_type(self, precision: u8, scale: u8) -> DataType {
        match self {
            JetType::Boolean => DataType::Boolean,
            JetType::Byte => DataType::UInt8,
            JetType::Integer => DataType::Int16,
            JetType::Long => DataType::Int32,
            JetType::BigInt => DataType::Int64,
            JetType::Currency => DataType::Decimal128(19, 4),
            JetType::Single => DataType::Float32,
            JetType::Double => DataType::Float64,
            JetType::DateTime | JetType::ExtDateTime => {
                DataType::Timestamp(TimeUnit::Microsecond, None)
            }
            JetType::Numeric => {
                let p = precision.clamp(1, 38);
                let s = scale.min(p);
                DataType::Decimal128(p, s as i8)
            }
            JetType::Guid | JetType::Text | JetType::Memo => DataType::Utf8,
            JetType::Binary | JetType::Ole | JetType::Unknown(_) => DataType::Binary,
            JetType::Complex => DataType::Int32,
        }
    }
}
