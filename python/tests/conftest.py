"""Shared fixtures of the jetsql Python tests.

The corpus of real Access files and the mdbtools oracle live beside the
checkout (``../shared``; ``JET_CORPUS`` / ``JET_ORACLE`` override them).
Expected values come from mdbtools (the oracle's row counts, ``mdb-export``
and ``mdb-schema`` run here), never from jetsql. A missing prerequisite
skips a test locally and fails it under ``CI=true``.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def in_ci() -> bool:
    """Whether the tests run under CI (a skip is a failure there)."""
    return os.environ.get("CI", "").lower() == "true"


def need(condition: bool, what: str) -> None:
    """Skip (locally) or fail (CI) unless ``condition`` holds."""
    if condition:
        return
    if in_ci():
        pytest.fail(f"{what} (CI=true: a skipped test is a failure)")
    pytest.skip(what)


def _dir(env: str, default: str) -> Path:
    value = os.environ.get(env)
    if value:
        p = Path(value)
        return p if p.is_absolute() else ROOT / p
    return ROOT / default


@pytest.fixture(scope="session")
def corpus() -> Path:
    """The corpus directory."""
    d = _dir("JET_CORPUS", "../shared/corpus")
    need(d.is_dir(), f"database corpus not found at {d} (set JET_CORPUS)")
    return d


@pytest.fixture(scope="session")
def oracle() -> Path:
    """The mdbtools oracle directory."""
    d = _dir("JET_ORACLE", "../shared/oracle")
    need(d.is_dir(), f"mdbtools oracle not found at {d} (set JET_ORACLE)")
    return d


@pytest.fixture(scope="session")
def nwind(corpus: Path) -> Path:
    """Northwind (Jet3), read-only."""
    p = corpus / "mdbtools" / "nwind.mdb"
    need(p.is_file(), f"{p} is missing")
    return p


@pytest.fixture(scope="session")
def mdbtools() -> None:
    """mdb-export and mdb-schema must run."""
    for tool in ("mdb-export", "mdb-schema"):
        need(shutil.which(tool) is not None, f"{tool} not found (apt-get install mdbtools)")


def oracle_counts(oracle: Path, relative: str) -> dict[str, int]:
    """Row counts by table from the oracle's ``<file>.tsv``."""
    out = {}
    with open(oracle / relative, encoding="utf-8") as f:
        for line in f:
            table, rows, _digest = line.rstrip("\n").split("\t")
            out[table] = int(rows)
    return out


NULL = "\u2205"


def mdb_export(path: Path, table: str) -> tuple[list[str], list[list[str | None]]]:
    """``mdb-export`` of ``table``: the header and the rows, NULL as None,
    dates as ``YYYY-MM-DD HH:MM:SS``."""
    out = subprocess.run(
        ["mdb-export", "-0", NULL, "-T", "%Y-%m-%d %H:%M:%S", str(path), table],
        check=True,
        capture_output=True,
    ).stdout.decode("utf-8")
    rows = list(csv.reader(io.StringIO(out)))
    header, body = rows[0], rows[1:]
    return header, [[None if v == NULL else v for v in r] for r in body]


@pytest.fixture
def sample_copy(tmp_path: Path) -> Path:
    """A writable copy of the project's sample ACCDB (fixtures/sample.accdb)."""
    src = ROOT / "fixtures" / "sample.accdb"
    need(src.is_file(), f"{src} is missing")
    dst = tmp_path / "sample.accdb"
    shutil.copyfile(src, dst)
    dst.chmod(0o600)
    return dst
