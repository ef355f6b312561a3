"""The Arrow PyCapsule stream protocol: pyarrow, Polars and DuckDB read
jetsql's streams batch by batch."""

from __future__ import annotations

import pyarrow as pa
import pytest

import jetsql
from conftest import mdb_export, oracle_counts


def test_pyarrow_reads_a_table_stream_batch_by_batch(nwind, oracle):
    rows = oracle_counts(oracle, "mdbtools/nwind.mdb.tsv")["Order Details"]
    db = jetsql.open(nwind)
    s = db.stream("Order Details")
    assert hasattr(s, "__arrow_c_stream__") and not s.consumed
    reader = pa.RecordBatchReader.from_stream(s)
    assert reader.schema == db.schema("Order Details")
    seen = 0
    while True:
        try:
            batch = reader.read_next_batch()
        except StopIteration:
            break
        assert isinstance(batch, pa.RecordBatch)
        seen += batch.num_rows
    assert seen == rows
    assert s.consumed
    with pytest.raises(jetsql.Error, match="read already"):
        pa.RecordBatchReader.from_stream(s)


def test_stream_schema_capsule(nwind):
    s = jetsql.open(nwind).stream("Orders", columns=["OrderID", "Freight"], limit=7)
    assert pa.schema(s).names == ["OrderID", "Freight"]
    assert pa.table(s).num_rows == 7


def test_polars_reads_the_stream(nwind, oracle):
    import polars as pl

    rows = oracle_counts(oracle, "mdbtools/nwind.mdb.tsv")["Orders"]
    df = pl.DataFrame(jetsql.open(nwind).stream("Orders"))
    assert df.shape == (rows, 14)
    assert df.schema["OrderID"] == pl.Int32
    assert df.schema["OrderDate"] == pl.Datetime("us")


def test_duckdb_scans_the_stream(nwind, mdbtools):
    import duckdb

    _, rows = mdb_export(nwind, "Orders")
    orders = jetsql.open(nwind).stream("Orders")
    con = duckdb.connect()
    got = con.sql('SELECT count(*), max("OrderID") FROM orders').fetchall()[0]
    assert got == (len(rows), max(int(r[0]) for r in rows))


def test_query_results_stream_too(nwind, mdbtools):
    import duckdb

    _, rows = mdb_export(nwind, "Order Details")
    db = jetsql.open(nwind)
    s = db.sql_stream('SELECT "OrderID", "Quantity" FROM [Order Details] WHERE "Quantity" > 50')
    con = duckdb.connect()
    got = con.sql('SELECT count(*), sum("Quantity") FROM s').fetchall()[0]
    big = [int(r[3]) for r in rows if int(r[3]) > 50]
    assert got == (len(big), sum(big))
    # a pyarrow table is itself a stream: sql results go anywhere a stream goes
    t = db.sql("SELECT count(*) AS n FROM [Order Details]")
    assert pa.table(t).column("n").to_pylist() == [len(rows)]
