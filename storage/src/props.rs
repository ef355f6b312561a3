//! Property maps: the `LvProp` blobs of MSysObjects (`MR2\0` in Jet4+,
//! `KKD\0` in Jet3) holding Design View properties of a table and of each of
//! its columns (defaults, descriptions, a calculated column's result type…).

use crate::text;
use encoding_rs::Encoding;

/// Block type of the property-name list.
const NAME_LIST: u16 = 0x80;

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

    /// The property `prop` of the map named `map` (case-insensitive names).
    pub fn get(&self, map: &str, prop: &str) -> Option<&Property> {
        self.maps
            .iter()
            .filter(|(m, _)| m.eq_ignore_ascii_case(map))
            .flat_map(|(_, ps)| ps.iter())
            .find(|p| p.name.eq_ignore_ascii_case(prop))
    }
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
