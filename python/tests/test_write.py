"""Writes through Database.execute and transactions, on copies of the
project's sample database; every outcome is read back with mdb-export."""

from __future__ import annotations

import pytest

import jetsql
from conftest import mdb_export


def _create(db):
    db.execute(
        "CREATE TABLE Notes (ID LONG NOT NULL PRIMARY KEY, Body TEXT(50) NOT NULL, Amount CURRENCY)"
    )


def test_insert_update_delete_round_trip(sample_copy, mdbtools):
    with jetsql.open(sample_copy, write=True) as db:
        _create(db)
        assert db.execute("INSERT INTO Notes (ID, Body, Amount) VALUES (1, 'one', 1.5), (2, 'two', NULL)") == 2
        assert db.execute("UPDATE Notes SET Body = 'zwei' WHERE ID = 2") == 1
        assert db.execute("INSERT INTO Notes (ID, Body) VALUES (3, 'three')") == 1
        assert db.execute("DELETE FROM Notes WHERE ID = 1") == 1
        assert db.read("Notes").to_pylist() == [
            {"ID": 2, "Body": "zwei", "Amount": None},
            {"ID": 3, "Body": "three", "Amount": None},
        ]
    header, rows = mdb_export(sample_copy, "Notes")
    assert header == ["ID", "Body", "Amount"]
    assert sorted(rows) == [["2", "zwei", None], ["3", "three", None]]


def test_constraint_violations_change_nothing(sample_copy, mdbtools):
    with jetsql.open(sample_copy, write=True) as db:
        _create(db)
        db.execute("INSERT INTO Notes (ID, Body) VALUES (1, 'one')")
        with pytest.raises(jetsql.ConstraintViolation):
            db.execute("INSERT INTO Notes (ID, Body) VALUES (2, NULL)")
        with pytest.raises(jetsql.ConstraintViolation):
            db.execute("INSERT INTO Notes (ID, Body) VALUES (1, 'again')")
    _, rows = mdb_export(sample_copy, "Notes")
    assert rows == [["1", "one", None]]


def test_transaction_commits_all_or_nothing(sample_copy, mdbtools):
    with jetsql.open(sample_copy, write=True) as db:
        _create(db)
        with db.transaction():
            db.execute("INSERT INTO Notes (ID, Body) VALUES (1, 'a')")
            db.execute("INSERT INTO Notes (ID, Body) VALUES (2, 'b')")
            assert db.in_transaction
            # the transaction sees its own rows
            assert db.sql("SELECT count(*) AS n FROM Notes").column("n").to_pylist() == [2]
        assert not db.in_transaction
        with pytest.raises(RuntimeError):
            with db.transaction():
                db.execute("INSERT INTO Notes (ID, Body) VALUES (3, 'c')")
                raise RuntimeError("changed my mind")
        assert not db.in_transaction
        assert db.read("Notes").num_rows == 2
    _, rows = mdb_export(sample_copy, "Notes")
    assert sorted(r[1] for r in rows) == ["a", "b"]


def test_read_only_database_refuses_writes(sample_copy, mdbtools):
    before = mdb_export(sample_copy, "Orders")
    with jetsql.open(sample_copy) as db:
        assert not db.writable
        with pytest.raises(jetsql.Error, match="read-only"):
            db.execute("DELETE FROM Orders")
    assert mdb_export(sample_copy, "Orders") == before
