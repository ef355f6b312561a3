"""Exceptions: classes and messages."""

from __future__ import annotations

import subprocess

import pytest

import jetsql
from conftest import need


def test_exception_classes():
    for cls in (jetsql.WrongPassword, jetsql.CorruptFile, jetsql.ConstraintViolation):
        assert issubclass(cls, jetsql.Error)
    assert issubclass(jetsql.Error, Exception)
    assert jetsql.Error.__module__ == "jetsql"


def test_wrong_or_missing_password(corpus):
    path = corpus / "jackcess-encrypt" / "db2007-enc.accdb"  # password Test123 (corpus README)
    need(path.is_file(), f"{path} is missing")
    with pytest.raises(jetsql.WrongPassword) as e:
        jetsql.open(path, password="not-it")
    assert "not-it" not in str(e.value)
    with pytest.raises(jetsql.WrongPassword):
        jetsql.open(path)
    with jetsql.open(path, password="Test123") as db:
        assert db.tables()
        for t in db.tables():
            db.read(t)


def test_wrong_database_password_of_a_jet4_file(corpus, mdbtools):
    path = corpus / "ucanaccess" / "password.mdb"  # password ucanaccess (corpus README)
    need(path.is_file(), f"{path} is missing")
    with pytest.raises(jetsql.WrongPassword):
        jetsql.open(path, password="wrong")
    expected = subprocess.run(["mdb-tables", "-1", str(path)], check=True, capture_output=True, text=True).stdout.split()
    assert jetsql.open(path, password="ucanaccess").tables() == expected


def test_not_an_access_file_is_corrupt(tmp_path):
    junk = tmp_path / "junk.mdb"
    junk.write_bytes(b"this is not a database" * 400)
    with pytest.raises(jetsql.CorruptFile, match="junk.mdb"):
        jetsql.open(junk)


def test_missing_file_is_an_error_not_corruption(tmp_path):
    with pytest.raises(jetsql.Error) as e:
        jetsql.open(tmp_path / "missing.mdb")
    assert not isinstance(e.value, jetsql.CorruptFile)
    assert "missing.mdb" in str(e.value)


def test_directory_is_refused(tmp_path):
    with pytest.raises(jetsql.Error, match="directory"):
        jetsql.open(tmp_path)


def test_bad_dialect_is_a_value_error(tmp_path):
    with pytest.raises(ValueError):
        jetsql.open(tmp_path / "x.mdb", dialect="oracle")
