"""The rows PostgreSQL client libraries read, as JSON: psycopg 3 with
text results, with binary results, and with server-side prepared
statements and parameters; pyodbc through psqlODBC (unixODBC) with `?`
parameters, and its catalog calls (SQLTables, SQLColumns). The same
queries (PostgreSQL syntax, quoted names) run against `jetsql serve`
(in the datafusion dialect) and against PostgreSQL holding the same data
(`jetsql migrate`); the answers must agree.

Usage: clients.py PSYCOPG_CONNINFO [ODBC_CONNECTION_STRING]"""
import json
import sys

import psycopg

QUERIES = [
    'SELECT "OrderID", "CustomerID", "EmployeeID", "OrderDate", "Freight", "ShipName" '
    'FROM "Orders" WHERE "OrderID" BETWEEN 10248 AND 10270 ORDER BY "OrderID"',
    'SELECT "ProductID", "ProductName", "UnitPrice", "UnitsInStock", "Discontinued" '
    'FROM "Products" ORDER BY "ProductID"',
    'SELECT "CategoryID", "CategoryName", "Picture" FROM "Categories" ORDER BY "CategoryID"',
    'SELECT "EmployeeID", "BirthDate", "HireDate", "Notes", "ReportsTo" FROM "Employees" ORDER BY "EmployeeID"',
    'SELECT "OrderID", "ProductID", "Quantity", "Discount" FROM "Order Details" '
    'WHERE "OrderID" < 10260 ORDER BY "OrderID", "ProductID"',
]
PARAMETERIZED = 'SELECT "OrderID", "Freight", "ShipCity" FROM "Orders" WHERE "OrderID" = %s'


def shown(v):
    if isinstance(v, (bytes, bytearray, memoryview)):
        return bytes(v).hex()
    return repr(v)


def rows(cur):
    return [[shown(v) for v in r] for r in cur.fetchall()]


out = {}
with psycopg.connect(sys.argv[1], autocommit=True) as conn:
    for i, q in enumerate(QUERIES):
        out[f"text {i}"] = rows(conn.execute(q))
        cur = conn.cursor(binary=True)
        cur.execute(q)
        out[f"binary {i}"] = rows(cur)
    cur = conn.cursor()
    out["prepared"] = []
    for order in range(10248, 10300):
        cur.execute(PARAMETERIZED, (order,), prepare=True)
        out["prepared"] += rows(cur)

if len(sys.argv) > 2:
    import pyodbc

    odbc = pyodbc.connect(sys.argv[2], autocommit=True)
    cur = odbc.cursor()
    for i, q in enumerate(QUERIES):
        cur.execute(q)
        out[f"odbc {i}"] = rows(cur)
    for order in (10248, 10249, 10300):
        cur.execute(PARAMETERIZED.replace("%s", "?"), order)
        out[f"odbc parameter {order}"] = rows(cur)
    out["odbc tables"] = sorted(t.table_name for t in cur.tables(tableType="TABLE"))
    out["odbc columns"] = [
        [c.column_name, c.type_name, c.column_size, c.nullable]
        for c in cur.columns(table="Orders")
    ]

json.dump(out, sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
