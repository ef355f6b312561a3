//! The catalog reader: MSysObjects read into catalog entries.

use crate::error::{Result, SchemaError};
use crate::read::scan::{ScanOptions, ScanSource};
use crate::schema::catalog::{
    CatalogEntry, ObjectKind, TYPE_LINKED, TYPE_LINKED_ODBC, TYPE_QUERY, TYPE_TABLE,
};
use arrow_array::{Array, BinaryArray, Int16Array, Int32Array, StringArray};
use std::sync::Arc;

use super::table::Table;

/// Page of the MSysObjects table definition in every Jet file.
pub const MSYS_OBJECTS_PAGE: u32 = 2;

pub(crate) fn read_catalog(source: &Arc<ScanSource>) -> Result<Vec<CatalogEntry>> {
    let t = Table::load(source, "MSysObjects", MSYS_OBJECTS_PAGE, &[])
        .map_err(|e| e.in_table("MSysObjects"))?;
    let col = |name: &str| {
        t.def()
            .columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    };
    let need = |name: &str| {
        col(name).ok_or_else(|| SchemaError::NoSuchColumn {
            table: "MSysObjects".into(),
            column: name.into(),
        })
    };
    let want = [
        need("Id")?,
        need("ParentId")?,
        need("Name")?,
        need("Type")?,
        need("Flags")?,
    ];
    let opt = [
        col("Database"),
        col("ForeignName"),
        col("Connect"),
        col("LvProp"),
    ];
    let mut proj: Vec<usize> = want.to_vec();
    proj.extend(opt.iter().flatten());
    let scan = t.scan(ScanOptions {
        projection: Some(proj),
        ..Default::default()
    })?;
    let mut out = Vec::new();
    for batch in scan {
        let b = batch?;
        let ids = b.column(0).as_any().downcast_ref::<Int32Array>();
        let parents = b.column(1).as_any().downcast_ref::<Int32Array>();
        let names = b.column(2).as_any().downcast_ref::<StringArray>();
        let types = b.column(3).as_any().downcast_ref::<Int16Array>();
        let flags = b.column(4).as_any().downcast_ref::<Int32Array>();
        let (Some(ids), Some(parents), Some(names), Some(types), Some(flags)) =
            (ids, parents, names, types, flags)
        else {
            return Err(SchemaError::BadTdef {
                table: "MSysObjects".into(),
                page: MSYS_OBJECTS_PAGE,
                what: "unexpected column types".into(),
            }
            .into());
        };
        let mut k = 5;
        let mut text_col = |present: bool| -> Option<StringArray> {
            if present {
                let c = b.column(k).as_any().downcast_ref::<StringArray>().cloned();
                k += 1;
                c
            } else {
                None
            }
        };
        let database = text_col(opt[0].is_some());
        let foreign = text_col(opt[1].is_some());
        let connect = text_col(opt[2].is_some());
        let lvprop = if opt[3].is_some() {
            b.column(k).as_any().downcast_ref::<BinaryArray>().cloned()
        } else {
            None
        };
        let get = |a: &Option<StringArray>, i: usize| -> String {
            a.as_ref()
                .filter(|a| !a.is_null(i))
                .map(|a| a.value(i).to_string())
                .unwrap_or_default()
        };
        for i in 0..b.num_rows() {
            if names.is_null(i) || types.is_null(i) {
                continue;
            }
            let ty = types.value(i);
            let kind = match ty {
                TYPE_TABLE => ObjectKind::Table,
                TYPE_LINKED => ObjectKind::Linked {
                    database: get(&database, i),
                    foreign_name: get(&foreign, i),
                },
                TYPE_LINKED_ODBC => ObjectKind::LinkedOdbc {
                    connect: get(&connect, i),
                    foreign_name: get(&foreign, i),
                },
                TYPE_QUERY => ObjectKind::Query,
                other => ObjectKind::Other(other),
            };
            out.push(CatalogEntry {
                name: names.value(i).to_string(),
                id: if ids.is_null(i) { 0 } else { ids.value(i) },
                parent_id: if parents.is_null(i) {
                    0
                } else {
                    parents.value(i)
                },
                kind,
                flags: if flags.is_null(i) {
                    0
                } else {
                    flags.value(i) as u32
                },
                props: lvprop
                    .as_ref()
                    .filter(|a| !a.is_null(i))
                    .map(|a| a.value(i).to_vec())
                    .unwrap_or_default(),
            });
        }
    }
    Ok(out)
}
