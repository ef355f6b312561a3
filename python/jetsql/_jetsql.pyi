"""Type stub of the native module ``jetsql._jetsql`` (Rust, pyo3).

The public API is the ``jetsql`` package; these classes are what it wraps.
"""

from os import PathLike
from typing import Any, Optional, Union

__version__: str

class Error(Exception):
    """Any error of jetsql: opening, reading, querying or writing a database."""

class WrongPassword(Error):
    """The database is protected: no password, or not its password, was given."""

class CorruptFile(Error):
    """The file is not an Access database, or its bytes are damaged."""

class ConstraintViolation(Error):
    """A write refused by a NOT NULL column, a unique index or an enforced
    relationship; nothing changed."""

class ArrowSchema:
    """The Arrow schema of a table (Arrow PyCapsule interface)."""

    def __arrow_c_schema__(self) -> object:
        """The schema as an ``arrow_schema`` capsule."""

class RecordBatchStream:
    """A one-shot stream of record batches (Arrow PyCapsule interface)."""

    def __arrow_c_schema__(self) -> object:
        """The batches' schema as an ``arrow_schema`` capsule."""

    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object:
        """The batches as an ``arrow_array_stream`` capsule, handed over once;
        ``requested_schema`` is ignored."""

    @property
    def consumed(self) -> bool:
        """Whether the stream was handed to a consumer already."""

class TableProvider:
    """One table for datafusion-python (``SessionContext.register_table``)."""

    def __datafusion_table_provider__(self, session: Any) -> object:
        """A ``datafusion_table_provider`` capsule (datafusion-ffi 55) for
        the datafusion-python ``session``."""

    @property
    def name(self) -> str:
        """The table's name."""

class Database:
    """An open Access database."""

    def __init__(
        self,
        path: Union[str, "PathLike[str]"],
        password: Optional[str] = None,
        write: bool = False,
        dialect: str = "access",
    ) -> None:
        """Open ``path``."""

    @property
    def path(self) -> str:
        """The path the database was opened from."""

    @property
    def writable(self) -> bool:
        """Whether the database accepts writes."""

    @property
    def catalog(self) -> str:
        """The catalog name of the database in SQL."""

    @property
    def closed(self) -> bool:
        """Whether the database is closed."""

    @property
    def in_transaction(self) -> bool:
        """Whether a transaction is open."""

    def tables(self) -> list[str]:
        """The user tables."""

    def schema(self, name: str) -> ArrowSchema:
        """The Arrow schema of a table, with Jet metadata."""

    def scan(
        self,
        name: str,
        columns: Optional[list[str]] = None,
        limit: Optional[int] = None,
        collect: bool = False,
    ) -> RecordBatchStream:
        """A table as a stream (read now with ``collect``)."""

    def query(self, query: str, collect: bool = False) -> RecordBatchStream:
        """A query's rows as a stream (computed now with ``collect``)."""

    def execute(self, statement: str) -> Optional[int]:
        """Run statements; the rows the last one wrote, if it counts them."""

    def begin(self) -> None:
        """Start a transaction."""

    def commit(self) -> None:
        """Commit the open transaction."""

    def rollback(self) -> None:
        """Forget the open transaction."""

    def table_provider(self, name: str) -> TableProvider:
        """A table for datafusion-python."""

    def close(self) -> None:
        """Release the database."""
