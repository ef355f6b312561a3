"""datafusion-python 55 over jetsql's FFI table provider."""

from __future__ import annotations

import pytest

import jetsql
from conftest import mdb_export, oracle_counts



def _ctx(nwind):
    import datafusion

    db = jetsql.open(nwind)
    ctx = datafusion.SessionContext()
    ctx.register_table("orders", db.table_provider("Orders"))
    ctx.register_table("order_details", db.table_provider("order details"))
    return db, ctx


def test_datafusion_python_answers_as_the_native_session(nwind, oracle):
    import datafusion

    assert datafusion.__version__.startswith("55.")
    rows = oracle_counts(oracle, "mdbtools/nwind.mdb.tsv")
    db, ctx = _ctx(nwind)
    q = 'SELECT count(*) AS n FROM orders WHERE "OrderID" = 10250'
    assert ctx.sql(q).to_pydict()["n"] == [1]
    assert db.sql(q).column("n").to_pylist() == [1]
    assert ctx.sql("SELECT count(*) AS n FROM orders").to_pydict()["n"] == [rows["Orders"]]
    assert ctx.sql("SELECT count(*) AS n FROM order_details").to_pydict()["n"] == [rows["Order Details"]]


def test_ffi_rows_equal_native_rows(nwind, mdbtools):
    _, export = mdb_export(nwind, "Orders")
    db, ctx = _ctx(nwind)
    q = (
        'SELECT "OrderID", "CustomerID", "Freight" FROM orders '
        'WHERE "OrderID" BETWEEN 10300 AND 10310 ORDER BY "OrderID"'
    )
    ffi = ctx.sql(q).to_arrow_table()
    native = db.sql(q)
    assert ffi.to_pylist() == native.to_pylist()
    expected = sorted(int(r[0]) for r in export if 10300 <= int(r[0]) <= 10310)
    assert ffi.column("OrderID").to_pylist() == expected


def test_pushed_filter_is_an_index_seek(nwind):
    _, ctx = _ctx(nwind)
    plan = ctx.sql('EXPLAIN SELECT * FROM orders WHERE "OrderID" = 10250').to_pydict()
    text = "\n".join(plan["plan"])
    assert "IndexSeekExec" in text, text
    # without an indexed predicate the table is scanned
    plan = ctx.sql('EXPLAIN SELECT * FROM orders WHERE "ShipName" = \'x\'').to_pydict()
    assert "IndexSeekExec" not in "\n".join(plan["plan"])


def test_provider_for_a_missing_table_is_an_error(nwind):
    with pytest.raises(jetsql.Error, match="no table named"):
        jetsql.open(nwind).table_provider("nope")
