//! Property maps: the `LvProp` blobs of MSysObjects (`MR2\0` in Jet4+,
//! `KKD\0` in Jet3) holding Design View properties of a table and of each of
//! its columns (defaults, descriptions, a calculated column's result type…).

use crate::format::text;
use encoding_rs::Encoding;

/// Block type of the property-name list.
const NAME_LIST: u16 = 0x80;
/// Block type of the object's own (unnamed) property map.
const OBJECT_MAP: u16 = 0x00;
/// Block type of a column's property map.
const COLUMN_MAP: u16 = 0x01;
/// Jet type byte of Yes/No property values (one byte, 0 or 1).
pub const PROP_BOOLEAN: u8 = 0x01;
/// Jet type byte of Byte property values (one unsigned byte).
pub const PROP_BYTE: u8 = 0x02;
/// Jet type byte of Integer property values (i16, little-endian).
pub const PROP_INTEGER: u8 = 0x03;
/// Jet type byte of Long property values (i32, little-endian).
pub const PROP_LONG: u8 = 0x04;
/// Jet type byte of Text property values (as Memo).
pub const PROP_TEXT: u8 = 0x0A;
/// Jet type byte of Memo property values (UCS-2 text, as Access stores a
/// column's `DefaultValue`).
pub const PROP_MEMO: u8 = 0x0C;
/// Name of the property that makes a column refuse NULL.
pub const REQUIRED: &str = "Required";
/// Name of the property holding a column's default-value expression.
pub const DEFAULT_VALUE: &str = "DefaultValue";

/// One property: its name, Jet type byte and raw value bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    /// Property name.
    pub name: String,
    /// Jet type byte of the value.
    pub type_byte: u8,
    /// Whether the property was set by DDL.
    pub ddl: bool,
    /// Value bytes as stored.
    pub value: Vec<u8>,
}

/// The property maps of one object: one map for the object itself (named
/// empty) and one per column (named after it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PropertyMaps {
    /// `(map name, properties)` in stored order.
    pub maps: Vec<(String, Vec<Property>)>,
}

impl PropertyMaps {
    /// Parses a property blob. Malformed or truncated blocks end the parse
    /// (what was read is kept); unknown headers give an empty result. Never
    /// panics and never reads past `bytes`.
    pub fn parse(bytes: &[u8], unicode: bool, encoding: &'static Encoding) -> PropertyMaps {
        let mut out = PropertyMaps::default();
        if bytes.len() < 4 || !(bytes[..4] == *b"MR2\0" || bytes[..4] == *b"KKD\0") {
            return out;
        }
        let mut names: Vec<String> = Vec::new();
        let mut pos = 4;
        while let Some(block) = take_block(bytes, pos) {
            let (len, ty, body) = block;
            if ty == NAME_LIST {
                let mut p = 0;
                while let Some((name, next)) = read_name(body, p, unicode, encoding) {
                    names.push(name);
                    p = next;
                }
            } else if let Some(map) = parse_values(body, &names, unicode, encoding) {
                out.maps.push(map);
            }
            pos += len;
        }
        out
    }

    /// Encodes the maps as a Jet4/ACE property blob (`MR2\0`): one name
    /// list holding every property name once (in first-use order), then one
    /// block per map (the unnamed map as the object's block, each named map
    /// as a column block), each value as length, DDL flag, type byte, name
    /// index, size and the value bytes. [`PropertyMaps::parse`] of the result
    /// gives back `self`. Refuses (returns `None`) a name or value longer
    /// than the format's 16-bit sizes.
    pub fn encode_jet4(&self) -> Option<Vec<u8>> {
        let mut names: Vec<&str> = Vec::new();
        for (_, props) in &self.maps {
            for p in props {
                if !names.iter().any(|n| n.eq_ignore_ascii_case(&p.name)) {
                    names.push(&p.name);
                }
            }
        }
        let mut out = b"MR2\0".to_vec();
        let mut list = Vec::new();
        for n in &names {
            put_name(&mut list, n)?;
        }
        put_block(&mut out, NAME_LIST, &list)?;
        for (map, props) in &self.maps {
            let mut body = Vec::new();
            let mut name = Vec::new();
            put_name(&mut name, map)?;
            body.extend_from_slice(&u32::try_from(name.len() + 4).ok()?.to_le_bytes());
            body.extend_from_slice(&name);
            for p in props {
                let idx = names.iter().position(|n| n.eq_ignore_ascii_case(&p.name))?;
                let vlen = u16::try_from(8 + p.value.len()).ok()?;
                body.extend_from_slice(&vlen.to_le_bytes());
                body.push(u8::from(p.ddl));
                body.push(p.type_byte);
                body.extend_from_slice(&u16::try_from(idx).ok()?.to_le_bytes());
                body.extend_from_slice(&u16::try_from(p.value.len()).ok()?.to_le_bytes());
                body.extend_from_slice(&p.value);
            }
            let ty = if map.is_empty() {
                OBJECT_MAP
            } else {
                COLUMN_MAP
            };
            put_block(&mut out, ty, &body)?;
        }
        Some(out)
    }

    /// Sets property `prop` in the map named `map` (case-insensitive),
    /// replacing a property of the same name, creating the map (at the end)
    /// when absent.
    pub fn set(&mut self, map: &str, prop: Property) {
        let i = match self
            .maps
            .iter()
            .position(|(m, _)| m.eq_ignore_ascii_case(map))
        {
            Some(i) => i,
            None => {
                self.maps.push((map.to_string(), Vec::new()));
                self.maps.len() - 1
            }
        };
        let props = &mut self.maps[i].1;
        match props
            .iter_mut()
            .find(|p| p.name.eq_ignore_ascii_case(&prop.name))
        {
            Some(p) => *p = prop,
            None => props.push(prop),
        }
    }

    /// Whether column `column`'s `Required` property is set (Yes).
    pub fn required(&self, column: &str) -> bool {
        self.get(column, REQUIRED)
            .is_some_and(|p| p.value.first().is_some_and(|b| *b != 0))
    }

    /// Column `column`'s `DefaultValue` expression text, if it has one
    /// (Jet4/ACE text; a Jet3 value is decoded with `encoding`).
    pub fn default_value(
        &self,
        column: &str,
        unicode: bool,
        encoding: &'static Encoding,
    ) -> Option<String> {
        let p = self.get(column, DEFAULT_VALUE)?;
        let mut s = String::new();
        if unicode {
            text::decode_ucs2(&p.value, &mut s);
        } else {
            text::decode_codepage(&p.value, encoding, &mut s);
        }
        (!s.is_empty()).then_some(s)
    }

    /// The property `prop` of the map named `map` (case-insensitive names).
    pub fn get(&self, map: &str, prop: &str) -> Option<&Property> {
        self.maps
            .iter()
            .filter(|(m, _)| m.eq_ignore_ascii_case(map))
            .flat_map(|(_, ps)| ps.iter())
            .find(|p| p.name.eq_ignore_ascii_case(prop))
    }
}

impl Property {
    /// The value as text, as Access shows it in Design View: Text and Memo
    /// values decoded (UCS-2 in Jet4+, the code page in Jet3), Yes/No as
    /// `Yes`/`No`, whole numbers in decimal. `None` for empty values and
    /// for types without a text form (GUIDs, binary) or with truncated bytes.
    pub fn text(&self, unicode: bool, encoding: &'static Encoding) -> Option<String> {
        let v = &self.value;
        let s = match self.type_byte {
            PROP_BOOLEAN => {
                if *v.first()? != 0 {
                    "Yes".to_string()
                } else {
                    "No".to_string()
                }
            }
            PROP_BYTE => v.first()?.to_string(),
            PROP_INTEGER => i16::from_le_bytes(v.get(..2)?.try_into().ok()?).to_string(),
            PROP_LONG => i32::from_le_bytes(v.get(..4)?.try_into().ok()?).to_string(),
            PROP_TEXT | PROP_MEMO => {
                let mut s = String::new();
                if unicode {
                    text::decode_ucs2(v, &mut s);
                } else {
                    text::decode_codepage(v, encoding, &mut s);
                }
                s
            }
            _ => return None,
        };
        (!s.is_empty()).then_some(s)
    }

    /// A DDL Yes/No property (stored as one byte, 1 for Yes).
    pub fn boolean(name: &str, value: bool) -> Property {
        Property {
            name: name.to_string(),
            type_byte: PROP_BOOLEAN,
            ddl: true,
            value: vec![u8::from(value)],
        }
    }

    /// A DDL Memo property holding `text` as uncompressed UCS-2 (how Access
    /// stores `DefaultValue`).
    pub fn memo(name: &str, text: &str) -> Property {
        Property {
            name: name.to_string(),
            type_byte: PROP_MEMO,
            ddl: true,
            value: text.encode_utf16().flat_map(u16::to_le_bytes).collect(),
        }
    }
}

/// Copies the column properties the engine enforces (`Required`,
/// `DefaultValue`) from `props` onto the columns of `def`.
pub fn apply_column_rules(
    def: &mut crate::schema::tdef::TableDef,
    props: &PropertyMaps,
    unicode: bool,
    encoding: &'static Encoding,
) {
    for c in def.columns.iter_mut() {
        c.required = props.required(&c.name);
        c.default_value = props.default_value(&c.name, unicode, encoding);
    }
}

fn put_name(out: &mut Vec<u8>, name: &str) -> Option<()> {
    let units: Vec<u8> = name.encode_utf16().flat_map(u16::to_le_bytes).collect();
    out.extend_from_slice(&u16::try_from(units.len()).ok()?.to_le_bytes());
    out.extend_from_slice(&units);
    Some(())
}

fn put_block(out: &mut Vec<u8>, ty: u16, body: &[u8]) -> Option<()> {
    out.extend_from_slice(&u32::try_from(body.len() + 6).ok()?.to_le_bytes());
    out.extend_from_slice(&ty.to_le_bytes());
    out.extend_from_slice(body);
    Some(())
}

fn u16_at(b: &[u8], p: usize) -> Option<usize> {
    jet_kernels::bytes::u16_at(b, p).map(usize::from)
}

fn take_block(b: &[u8], pos: usize) -> Option<(usize, u16, &[u8])> {
    let len = jet_kernels::bytes::u32_at(b, pos)? as usize;
    let ty = jet_kernels::bytes::u16_at(b, pos + 4)?;
    if len < 6 {
        return None;
    }
    let body = jet_kernels::range::slice(b, pos + 6, len - 6)?;
    Some((len, ty, body))
}

fn read_name(
    b: &[u8],
    p: usize,
    unicode: bool,
    encoding: &'static Encoding,
) -> Option<(String, usize)> {
    let len = u16_at(b, p)?;
    let raw = jet_kernels::range::slice(b, p + 2, len)?;
    let mut s = String::new();
    if unicode {
        text::decode_ucs2(raw, &mut s);
    } else {
        text::decode_codepage(raw, encoding, &mut s);
    }
    Some((s, p + 2 + len))
}

fn parse_values(
    body: &[u8],
    names: &[String],
    unicode: bool,
    encoding: &'static Encoding,
) -> Option<(String, Vec<Property>)> {
    let name_block = jet_kernels::bytes::u32_at(body, 0)? as usize;
    if name_block < 4 {
        return None;
    }
    let map_name = if name_block > 6 {
        read_name(body, 4, unicode, encoding)?.0
    } else {
        String::new()
    };
    let mut p = name_block;
    let mut props = Vec::new();
    while p < body.len() {
        let vlen = u16_at(body, p)?;
        if vlen < 8 {
            break;
        }
        let ddl = *body.get(p + 2)? != 0;
        let type_byte = *body.get(p + 3)?;
        let name_idx = u16_at(body, p + 4)?;
        let size = u16_at(body, p + 6)?;
        let value = jet_kernels::range::slice(body, p + 8, size)?.to_vec();
        if let Some(name) = names.get(name_idx) {
            props.push(Property {
                name: name.clone(),
                type_byte,
                ddl,
                value,
            });
        }
        p += vlen;
    }
    Some((map_name, props))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encoded_maps_parse_back_with_access_layout() {
        let mut m = PropertyMaps::default();
        m.set("", Property::boolean("OrderByOn", false));
        m.set("CD_AGENTE", Property::boolean(REQUIRED, false));
        m.set("CD_AGENTE", Property::memo(DEFAULT_VALUE, "0"));
        m.set("RS_AGENTE", Property::boolean(REQUIRED, true));
        m.set("CD_AGENTE", Property::boolean(REQUIRED, true));
        let b = m.encode_jet4().unwrap();
        assert_eq!(&b[..4], b"MR2\0");
        // the name list block: length, type 0x80, then each name once
        let names_len = u32::from_le_bytes([b[4], b[5], b[6], b[7]]) as usize;
        assert_eq!(&b[8..10], &[0x80, 0x00]);
        assert_eq!(names_len, 6 + (2 + 18) + (2 + 16) + (2 + 24));
        // a DefaultValue "0" record as Access writes it (compIndexTestV2000):
        // length 10, DDL, Memo, name index 2, size 2, UCS-2 "0"
        let rec = [0x0A, 0x00, 0x01, 0x0C, 0x02, 0x00, 0x02, 0x00, 0x30, 0x00];
        assert!(b.windows(rec.len()).any(|w| w == rec));
        // the unnamed map is the object's block (type 0), columns type 1
        let parsed = PropertyMaps::parse(&b, true, encoding_rs::WINDOWS_1252);
        assert_eq!(parsed, m);
        assert!(parsed.required("cd_agente"));
        assert!(parsed.required("RS_AGENTE"));
        assert!(!parsed.required("other"));
        assert_eq!(
            parsed.default_value("CD_AGENTE", true, encoding_rs::WINDOWS_1252),
            Some("0".to_string())
        );
        let second = 4 + names_len;
        assert_eq!(&b[second + 4..second + 6], &[0x00, 0x00]);
    }

    #[test]
    fn oversized_values_are_refused() {
        let mut m = PropertyMaps::default();
        m.set("c", Property::memo(DEFAULT_VALUE, &"x".repeat(40_000)));
        assert_eq!(m.encode_jet4(), None);
    }
}
