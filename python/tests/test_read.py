"""Reading tables: row counts, types and values against mdbtools."""

from __future__ import annotations

import datetime
import decimal
import math
import re
import subprocess

import pyarrow as pa
import pytest

import jetsql
from conftest import mdb_export, oracle_counts

# mdb-schema's type names -> jetsql's `jet.type` metadata
MDB_TYPES = {
    "Boolean": "Boolean",
    "Byte": "Byte",
    "Integer": "Integer",
    "Long Integer": "Long",
    "Currency": "Currency",
    "Single": "Single",
    "Double": "Double",
    "DateTime": "DateTime",
    "Text": "Text",
    "Memo/Hyperlink": "Memo",
    "OLE": "OLE",
}

COMPARED_TABLES = ["Orders", "Order Details", "Products", "Customers", "Shippers", "Suppliers"]


def test_orders_has_the_830_rows_mdbtools_counts(nwind, oracle):
    expected = oracle_counts(oracle, "mdbtools/nwind.mdb.tsv")["Orders"]
    assert expected == 830
    assert jetsql.open(nwind).read("Orders").num_rows == expected


def test_every_table_has_the_rows_mdbtools_counts(nwind, oracle):
    expected = oracle_counts(oracle, "mdbtools/nwind.mdb.tsv")
    with jetsql.open(nwind) as db:
        assert sorted(db.tables()) == sorted(expected)
        for table, rows in expected.items():
            assert db.read(table).num_rows == rows, table


def _mdb_schema_columns(path, table):
    """(name, type, not null) of each column of ``table`` per mdb-schema."""
    out = subprocess.run(
        ["mdb-schema", "-T", table, str(path)], check=True, capture_output=True
    ).stdout.decode("utf-8")
    cols = []
    for m in re.finditer(r"^\t\[([^\]]+)\]\t+([A-Za-z/ ]+?)(?: \(\d+\))?( NOT NULL)?,?\s*$", out, re.M):
        cols.append((m.group(1), m.group(2), bool(m.group(3))))
    assert cols, out
    return cols


def test_schema_types_are_those_mdb_schema_reports(nwind, mdbtools):
    with jetsql.open(nwind) as db:
        for table in db.tables():
            schema = db.schema(table)
            assert isinstance(schema, pa.Schema)
            expected = _mdb_schema_columns(nwind, table)
            assert schema.names == [c[0] for c in expected], table
            for field, (name, mdb_type, _not_null) in zip(schema, expected):
                meta = {k.decode(): v.decode() for k, v in (field.metadata or {}).items()}
                assert meta["jet.type"] == MDB_TYPES[mdb_type], (table, name)


def test_schema_arrow_types(nwind):
    schema = jetsql.open(nwind).schema("orders")  # names match ignoring case
    assert schema.field("OrderID").type == pa.int32()
    assert schema.field("OrderDate").type == pa.timestamp("us")
    assert schema.field("Freight").type == pa.decimal128(19, 4)
    assert schema.field("CustomerID").type == pa.string()
    meta = schema.field("CustomerID").metadata
    # Jet3 stores text in bytes: mdb-schema says [CustomerID] Text (5)
    assert meta[b"jet.type"] == b"Text" and meta[b"jet.length"] == b"5"


def _as_export_text(value):
    """A value as mdb-export writes it (dates with -T '%Y-%m-%d %H:%M:%S')."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, datetime.datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, decimal.Decimal):
        return f"{value:.4f}"
    return str(value)


def _same(ours, theirs):
    if ours is None or theirs is None:
        return ours is None and theirs is None
    if isinstance(ours, float):
        return math.isclose(ours, float(theirs), rel_tol=1e-6, abs_tol=1e-9)
    return _as_export_text(ours) == theirs


@pytest.mark.parametrize("table", COMPARED_TABLES)
def test_values_equal_mdb_export(nwind, mdbtools, table):
    header, rows = mdb_export(nwind, table)
    t = jetsql.open(nwind).read(table)
    assert t.column_names == header
    binary = [i for i, f in enumerate(t.schema) if pa.types.is_binary(f.type) or pa.types.is_large_binary(f.type)]
    ours = [list(r.values()) for r in t.to_pylist()]
    assert len(ours) == len(rows)
    # both read the table in page order; compare row by row
    for i, (a, b) in enumerate(zip(ours, rows)):
        for c, (x, y) in enumerate(zip(a, b)):
            if c in binary:
                continue
            assert _same(x, y), (table, i, header[c], x, y)


def test_columns_in_the_order_asked_and_limit(nwind):
    with jetsql.open(nwind) as db:
        t = db.read("Orders", columns=["shipcity", "OrderID"], limit=5)
        assert t.column_names == ["ShipCity", "OrderID"]
        assert t.num_rows == 5
        _, rows = mdb_export(nwind, "Orders")
        assert t.column("OrderID").to_pylist() == [int(r[0]) for r in rows[:5]]
        with pytest.raises(jetsql.Error, match="no column"):
            db.read("Orders", columns=["NoSuchColumn"])
        with pytest.raises(jetsql.Error, match="no table named"):
            db.read("NoSuchTable")


def test_pandas_dtypes_are_nullable_and_typed(nwind, mdbtools):
    import pandas as pd

    df = jetsql.open(nwind).to_pandas("Orders")
    assert len(df) == 830
    assert df["OrderID"].dtype == pd.Int32Dtype()
    assert df["EmployeeID"].dtype == pd.Int32Dtype()
    assert df["OrderDate"].dtype.kind == "M"  # datetime64
    assert all(isinstance(v, decimal.Decimal) for v in df["Freight"].dropna())
    # NULLs stay missing values, as many as mdb-export writes
    header, rows = mdb_export(nwind, "Orders")
    col = header.index("ShipRegion")
    assert int(df["ShipRegion"].isna().sum()) == sum(r[col] is None for r in rows)
    products = jetsql.open(nwind).to_pandas("Products")
    assert products["Discontinued"].dtype == pd.BooleanDtype()
    assert products["UnitsInStock"].dtype == pd.Int16Dtype()


def test_pandas_currency_choices_keep_mdbtools_values(nwind, mdbtools):
    """Issue 36: Currency as Decimal objects (default), as an exact Arrow
    decimal dtype, or as float64; each holds mdb-export's amounts."""
    import pandas as pd

    header, rows = mdb_export(nwind, "Orders")
    col = header.index("Freight")
    expected = [None if r[col] is None else decimal.Decimal(r[col]) for r in rows]
    with jetsql.open(nwind) as db:
        exact = db.to_pandas("Orders", columns=["Freight"])["Freight"]
        arrow = db.to_pandas("Orders", columns=["Freight"], currency="arrow")["Freight"]
        floats = db.to_pandas("Orders", columns=["Freight"], currency="float")["Freight"]
        with pytest.raises(ValueError, match="currency must be one of"):
            db.to_pandas("Orders", currency="money")
    assert [None if pd.isna(v) else v for v in exact] == expected
    assert isinstance(arrow.dtype, pd.ArrowDtype)
    assert arrow.dtype.pyarrow_dtype == pa.decimal128(19, 4)
    assert [None if pd.isna(v) else v for v in arrow] == expected
    assert floats.dtype == "float64"
    assert [None if math.isnan(v) else v for v in floats] == [
        None if e is None else float(e) for e in expected
    ]


def test_polars_frame_holds_mdbtools_rows(nwind, mdbtools):
    """Issue 36: to_polars without a copy into one chunk; the same rows,
    NULLs and exact Currency values as mdb-export."""
    header, rows = mdb_export(nwind, "Orders")
    with jetsql.open(nwind) as db:
        df = db.to_polars("Orders", columns=["OrderID", "ShipRegion", "Freight"])
    assert df.height == len(rows)
    assert df["OrderID"].to_list() == [int(r[header.index("OrderID")]) for r in rows]
    region = header.index("ShipRegion")
    assert df["ShipRegion"].null_count() == sum(r[region] is None for r in rows)
    freight = header.index("Freight")
    assert df["Freight"].to_list() == [
        None if r[freight] is None else decimal.Decimal(r[freight]) for r in rows
    ]


def test_sql_counts_with_the_access_session(nwind, mdbtools):
    _, rows = mdb_export(nwind, "Orders")
    expected = sum(1 for r in rows if r[0] == "10250")
    with jetsql.open(nwind) as db:
        t = db.sql('SELECT count(*) AS n FROM orders WHERE "OrderID" = 10250')
        assert t.column("n").to_pylist() == [expected] == [1]
        # Access SQL: TOP, [bracketed] names, # dates
        top = db.sql("SELECT TOP 3 [OrderID] FROM [Orders] ORDER BY [OrderID]")
        assert top.column("OrderID").to_pylist() == sorted(int(r[0]) for r in rows)[:3]
        n = db.sql("SELECT count(*) AS n FROM Orders WHERE OrderDate >= #1995-01-01#")
        header, _ = mdb_export(nwind, "Orders")
        d = header.index("OrderDate")
        assert n.column("n").to_pylist() == [sum(r[d] >= "1995-01-01" for r in rows)]
        # the catalog name qualifies tables too
        assert db.catalog == "nwind"
        q = db.sql('SELECT count(*) AS n FROM nwind.public."Order Details"')
        assert q.column("n").to_pylist() == [len(mdb_export(nwind, "Order Details")[1])]


def test_sql_errors_read_as_messages(nwind):
    with jetsql.open(nwind) as db:
        with pytest.raises(jetsql.Error) as e:
            db.sql("SELEC 1")
        assert "SQL error" not in str(e.value) and "ParserError" not in str(e.value)
        with pytest.raises(jetsql.Error, match="orderz"):
            db.sql("SELECT * FROM orderz")


def test_closed_database_says_so(nwind):
    db = jetsql.open(nwind)
    db.close()
    db.close()
    assert db.closed
    with pytest.raises(jetsql.Error, match="closed"):
        db.tables()
