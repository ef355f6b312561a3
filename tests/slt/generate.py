#!/usr/bin/env python3
"""Writes nwind.slt: each query's expected result is computed by SQLite over
mdbtools' `mdb-export` of the same tables, an oracle independent of jetsql.

usage: tests/slt/generate.py [CORPUS]   (needs mdb-export and python3)
Queries are written in DataFusion's dialect; SQLITE gives the oracle's
spelling where it differs. Typed columns: I integer, R real (decimal or
float, printed with the given format), T text.
"""
import csv, io, os, sqlite3, subprocess, sys

corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../../shared/corpus")
db = os.path.join(corpus, "mdbtools/nwind.mdb")
con = sqlite3.connect(":memory:")
for table in ["Orders", "Order Details", "Customers", "Products", "Employees", "Categories"]:
    out = subprocess.run(["mdb-export", "-D", "%Y-%m-%dT%H:%M:%S", "-T", "%Y-%m-%dT%H:%M:%S", "-b", "strip", db, table], capture_output=True, check=True).stdout.decode("utf-8")
    rows = list(csv.reader(io.StringIO(out)))
    header, data = rows[0], rows[1:]
    con.execute(f'CREATE TABLE "{table}" ({", ".join(f"[{h}]" for h in header)})')
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
    con.executemany(f'INSERT INTO "{table}" VALUES ({",".join("?" * len(header))})', [[conv(v) for v in r] for r in data])

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

out = ["# Generated by tests/slt/generate.py: expected rows are SQLite's answers",
       "# over mdb-export of mdbtools/nwind.mdb (Umsätze is a copy of Orders).", ""]
for title, types, sql, lite, fmts in QUERIES:
    rows = con.execute(lite or sqlite_sql(sql)).fetchall()
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
            elif f:
                vals.append(f % v)
            else:
                vals.append(str(v))
        out.append(" ".join(vals))
    out.append("")
open(os.path.join(os.path.dirname(__file__), "nwind.slt"), "w").write("\n".join(out))
print(f"wrote {len(QUERIES)} queries")
