#!/usr/bin/env python3
"""Writes nwind.slt, order_minmax.slt and fixtures.slt: each query's expected result is
computed by SQLite over mdbtools' `mdb-export` of the same tables, an oracle
independent of jetsql.

usage: tests/slt/generate.py [CORPUS]   (needs mdb-export and python3)
Queries are written in DataFusion's dialect; SQLITE gives the oracle's
spelling where it differs. Typed columns: I integer, R real (decimal or
float, printed with the given format), T text.
"""
import csv, io, os, sqlite3, subprocess, sys

corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/corpus")
db = os.path.join(corpus, "mdbtools/nwind.mdb")
con = sqlite3.connect(":memory:")
B = "bool"

def load(path, table, name):
    """Loads mdb-export's CSV of `table` in `path` into SQLite as `name`."""
    out = subprocess.run(["mdb-export", "-D", "%Y-%m-%dT%H:%M:%S", "-T", "%Y-%m-%dT%H:%M:%S", "-b", "strip", path, table], capture_output=True, check=True).stdout.decode("utf-8")
    rows = list(csv.reader(io.StringIO(out)))
    header, data = rows[0], rows[1:]
    con.execute(f'CREATE TABLE "{name}" ({", ".join(f"[{h}]" for h in header)})')
    def conv(v):
        if v == "":
            return None
        try:
            return int(v)
        except ValueError:
            try:
                return float(v)
            except ValueError:
                return v
    con.executemany(f'INSERT INTO "{name}" VALUES ({",".join("?" * len(header))})', [[conv(v) for v in r] for r in data])

def write_slt(filename, header, queries, to_sqlite):
    """Writes `queries` (title, types, DataFusion SQL, SQLite SQL or None,
    per-column formats) with SQLite's answers as expected rows."""
    out = header + [""]
    for title, types, sql, lite, fmts in queries:
        rows = con.execute(lite or to_sqlite(sql)).fetchall()
        out.append(f"# {title}")
        out.append(f"query {types}")
        out.append(sql)
        out.append("----")
        for r in rows:
            vals = []
            for i, v in enumerate(r):
                f = fmts[i] if fmts else None
                if v is None:
                    vals.append("NULL")
                elif f == B:
                    vals.append("true" if v else "false")
                elif f:
                    vals.append(f % v)
                else:
                    vals.append(str(v))
            out.append(" ".join(vals))
        out.append("")
    open(os.path.join(os.path.dirname(__file__), filename), "w").write("\n".join(out))
    print(f"wrote {len(queries)} queries")

for table in ["Orders", "Order Details", "Customers", "Products", "Employees", "Categories"]:
    load(db, table, table)

# (title, types, DataFusion SQL, SQLite SQL or None, per-column formats)
QUERIES = [
    ("row counts", "II", 'SELECT count(*), count("ShippedDate") FROM "Orders"', None, None),
    ("aggregate over a Jet3 table", "II", 'SELECT count(*), sum("Quantity") FROM nw.public."Order Details"', 'SELECT count(*), sum(Quantity) FROM "Order Details"', None),
    ("currency sum", "R", 'SELECT sum("Freight") FROM "Orders"', None, ["%.4f"]),
    ("point lookup on the primary key (index seek)", "ITT", 'SELECT "OrderID", "CustomerID", "ShipCity" FROM "Orders" WHERE "OrderID" = 10248', None, None),
    ("literal on the left", "I", 'SELECT "OrderID" FROM "Orders" WHERE 10250 = "OrderID"', None, None),
    ("range seek with BETWEEN", "I", 'SELECT count(*) FROM "Orders" WHERE "OrderID" BETWEEN 10300 AND 10400', None, None),
    ("two range conjuncts on one column", "I", 'SELECT count(*) FROM "Orders" WHERE "OrderID" > 10300 AND "OrderID" <= 10350', None, None),
    ("IN list, one value absent", "I", 'SELECT "OrderID" FROM "Orders" WHERE "OrderID" IN (10250, 10260, 99999) ORDER BY 1', None, None),
    ("date range over the OrderDate index", "I", "SELECT count(*) FROM \"Orders\" WHERE \"OrderDate\" >= TIMESTAMP '1995-01-01 00:00:00' AND \"OrderDate\" < TIMESTAMP '1995-02-01 00:00:00'",
     "SELECT count(*) FROM Orders WHERE OrderDate >= '1995-01-01T00:00:00' AND OrderDate < '1995-02-01T00:00:00'", None),
    ("IS NULL on an indexed column", "I", 'SELECT count(*) FROM "Orders" WHERE "ShippedDate" IS NULL', None, None),
    ("secondary index equality (EmployeeID)", "II", 'SELECT count(*), min("OrderID") FROM "Orders" WHERE "EmployeeID" = 5', None, None),
    ("join and group", "TI", 'SELECT c."CompanyName", count(*) AS n FROM "Customers" c JOIN "Orders" o ON c."CustomerID" = o."CustomerID" GROUP BY c."CompanyName" ORDER BY n DESC, c."CompanyName" LIMIT 5',
     'SELECT c.CompanyName, count(*) AS n FROM Customers c JOIN Orders o ON c.CustomerID = o.CustomerID GROUP BY c.CompanyName ORDER BY n DESC, c.CompanyName LIMIT 5', None),
    ("three-way join", "TR", 'SELECT p."ProductName", sum(d."Quantity" * d."UnitPrice") AS revenue FROM "Order Details" d JOIN "Products" p ON d."ProductID" = p."ProductID" JOIN "Orders" o ON o."OrderID" = d."OrderID" WHERE o."ShipCountry" = \'Germany\' GROUP BY p."ProductName" ORDER BY revenue DESC LIMIT 3',
     "SELECT p.ProductName, sum(d.Quantity * d.UnitPrice) AS revenue FROM \"Order Details\" d JOIN Products p ON d.ProductID = p.ProductID JOIN Orders o ON o.OrderID = d.OrderID WHERE o.ShipCountry = 'Germany' GROUP BY p.ProductName ORDER BY revenue DESC LIMIT 3", [None, "%.4f"]),
    ("ORDER BY the primary key with LIMIT", "I", 'SELECT "OrderID" FROM "Orders" ORDER BY "OrderID" DESC LIMIT 3', None, None),
    ("MIN and MAX of an indexed column", "II", 'SELECT min("OrderID"), max("OrderID") FROM "Orders"', None, None),
    ("case-insensitive names through the catalog", "I", 'SELECT count(*) FROM nw.public.orders', 'SELECT count(*) FROM Orders', None),
    ("text with code page 1252", "T", 'SELECT "ShipName" FROM nw.public."Umsätze" WHERE "OrderID" = 10332', 'SELECT ShipName FROM Orders WHERE OrderID = 10332', None),
    ("memo column length", "TI", 'SELECT "LastName", length("Notes") FROM "Employees" ORDER BY "LastName" LIMIT 2', 'SELECT LastName, length(Notes) FROM Employees ORDER BY LastName LIMIT 2', None),
    ("filter on an unindexed column", "I", "SELECT count(*) FROM \"Orders\" WHERE \"ShipCountry\" = 'France'", None, None),
]

def sqlite_sql(q):
    return q.replace('nw.public.', '').replace('"', '')

write_slt("nwind.slt", ["# Generated by tests/slt/generate.py: expected rows are SQLite's answers",
                       "# over mdb-export of mdbtools/nwind.mdb (Umsätze is a copy of Orders)."],
          QUERIES, sqlite_sql)

# order_minmax.slt: ORDER BY ... LIMIT over indexes of every key type in both
# directions (walked by IndexOrderExec), MIN/MAX (IndexMinMaxExec), and the
# queries around them that must keep sorting or scanning. Other catalogs'
# tables are loaded into SQLite as <catalog>_<table>.
OTHERS = [("codes", "jackcess/V1997/testIndexCodesV1997.mdb",
           ["Table3", "Table3_desc", "Table4", "Table4_desc", "Table5", "Table5_desc", "Table8", "Table8_desc", "Table9", "Table9_desc", "Table10", "Table10_desc"]),
          ("cmp", "jackcess/V2000/compIndexTestV2000.mdb", ["Table1"]),
          ("calc", "jackcess/V2010/calcFieldTestV2010.accdb", ["Table1"])]
for cat, path, tables in OTHERS:
    for table in tables:
        load(os.path.join(corpus, path), table, f"{cat}_{table}")

def lite_sql(q):
    q = q.replace('nw.public.', '')
    for cat, _, _ in OTHERS:
        q = q.replace(f'{cat}.public."', f'"{cat}_')
    return q

ORDER = [
    ("primary key walked forward", "IT", 'SELECT "OrderID", "CustomerID" FROM nw.public."Orders" ORDER BY "OrderID" LIMIT 5', None, None),
    ("primary key walked backward, with OFFSET", "I", 'SELECT "OrderID" FROM nw.public."Orders" ORDER BY "OrderID" DESC LIMIT 5 OFFSET 3', None, None),
    ("Access order: NULL keys first ascending", "T", 'SELECT "ShippedDate" FROM nw.public."Orders" ORDER BY "ShippedDate" ASC NULLS FIRST LIMIT 3', None, None),
    ("DataFusion default ASC NULLS LAST: the NULL keys move behind the values", "IT", 'SELECT "OrderID", "ShippedDate" FROM nw.public."Orders" ORDER BY "ShippedDate" LIMIT 3',
     'SELECT OrderID, ShippedDate FROM Orders ORDER BY ShippedDate ASC NULLS LAST, OrderID LIMIT 3', None),
    ("DESC NULLS FIRST (the default): 21 NULL keys, then the latest dates", "T", 'SELECT "ShippedDate" FROM nw.public."Orders" ORDER BY "ShippedDate" DESC LIMIT 23',
     'SELECT ShippedDate FROM Orders ORDER BY ShippedDate DESC NULLS FIRST LIMIT 23', None),
    ("DESC NULLS LAST walks backward", "T", 'SELECT "ShippedDate" FROM nw.public."Orders" ORDER BY "ShippedDate" DESC NULLS LAST LIMIT 3', None, None),
    ("date index, descending", "T", 'SELECT "OrderDate" FROM nw.public."Orders" ORDER BY "OrderDate" DESC LIMIT 3', None, None),
    ("filter on an unindexed column above the walk", "IT", 'SELECT "OrderID", "ShipCity" FROM nw.public."Orders" WHERE "ShipCountry" = \'France\' ORDER BY "OrderID" DESC LIMIT 4', None, None),
    ("seek range walked backward", "I", 'SELECT "OrderID" FROM nw.public."Orders" WHERE "OrderID" BETWEEN 10500 AND 10600 ORDER BY "OrderID" DESC LIMIT 3', None, None),
    ("two key columns of the primary key", "III", 'SELECT "OrderID", "ProductID", "Quantity" FROM nw.public."Order Details" ORDER BY "OrderID" DESC, "ProductID" DESC LIMIT 5', None, None),
    ("join, ordered by the primary key", "IT", 'SELECT o."OrderID", c."CompanyName" FROM nw.public."Orders" o JOIN nw.public."Customers" c ON o."CustomerID" = c."CustomerID" ORDER BY o."OrderID" LIMIT 3', None, None),
    ("text keys keep DataFusion's sort", "T", 'SELECT "CustomerID" FROM nw.public."Orders" ORDER BY "CustomerID" DESC LIMIT 3', None, None),
    ("MIN/MAX from index ends", "IITT", 'SELECT min("OrderID"), max("OrderID"), min("OrderDate"), max("ShippedDate") FROM nw.public."Orders"', None, None),
    ("MIN/MAX over a Long index of a Jet3 table", "II", 'SELECT min("ProductID"), max("ProductID") FROM nw.public."Order Details"', None, None),
    ("MIN/MAX of an unindexed currency column scan", "RR", 'SELECT min("Freight"), max("Freight") FROM nw.public."Orders"', None, ["%.4f", "%.4f"]),
    ("COUNT(*) with MIN/MAX: exact, from a scan", "III", 'SELECT count(*), min("EmployeeID"), max("EmployeeID") FROM nw.public."Orders"', None, None),
    ("MAX under a filter", "I", 'SELECT max("OrderID") FROM nw.public."Orders" WHERE "EmployeeID" = 3', None, None),
    ("MIN per group", "II", 'SELECT "EmployeeID", min("OrderID") FROM nw.public."Orders" GROUP BY "EmployeeID" ORDER BY 1', None, None),
    ("Integer index, NULL keys last", "I", 'SELECT "data" FROM codes.public."Table3" ORDER BY "data" LIMIT 12',
     'SELECT data FROM codes_Table3 ORDER BY data ASC NULLS LAST LIMIT 12', None),
    ("descending Integer index, DESC NULLS FIRST", "I", 'SELECT "data" FROM codes.public."Table3_desc" ORDER BY "data" DESC NULLS FIRST LIMIT 4', None, None),
    ("Double index: negative, tiny and large values", "T", 'SELECT "name" FROM codes.public."Table4" ORDER BY "data" NULLS LAST LIMIT 8', None, None),
    ("descending Double index", "T", 'SELECT "name" FROM codes.public."Table4_desc" ORDER BY "data" DESC NULLS LAST LIMIT 8', None, None),
    ("Single index, DESC NULLS FIRST", "T", 'SELECT "name" FROM codes.public."Table5" ORDER BY "data" DESC NULLS FIRST LIMIT 6', None, None),
    ("descending Single index, ascending", "T", 'SELECT "name" FROM codes.public."Table5_desc" ORDER BY "data" ASC NULLS FIRST LIMIT 6', None, None),
    ("Currency index", "R", 'SELECT "data" FROM codes.public."Table8" ORDER BY "data" NULLS FIRST LIMIT 6', None, ["%.4f"]),
    ("descending Currency index", "R", 'SELECT "data" FROM codes.public."Table8_desc" ORDER BY "data" DESC NULLS LAST LIMIT 6', None, ["%.4f"]),
    ("Byte index", "I", 'SELECT "data" FROM codes.public."Table9" ORDER BY "data" DESC NULLS LAST LIMIT 5', None, None),
    ("descending Byte index", "I", 'SELECT "data" FROM codes.public."Table9_desc" ORDER BY "data" NULLS LAST LIMIT 5', None, None),
    ("Yes/No keys store true first", "T", 'SELECT "data" FROM codes.public."Table10" ORDER BY "data" LIMIT 4', None, [B]),
    ("descending Yes/No index", "T", 'SELECT "data" FROM codes.public."Table10_desc" ORDER BY "data" DESC LIMIT 3', None, [B]),
    ("MIN/MAX of Yes/No", "TT", 'SELECT min("data"), max("data") FROM codes.public."Table10_desc"', None, [B, B]),
    ("MIN/MAX of Integer and Byte, NULL keys skipped", "IIII", 'SELECT min(a."data"), max(a."data"), min(b."data"), max(b."data") FROM codes.public."Table3_desc" a, codes.public."Table9" b', None, None),
    ("MIN/MAX of Currency, both directions", "RRRR", 'SELECT (SELECT min("data") FROM codes.public."Table8"), (SELECT max("data") FROM codes.public."Table8"), (SELECT min("data") FROM codes.public."Table8_desc"), (SELECT max("data") FROM codes.public."Table8_desc")', None, ["%.4f"] * 4),
    ("descending Long index walked backward for ascending order, NULL keys last", "I", 'SELECT "CD_AGENTE" FROM cmp.public."Table1" ORDER BY "CD_AGENTE" LIMIT 5',
     'SELECT CD_AGENTE FROM cmp_Table1 ORDER BY CD_AGENTE ASC NULLS LAST LIMIT 5', None),
    ("the same index, NULL keys first", "I", 'SELECT "CD_AGENTE" FROM cmp.public."Table1" ORDER BY "CD_AGENTE" NULLS FIRST LIMIT 5', None, None),
    ("MIN/MAX over a descending index", "III", 'SELECT min("CD_AGENTE"), max("CD_AGENTE"), count(*) FROM cmp.public."Table1"', None, None),
    ("COUNT(*) counts rows, not the TDEF's row count (3)", "III", 'SELECT count(*), min("ID"), max("ID") FROM calc.public."Table1"', None, None),
]

write_slt("order_minmax.slt", ["# Generated by tests/slt/generate.py: expected rows are SQLite's answers",
                              "# over mdb-export of mdbtools/nwind.mdb (catalog nw), testIndexCodesV1997",
                              "# (codes), compIndexTestV2000 (cmp) and calcFieldTestV2010 (calc)."],
          ORDER, lite_sql)

# fixtures.slt: the project's own sample database (fixtures/sample.accdb,
# written by jetsql's writer with its indexes; catalog fx), read back by
# jetsql and checked against SQLite over mdb-export of the same file.
fixture = os.path.join(os.path.dirname(__file__), "../../fixtures/sample.accdb")
for table in ["Customers", "Products", "Orders", "OrderLines"]:
    load(fixture, table, f"fx_{table}")

FIX = [
    ("row counts of every table", "IIII", 'SELECT (SELECT count(*) FROM fx.public."Customers") AS customers, (SELECT count(*) FROM fx.public."Products") AS products, (SELECT count(*) FROM fx.public."Orders") AS orders, (SELECT count(*) FROM fx.public."OrderLines") AS lines', None, None),
    ("projection of a few columns", "ITT", 'SELECT "CustomerID", "Company", "City" FROM fx.public."Customers" ORDER BY "CustomerID" LIMIT 3', None, None),
    ("point lookup on the primary key (index seek)", "ITT", 'SELECT "OrderID", "ShipCity", "OrderDate" FROM fx.public."Orders" WHERE "OrderID" = 777', None, None),
    ("range seek on a secondary index", "II", 'SELECT count(*), sum("Quantity") FROM fx.public."OrderLines" WHERE "OrderID" BETWEEN 100 AND 200', None, None),
    ("IN list on the primary key", "IT", 'SELECT "ProductID", "ProductName" FROM fx.public."Products" WHERE "ProductID" IN (3, 30, 300) ORDER BY 1', None, None),
    ("text equality through the Company index (a re-checked superset)", "I", "SELECT count(*) FROM fx.public.\"Customers\" WHERE \"Company\" = 'Bistro Tea 1'", None, None),
    ("currency sum and count", "RI", 'SELECT sum("Freight"), count("Freight") FROM fx.public."Orders"', None, ["%.4f", None]),
    ("join and group", "TIR", 'SELECT c."Country", count(*) AS n, sum(o."Freight") AS f FROM fx.public."Orders" o JOIN fx.public."Customers" c ON o."CustomerID" = c."CustomerID" GROUP BY c."Country" ORDER BY n DESC, c."Country" LIMIT 5', None, [None, None, "%.4f"]),
    ("three-way join: revenue per product", "TR", 'SELECT p."ProductName", sum(l."LineTotal") AS revenue FROM fx.public."OrderLines" l JOIN fx.public."Products" p ON l."ProductID" = p."ProductID" JOIN fx.public."Orders" o ON o."OrderID" = l."OrderID" WHERE o."Status" = 2 GROUP BY p."ProductName" ORDER BY revenue DESC, p."ProductName" LIMIT 3', None, [None, "%.2f"]),
    ("ORDER BY the primary key DESC LIMIT (index walk)", "I", 'SELECT "LineID" FROM fx.public."OrderLines" ORDER BY "LineID" DESC LIMIT 3', None, None),
    ("descending currency index walked for ORDER BY price DESC", "TR", 'SELECT "ProductName", "UnitPrice" FROM fx.public."Products" ORDER BY "UnitPrice" DESC NULLS LAST, "ProductName" LIMIT 3', None, [None, "%.4f"]),
    ("MIN/MAX from index ends", "IIII", 'SELECT min("OrderID"), max("OrderID"), min("CustomerID"), max("CustomerID") FROM fx.public."Orders"', None, None),
    ("MIN/MAX of a date column", "TT", 'SELECT min("OrderDate"), max("OrderDate") FROM fx.public."Orders"', None, None),
    ("memo lengths", "II", 'SELECT count("Description"), max(length("Description")) FROM fx.public."Products"', None, None),
    ("Yes/No column", "II", 'SELECT count(*), sum(CASE WHEN "Active" THEN 1 ELSE 0 END) FROM fx.public."Customers"', None, None),
    ("non-ASCII text round trip", "I", "SELECT count(*) FROM fx.public.\"Orders\" WHERE \"ShipCity\" = 'München'", None, None),
]

def fx_sql(q):
    return q.replace('fx.public."', '"fx_')

write_slt("fixtures.slt", ["# Generated by tests/slt/generate.py: expected rows are SQLite's answers",
                          "# over mdb-export of fixtures/sample.accdb (catalog fx), the sample",
                          "# database jetsql's own writer generates (cargo run -p jet-fixtures)."],
          FIX, fx_sql)
