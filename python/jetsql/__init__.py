"""Microsoft Access databases (``.mdb``, ``.accdb``) as Arrow tables.

``jetsql`` reads Jet3 (Access 97), Jet4 (Access 2000-2003) and ACE
(Access 2007 and later) files with typed columns, runs Access SQL over them
(index seeks, Jet rules), writes them through a journal, and hands results
to pyarrow, pandas, Polars, DuckDB and datafusion-python without copies::

    import jetsql
    db = jetsql.open("nwind.mdb")
    orders = db.read("Orders")                      # pyarrow.Table
    df = db.to_pandas("Orders", columns=["OrderID", "OrderDate"])
    db.sql("SELECT count(*) AS n FROM orders WHERE OrderID = 10250")

Scans and queries run with the GIL released; Ctrl-C cancels a query that
``read``, ``sql`` or ``execute`` is waiting for.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any, Iterator, Optional, Sequence, Union

import pyarrow as pa

from . import _jetsql
from ._jetsql import (
    ConstraintViolation,
    CorruptFile,
    Error,
    RecordBatchStream,
    TableProvider,
    WrongPassword,
    __version__,
)

if TYPE_CHECKING:
    import pandas
    import polars

__all__ = [
    "ConstraintViolation",
    "CorruptFile",
    "Database",
    "Error",
    "RecordBatchStream",
    "TableProvider",
    "WrongPassword",
    "__version__",
    "open",
]

PathLike = Union[str, "os.PathLike[str]"]


def open(  # noqa: A001 - the name the API promises
    path: PathLike,
    password: Optional[str] = None,
    write: bool = False,
    dialect: str = "access",
) -> "Database":
    """Open the Access database at ``path``.

    ``password`` opens an encrypted or password-protected file (a wrong or
    missing one raises :class:`WrongPassword`). With ``write=True`` the
    database accepts ``execute`` (INSERT, UPDATE, DELETE, CREATE TABLE, ...).
    ``dialect`` is the SQL ``sql`` and ``execute`` read: ``"access"``
    (Access SQL, the default) or ``"datafusion"``.

    Raises :class:`CorruptFile` for a file that is not an Access database
    or is damaged, :class:`Error` for other failures (missing file, a
    writer holding the file).
    """
    return Database(path, password=password, write=write, dialect=dialect)


def _pandas_types() -> dict:
    """The pandas dtypes Arrow columns become: nullable integers and
    booleans (a NULL stays ``pd.NA``, an integer stays an integer)."""
    import pandas as pd

    return {
        pa.int8(): pd.Int8Dtype(),
        pa.int16(): pd.Int16Dtype(),
        pa.int32(): pd.Int32Dtype(),
        pa.int64(): pd.Int64Dtype(),
        pa.uint8(): pd.UInt8Dtype(),
        pa.uint16(): pd.UInt16Dtype(),
        pa.uint32(): pd.UInt32Dtype(),
        pa.uint64(): pd.UInt64Dtype(),
        pa.bool_(): pd.BooleanDtype(),
    }


#: The ``currency=`` choices of :func:`to_pandas`.
CURRENCY_CHOICES = ("decimal", "arrow", "float")


def _decimal_as_float(data: pa.Table) -> pa.Table:
    """``data`` with every decimal column as float64, each value the
    double nearest the decimal (through its text: Arrow's direct cast
    scales in floating point, so 53.05 became 53.050000000000004)."""
    import pyarrow.compute as pc

    for i, field in enumerate(data.schema):
        if pa.types.is_decimal(field.type):
            text = pc.cast(data.column(i), pa.string())
            data = data.set_column(
                i,
                pa.field(field.name, pa.float64(), field.nullable, field.metadata),
                pc.cast(text, pa.float64()),
            )
    return data


def to_pandas(
    data: Union[pa.Table, Any], currency: str = "decimal", **kwargs: Any
) -> "pandas.DataFrame":
    """Convert an Arrow table (or anything with ``__arrow_c_stream__``) to a
    pandas DataFrame with jetsql's dtypes: nullable integers (``Int32``,
    ...) and booleans, ``datetime64`` dates, ``bytes`` for binary columns,
    and Currency and Decimal columns as ``currency`` says:

    - ``"decimal"`` (the default): ``decimal.Decimal`` objects, exact, as
      ``pyarrow`` itself converts decimals (and so as a Parquet file of the
      same data reads); money stays exact unless asked otherwise, at the
      cost of one Python object a value;
    - ``"arrow"``: a ``pandas.ArrowDtype`` of the Arrow ``decimal128``
      column, exact and without per-value objects (arithmetic through
      pyarrow compute);
    - ``"float"``: ``float64``, the nearest double of each value (Currency
      has four decimals; doubles hold about 15 significant digits).

    ``kwargs`` go to ``pyarrow.Table.to_pandas`` (``types_mapper`` replaces
    the dtypes).
    """
    if currency not in CURRENCY_CHOICES:
        raise ValueError(f"currency must be one of {', '.join(CURRENCY_CHOICES)}, not {currency!r}")
    if not isinstance(data, pa.Table):
        data = pa.RecordBatchReader.from_stream(data).read_all()
    if currency == "float":
        data = _decimal_as_float(data)
    if "types_mapper" not in kwargs:
        fixed = _pandas_types()
        if currency == "arrow":
            import pandas as pd

            def mapper(t: pa.DataType) -> Any:
                return pd.ArrowDtype(t) if pa.types.is_decimal(t) else fixed.get(t)

            kwargs["types_mapper"] = mapper
        else:
            kwargs["types_mapper"] = fixed.get
    return data.to_pandas(**kwargs)


class Database:
    """An open Access database; see :func:`open`.

    Use it as a context manager (or call :meth:`close`) to release the
    file: the database holds the file's lock while it is open (shared when
    read-only, so other readers may open it; a writer of another process
    waits).
    """

    def __init__(
        self,
        path: PathLike,
        password: Optional[str] = None,
        write: bool = False,
        dialect: str = "access",
    ) -> None:
        """Open ``path``; the arguments are those of :func:`open`."""
        self._db = _jetsql.Database(
            os.fspath(path), password=password, write=write, dialect=dialect
        )

    @property
    def path(self) -> str:
        """The path the database was opened from."""
        return os.fspath(self._db.path)

    @property
    def writable(self) -> bool:
        """Whether the database was opened with ``write=True``."""
        return self._db.writable

    @property
    def catalog(self) -> str:
        """The database's catalog name in SQL: its file stem, lower-cased
        (``nwind.public.orders`` names a table as well as ``orders``)."""
        return self._db.catalog

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._db.closed

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction (:meth:`transaction`, :meth:`begin`) is open."""
        return self._db.in_transaction

    def tables(self) -> list[str]:
        """The names of the user tables (system tables and saved queries
        are left out)."""
        return self._db.tables()

    def schema(self, name: str) -> pa.Schema:
        """The Arrow schema of table ``name`` (matched ignoring case), each
        field carrying the Jet metadata: ``jet.type`` (``Long``, ``Text``,
        ``Currency``, ...), ``jet.length``, ``jet.flags`` and where they apply
        ``jet.auto_number``, ``jet.precision``/``jet.scale``,
        ``jet.required``, ``jet.default``."""
        return pa.schema(self._db.schema(name))

    def read(
        self,
        name: str,
        columns: Optional[Sequence[str]] = None,
        limit: Optional[int] = None,
    ) -> pa.Table:
        """Table ``name`` as a ``pyarrow.Table``: the ``columns`` given, in
        that order (all by default), at most ``limit`` rows (in file
        order). The scan runs with the GIL released; Ctrl-C stops it."""
        s = self._db.scan(name, _columns(columns), limit, collect=True)
        return pa.RecordBatchReader.from_stream(s).read_all()

    def stream(
        self,
        name: str,
        columns: Optional[Sequence[str]] = None,
        limit: Optional[int] = None,
    ) -> RecordBatchStream:
        """Table ``name`` as a one-shot stream of record batches, decoded
        as it is read: pass it to ``pyarrow.RecordBatchReader.from_stream``,
        ``polars.from_arrow`` or DuckDB (``duckdb.sql("SELECT ... FROM s")``)."""
        return self._db.scan(name, _columns(columns), limit, collect=False)

    def to_pandas(
        self,
        name: str,
        columns: Optional[Sequence[str]] = None,
        limit: Optional[int] = None,
        currency: str = "decimal",
        **kwargs: Any,
    ) -> "pandas.DataFrame":
        """Table ``name`` as a pandas DataFrame (see :func:`to_pandas` for
        the dtypes and ``currency``); ``columns`` and ``limit`` as in
        :meth:`read`."""
        return to_pandas(self.read(name, columns, limit), currency=currency, **kwargs)

    def to_polars(
        self,
        name: str,
        columns: Optional[Sequence[str]] = None,
        limit: Optional[int] = None,
    ) -> "polars.DataFrame":
        """Table ``name`` as a Polars DataFrame, made from the Arrow batches
        without concatenating them (``rechunk=False``: one Polars chunk per
        batch, numbers and dates shared with Arrow, not copied); Currency
        stays an exact ``Decimal(19, 4)``. ``columns`` and ``limit`` as in
        :meth:`read`."""
        import polars as pl

        return pl.from_arrow(self.read(name, columns, limit), rechunk=False)

    def sql(self, query: str) -> pa.Table:
        """Run ``query`` and return its rows as a ``pyarrow.Table``.

        The jetsql session: Access SQL by default (or the dialect given to
        :func:`open`), table names matched ignoring case, indexed
        predicates answered by index seeks, saved queries usable as views.
        Several statements separated by ``;`` run in order; the last one's
        rows are returned. Ctrl-C cancels the query."""
        return pa.RecordBatchReader.from_stream(
            self._db.query(query, collect=True)
        ).read_all()

    def sql_stream(self, query: str) -> RecordBatchStream:
        """Run ``query`` as a one-shot stream: each batch is computed when
        the consumer asks for it (see :meth:`stream`)."""
        return self._db.query(query, collect=False)

    def execute(self, statement: str) -> Optional[int]:
        """Run a statement that changes the database (the database must
        be open with ``write=True``): INSERT, UPDATE, DELETE, CREATE /
        DROP TABLE, CREATE / DROP INDEX, ALTER TABLE. Returns the number of
        rows written, or ``None`` for statements that do not count rows.

        Outside :meth:`transaction` each statement is one journaled
        transaction: after a crash the file holds all of it or none.
        A refused write raises :class:`ConstraintViolation` (NOT NULL,
        unique index, relationship) or :class:`Error` and changes nothing.
        """
        return self._db.execute(statement)

    @contextlib.contextmanager
    def transaction(self) -> Iterator["Database"]:
        """Group several :meth:`execute` calls into one journaled
        transaction: committed when the ``with`` block ends normally,
        rolled back (the file untouched) when it raises."""
        self._db.begin()
        try:
            yield self
        except BaseException:
            self._db.rollback()
            raise
        self._db.commit()

    def begin(self) -> None:
        """Start a transaction (prefer :meth:`transaction`)."""
        self._db.begin()

    def commit(self) -> None:
        """Commit the open transaction in one journaled write."""
        self._db.commit()

    def rollback(self) -> None:
        """Forget every change of the open transaction."""
        self._db.rollback()

    def table_provider(self, name: str) -> TableProvider:
        """Table ``name`` for datafusion-python::

            ctx = datafusion.SessionContext()
            ctx.register_table("orders", db.table_provider("Orders"))

        Filters DataFusion pushes down reach the table: indexed predicates
        become index seeks."""
        return self._db.table_provider(name)

    def close(self) -> None:
        """Release the database and its file (streams and table providers
        taken from it keep the file open until they are gone). An open
        transaction is rolled back. Closing twice does nothing."""
        self._db.close()

    def __enter__(self) -> "Database":
        """The database itself."""
        return self

    def __exit__(self, *exc: object) -> None:
        """Close the database."""
        self.close()

    def __repr__(self) -> str:
        """``jetsql.Database('path')``."""
        return repr(self._db)


def _columns(columns: Optional[Sequence[str]]) -> Optional[list[str]]:
    """``columns`` as a list (a single string is one column name)."""
    if columns is None:
        return None
    if isinstance(columns, str):
        return [columns]
    return list(columns)
