#!/usr/bin/env python3
"""Writes nwind_access.slt: Access SQL queries over mdbtools/nwind.mdb whose
expected rows are SQLite's answers to a hand translation of each query, over
mdbtools' `mdb-export` of the same tables: an oracle independent of jetsql.

usage: tests/slt/access/generate_access.py [CORPUS]   (needs mdb-export, python3)

Each entry: title, column types (I integer, R real, T text), the Access SQL
as a user types it, the SQLite translation, per-column formats. Access
semantics the translations spell out: text comparisons and Like ignore case
(COLLATE NOCASE / SQLite's ASCII-insensitive LIKE), `&` concatenates with
NULL as empty, TOP n returns the rows tied with the n-th, #m/d/yyyy# dates.
"""
import csv, io, os, sqlite3, subprocess, sys

here = os.path.dirname(os.path.abspath(__file__))
corpus = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "../../../../shared/corpus")
db = os.path.join(corpus, "mdbtools/nwind.mdb")
con = sqlite3.connect(":memory:")


def load(table):
    out = subprocess.run(
        ["mdb-export", "-D", "%Y-%m-%dT%H:%M:%S", "-T", "%Y-%m-%dT%H:%M:%S", "-b", "strip", db, table],
        capture_output=True, check=True).stdout.decode("utf-8")
    rows = list(csv.reader(io.StringIO(out)))
    header, data = rows[0], rows[1:]
    con.execute(f'CREATE TABLE "{table}" ({", ".join(f"[{h}]" for h in header)})')

    def conv(v):
        if v == "":
            return None
        if len(v) > 1 and v[0] == "0" and v[1].isdigit():
            return v  # text with a leading zero (a postal code), not a number
        try:
            return int(v)
        except ValueError:
            try:
                return float(v)
            except ValueError:
                return v
    con.executemany(f'INSERT INTO "{table}" VALUES ({",".join("?" * len(header))})',
                    [[conv(v) for v in r] for r in data])


for t in ["Orders", "Order Details", "Products", "Customers", "Employees", "Shippers", "Categories", "Suppliers"]:
    load(t)

# Ties for TOP: the n-th value of the ordering, computed by SQLite.
TOP5_PRICE = "SELECT UnitPrice FROM Products ORDER BY UnitPrice DESC LIMIT 1 OFFSET 4"

Q = [
    ("names match ignoring case; the index seek answers", "I",
     "SELECT OrderID FROM Orders WHERE OrderID = 10250",
     "SELECT OrderID FROM Orders WHERE OrderID = 10250", None),
    ("lower-case names, ORDER BY … LIMIT walks the index", "I",
     "SELECT orderid FROM ORDERS ORDER BY OrderID LIMIT 5",
     "SELECT OrderID FROM Orders ORDER BY OrderID LIMIT 5", None),
    ("MIN and MAX of the key", "II",
     "SELECT MIN(OrderID), MAX(orderid) FROM orders",
     "SELECT MIN(OrderID), MAX(OrderID) FROM Orders", None),
    ("text equality ignores case (and seeks the CustomerID index)", "I",
     "SELECT count(*) FROM Orders WHERE CustomerID = 'alfki'",
     "SELECT count(*) FROM Orders WHERE CustomerID = 'ALFKI' COLLATE NOCASE", None),
    ("text IN ignores case", "I",
     "SELECT count(*) FROM Orders WHERE CustomerID IN ('alfki', 'Anatr', 'zzzzz')",
     "SELECT count(*) FROM Orders WHERE CustomerID COLLATE NOCASE IN ('alfki', 'Anatr', 'zzzzz')", None),
    ("text inequality ignores case", "I",
     "SELECT count(*) FROM Customers WHERE Country <> 'germany'",
     "SELECT count(*) FROM Customers WHERE Country <> 'germany' COLLATE NOCASE", None),
    ("bracketed names with spaces", "II",
     "SELECT count(*), sum([Order Details].Quantity) FROM [Order Details] WHERE [OrderID] < 10300",
     "SELECT count(*), sum(Quantity) FROM \"Order Details\" WHERE OrderID < 10300", None),
    ("#date# literals (US m/d/yyyy)", "I",
     "SELECT count(*) FROM Orders WHERE OrderDate >= #1/1/1996#",
     "SELECT count(*) FROM Orders WHERE OrderDate >= '1996-01-01T00:00:00'", None),
    ("#date# literals (ISO) with BETWEEN", "I",
     "SELECT count(*) FROM Orders WHERE OrderDate Between #1995-01-01# And #1995-06-30 23:59:59#",
     "SELECT count(*) FROM Orders WHERE OrderDate BETWEEN '1995-01-01T00:00:00' AND '1995-06-30T23:59:59'", None),
    ("& concatenates, NULL as empty", "T",
     "SELECT FirstName & ' ' & LastName & Region FROM Employees ORDER BY EmployeeID",
     "SELECT FirstName || ' ' || LastName || coalesce(Region, '') FROM Employees ORDER BY EmployeeID", None),
    ("+ of texts propagates NULL", "I",
     "SELECT count(*) FROM Employees WHERE (FirstName + Region) Is Null",
     "SELECT count(*) FROM Employees WHERE (FirstName || Region) IS NULL", None),
    ("Like with * (case-insensitive)", "T",
     "SELECT ProductName FROM Products WHERE ProductName Like 'ch*' ORDER BY ProductName",
     "SELECT ProductName FROM Products WHERE ProductName LIKE 'ch%' ORDER BY ProductName", None),
    ("Like with ? and a character list", "T",
     "SELECT CompanyName FROM Customers WHERE CompanyName Like '[a-c]?????*' AND CompanyName Not Like '*[!a-z ]*' ORDER BY CompanyName",
     "SELECT CompanyName FROM Customers WHERE lower(substr(CompanyName,1,1)) BETWEEN 'a' AND 'c' AND length(CompanyName) >= 6 AND NOT (CompanyName GLOB '*[^a-zA-Z ]*') ORDER BY CompanyName", None),
    ("Like with # (a digit)", "I",
     "SELECT count(*) FROM Customers WHERE PostalCode Like '#####'",
     "SELECT count(*) FROM Customers WHERE PostalCode GLOB '[0-9][0-9][0-9][0-9][0-9]'", None),
    ("a double-quoted word that is no column is a string", "I",
     "SELECT count(*) FROM Customers WHERE Country = \"uk\"",
     "SELECT count(*) FROM Customers WHERE Country = 'UK' COLLATE NOCASE", None),
    ("a double-quoted column name stays the column", "T",
     "SELECT \"CompanyName\" FROM Customers WHERE \"CustomerID\" = 'ALFKI'",
     "SELECT CompanyName FROM Customers WHERE CustomerID = 'ALFKI'", None),
    ("Yes/No constants", "I",
     "SELECT count(*) FROM Products WHERE Discontinued = Yes",
     "SELECT count(*) FROM Products WHERE Discontinued = 1", None),
    ("True and Not", "I",
     "SELECT count(*) FROM Products WHERE Not Discontinued = True",
     "SELECT count(*) FROM Products WHERE NOT Discontinued = 1", None),
    ("TOP n returns the rows tied with the n-th", "TR",
     "SELECT TOP 5 ProductName, UnitPrice FROM Products ORDER BY UnitPrice DESC, ProductName",
     f"SELECT ProductName, UnitPrice FROM Products WHERE UnitPrice >= ({TOP5_PRICE}) ORDER BY UnitPrice DESC, ProductName",
     [None, "%.4f"]),
    ("TOP n returns every row tied with the n-th", "TI rowsort",
     "SELECT TOP 3 ProductName, CategoryID FROM Products ORDER BY CategoryID",
     "SELECT ProductName, CategoryID FROM Products WHERE CategoryID <= (SELECT CategoryID FROM Products ORDER BY CategoryID LIMIT 1 OFFSET 2)", None),
    ("TOP n on a unique key is a plain limit", "I",
     "SELECT TOP 3 OrderID FROM Orders ORDER BY OrderID DESC",
     "SELECT OrderID FROM Orders ORDER BY OrderID DESC LIMIT 3", None),
    ("TOP n PERCENT", "I",
     "SELECT TOP 1 PERCENT OrderID FROM Orders ORDER BY OrderID",
     "SELECT OrderID FROM Orders ORDER BY OrderID LIMIT 9", None),
    ("DISTINCTROW on one table", "T",
     "SELECT DISTINCTROW CompanyName FROM Customers WHERE Country = 'Mexico' ORDER BY CompanyName",
     "SELECT CompanyName FROM Customers WHERE Country = 'Mexico' ORDER BY CompanyName", None),
    ("GROUP BY … HAVING", "TI",
     "SELECT CustomerID, Count(*) AS N FROM Orders GROUP BY CustomerID HAVING Count(*) >= 20 ORDER BY Count(*) DESC, CustomerID",
     "SELECT CustomerID, count(*) AS N FROM Orders GROUP BY CustomerID HAVING count(*) >= 20 ORDER BY count(*) DESC, CustomerID", None),
    ("Table!Column", "T",
     "SELECT Orders!ShipCity FROM Orders WHERE Orders!OrderID = 10248",
     "SELECT ShipCity FROM Orders WHERE OrderID = 10248", None),
    ("joins with aliases in any case", "TI",
     "SELECT c.CompanyName, Count(o.OrderID) FROM Customers AS C INNER JOIN Orders AS O ON c.customerid = o.CustomerID WHERE C.Country = 'Spain' GROUP BY c.CompanyName ORDER BY 1",
     "SELECT c.CompanyName, count(o.OrderID) FROM Customers c JOIN Orders o ON c.CustomerID = o.CustomerID WHERE c.Country = 'Spain' GROUP BY c.CompanyName ORDER BY 1", None),
    ("IN (SELECT …)", "I",
     "SELECT count(*) FROM Orders WHERE CustomerID IN (SELECT CustomerID FROM Customers WHERE Country = 'France')",
     "SELECT count(*) FROM Orders WHERE CustomerID IN (SELECT CustomerID FROM Customers WHERE Country = 'France')", None),
    ("EXISTS", "I",
     "SELECT count(*) FROM Customers AS c WHERE Not Exists (SELECT * FROM Orders AS o WHERE o.CustomerID = c.CustomerID)",
     "SELECT count(*) FROM Customers c WHERE NOT EXISTS (SELECT * FROM Orders o WHERE o.CustomerID = c.CustomerID)", None),
    ("UNION", "T",
     "SELECT City FROM Customers WHERE Country = 'Norway' UNION SELECT City FROM Employees WHERE Country = 'UK' ORDER BY 1",
     "SELECT City FROM Customers WHERE Country = 'Norway' UNION SELECT City FROM Employees WHERE Country = 'UK' ORDER BY 1", None),
    ("Is Null and <>", "I",
     "SELECT count(*) FROM Orders WHERE ShipRegion Is Null And ShipCountry <> 'France'",
     "SELECT count(*) FROM Orders WHERE ShipRegion IS NULL AND ShipCountry <> 'France'", None),
    ("DCount as a subquery", "II",
     "SELECT OrderID, DCount(\"*\", \"[Order Details]\", \"OrderID = 10248\") FROM Orders WHERE OrderID = 10248",
     "SELECT OrderID, (SELECT count(*) FROM \"Order Details\" WHERE OrderID = 10248) FROM Orders WHERE OrderID = 10248", None),
    ("DLookup", "T",
     "SELECT DLookup(\"CompanyName\", \"Customers\", \"CustomerID = 'BONAP'\")",
     "SELECT CompanyName FROM Customers WHERE CustomerID = 'BONAP'", None),
    ("crosstab with an IN list", "TII",
     "TRANSFORM Count(OrderID) SELECT ShipCountry FROM Orders WHERE ShipCountry In ('UK', 'USA') GROUP BY ShipCountry PIVOT ShipVia In (1, 3)",
     "SELECT ShipCountry, sum(ShipVia = 1), sum(ShipVia = 3) FROM Orders WHERE ShipCountry IN ('UK', 'USA') GROUP BY ShipCountry ORDER BY ShipCountry", None),
    ("crosstab over the pivot's values", "TRRR",
     "TRANSFORM Sum(Freight) SELECT ShipCountry FROM Orders WHERE ShipCountry In ('Ireland', 'Poland') GROUP BY ShipCountry PIVOT ShipVia",
     "SELECT ShipCountry, sum(CASE WHEN ShipVia = 1 THEN Freight END), sum(CASE WHEN ShipVia = 2 THEN Freight END), sum(CASE WHEN ShipVia = 3 THEN Freight END) FROM Orders WHERE ShipCountry IN ('Ireland', 'Poland') GROUP BY ShipCountry ORDER BY ShipCountry",
     [None, "%.4f", "%.4f", "%.4f"]),

    # Saved queries of nwind, run as views (their SQL is rebuilt from
    # MSysQueries and planned as Access SQL); CCur rounds to 4 decimals.
    ("saved query: Order Subtotals has one row per order", "I",
     "SELECT count(*) FROM [Order Subtotals]",
     'SELECT count(*) FROM (SELECT OrderID FROM "Order Details" GROUP BY OrderID)', None),
    ("saved query: Order Subtotals' subtotals", "IR",
     "SELECT OrderID, Subtotal FROM [Order Subtotals] WHERE OrderID Between 10248 And 10262 ORDER BY OrderID",
     'SELECT OrderID, sum(round(UnitPrice*Quantity*(1-Discount)/100, 4)*100) FROM "Order Details" WHERE OrderID BETWEEN 10248 AND 10262 GROUP BY OrderID ORDER BY OrderID',
     [None, "%.4f"]),
    ("saved query: Current Product List (an aliased table, Yes/No No)", "IT",
     "SELECT ProductID, ProductName FROM [Current Product List]",
     "SELECT ProductID, ProductName FROM Products WHERE Discontinued = 0 ORDER BY ProductName", None),
    ("saved query: Products Above Average Price (a scalar subquery)", "TR rowsort",
     "SELECT ProductName, UnitPrice FROM [Products Above Average Price]",
     "SELECT ProductName, UnitPrice FROM Products WHERE UnitPrice > (SELECT avg(UnitPrice) FROM Products)",
     [None, "%.4f"]),
    ("saved query: Quarterly Orders (DISTINCTROW over a right join, the key output)", "TTTT rowsort",
     "SELECT CustomerID, CompanyName, City, Country FROM [Quarterly Orders]",
     "SELECT DISTINCT c.CustomerID, c.CompanyName, c.City, c.Country FROM Orders o LEFT JOIN Customers c ON c.CustomerID = o.CustomerID WHERE o.OrderDate BETWEEN '1995-01-01T00:00:00' AND '1995-12-31T00:00:00'",
     None),
    # Sums over many rows are compared as counts and names: Access computes
    # 1-[Discount] from a Single, and whether it does so in Single or Double
    # precision moves a few sums by a cent; no independent source here says
    # which (the per-order subtotals above do not meet the difference).
    ("saved query: Category Sales for 1995 (a view over a view)", "T rowsort",
     "SELECT CategoryName FROM [Category Sales for 1995] WHERE CategorySales > 0",
     'SELECT DISTINCT c.CategoryName FROM Categories c JOIN Products p ON c.CategoryID = p.CategoryID JOIN "Order Details" od ON p.ProductID = od.ProductID JOIN Orders o ON o.OrderID = od.OrderID WHERE o.ShippedDate BETWEEN \'1995-01-01T00:00:00\' AND \'1995-12-31T00:00:00\'',
     None),
    ("saved query: Product Sales for 1995 per category", "TI rowsort",
     "SELECT CategoryName, Count(*) FROM [Product Sales for 1995] GROUP BY CategoryName",
     'SELECT CategoryName, count(*) FROM (SELECT DISTINCT c.CategoryName, p.ProductName FROM Categories c JOIN Products p ON c.CategoryID = p.CategoryID JOIN "Order Details" od ON p.ProductID = od.ProductID JOIN Orders o ON o.OrderID = od.OrderID WHERE o.ShippedDate BETWEEN \'1995-01-01T00:00:00\' AND \'1995-12-31T00:00:00\') GROUP BY CategoryName',
     None),
    ("saved query: Order Details Extended", "II",
     "SELECT count(*), count(ExtendedPrice) FROM [Order Details Extended]",
     'SELECT count(*), count(od.UnitPrice) FROM "Order Details" od JOIN Products p ON p.ProductID = od.ProductID',
     None),
    ("saved query: Invoices (six tables; two CompanyName fields named by table)", "IIT",
     "SELECT count(*), count([Customers.CompanyName]), Max([Shippers.CompanyName]) FROM Invoices",
     'SELECT count(*), count(c.CompanyName), max(s.CompanyName) FROM Shippers s JOIN Orders o ON s.ShipperID = o.ShipVia JOIN Customers c ON c.CustomerID = o.CustomerID JOIN Employees e ON e.EmployeeID = o.EmployeeID JOIN "Order Details" od ON od.OrderID = o.OrderID JOIN Products p ON p.ProductID = od.ProductID',
     None),
    ("saved query: Sales by Category (a view joined to tables)", "I",
     "SELECT count(*) FROM [Sales by Category]",
     'SELECT count(*) FROM (SELECT 1 FROM Categories c JOIN Products p ON c.CategoryID = p.CategoryID JOIN "Order Details" od ON p.ProductID = od.ProductID JOIN Orders o ON o.OrderID = od.OrderID WHERE o.OrderDate BETWEEN \'1995-01-01T00:00:00\' AND \'1995-12-31T00:00:00\' GROUP BY c.CategoryID, c.CategoryName, p.ProductName)',
     None),
    ("saved query: Quarterly Orders by Product, a crosstab with fixed columns", "TIRRRR rowsort",
     "SELECT ProductName, OrderYear, [Qtr 1], [Qtr 2], [Qtr 3], [Qtr 4] FROM [Quarterly Orders by Product] WHERE CustomerID = 'ALFKI'",
     'SELECT p.ProductName, 1995, ' + ", ".join(f"sum(CASE WHEN (CAST(substr(o.OrderDate, 6, 2) AS INTEGER) + 2) / 3 = {q} THEN round(od.UnitPrice*od.Quantity*(1-od.Discount)/100, 4)*100 END)" for q in range(1, 5)) + ' FROM Products p JOIN "Order Details" od ON p.ProductID = od.ProductID JOIN Orders o ON o.OrderID = od.OrderID WHERE o.OrderDate BETWEEN \'1995-01-01T00:00:00\' AND \'1995-12-31T00:00:00\' AND o.CustomerID = \'ALFKI\' GROUP BY p.ProductName',
     [None, None, "%.4f", "%.4f", "%.4f", "%.4f"]),
    ("saved query: Ten Most Expensive Products (DISTINCTROW TOP 10)", "TR",
     "SELECT * FROM [Ten Most Expensive Products]",
     "SELECT ProductName, UnitPrice FROM Products ORDER BY UnitPrice DESC LIMIT 10",
     [None, "%.4f"]),
    # The seven queries Access hides (MSysObjects flag 0x08) because they
    # only feed reports; they answer to their names all the same.
    ("hidden saved query: Alphabetical List of Products (DISTINCTROW over Products.* and a field of Categories)", "ITT rowsort",
     "SELECT ProductID, ProductName, CategoryName FROM [Alphabetical List of Products]",
     "SELECT p.ProductID, p.ProductName, c.CategoryName FROM Categories c JOIN Products p ON c.CategoryID = p.CategoryID WHERE p.Discontinued = 0",
     None),
    ("hidden saved query: Catalog", "ITTR rowsort",
     "SELECT ProductID, CategoryName, ProductName, UnitPrice FROM Catalog",
     "SELECT p.ProductID, c.CategoryName, p.ProductName, p.UnitPrice FROM Categories c JOIN Products p ON c.CategoryID = p.CategoryID WHERE p.Discontinued = 0",
     [None, None, None, "%.4f"]),
    ("hidden saved query: Orders Qry", "III",
     "SELECT count(*), count(Region), count(ShipCity) FROM [Orders Qry]",
     "SELECT count(*), count(c.Region), count(o.ShipCity) FROM Customers c JOIN Orders o ON c.CustomerID = o.CustomerID",
     None),
    ("hidden saved query: Products by Category (Discontinued <> Yes)", "TTI",
     "SELECT CategoryName, ProductName, UnitsInStock FROM [Products by Category]",
     "SELECT c.CategoryName, p.ProductName, p.UnitsInStock FROM Categories c JOIN Products p ON c.CategoryID = p.CategoryID WHERE p.Discontinued = 0 ORDER BY c.CategoryName, p.ProductName",
     None),
    ("hidden saved query: Sales Totals by Amount (a view filtered on its subtotal)", "IT rowsort",
     "SELECT OrderID, CompanyName FROM [Sales Totals by Amount]",
     'SELECT o.OrderID, c.CompanyName FROM Customers c JOIN Orders o ON c.CustomerID = o.CustomerID JOIN (SELECT OrderID, sum(round(UnitPrice*Quantity*(1-Discount)/100, 4)*100) AS Subtotal FROM "Order Details" GROUP BY OrderID) s ON s.OrderID = o.OrderID WHERE s.Subtotal > 2500 AND o.ShippedDate BETWEEN \'1995-01-01T00:00:00\' AND \'1995-12-31T00:00:00\'',
     None),
    ("hidden saved query: Summary of Sales by Quarter", "II",
     "SELECT count(*), count(Subtotal) FROM [Summary of Sales by Quarter]",
     'SELECT count(*), count(o.OrderID) FROM Orders o JOIN (SELECT DISTINCT OrderID FROM "Order Details") s ON s.OrderID = o.OrderID WHERE o.ShippedDate IS NOT NULL',
     None),
    ("hidden saved query: Summary of Sales by Year", "I",
     "SELECT count(*) FROM [Summary of Sales by Year] WHERE Year(ShippedDate) = 1995",
     'SELECT count(*) FROM Orders o JOIN (SELECT DISTINCT OrderID FROM "Order Details") s ON s.OrderID = o.OrderID WHERE o.ShippedDate LIKE \'1995-%\'',
     None),
    ("saved query: Customers and Suppliers by City (a union)", "I",
     "SELECT count(*) FROM [Customers and Suppliers by City]",
     "SELECT count(*) FROM (SELECT City, CompanyName, ContactName, 'Customers' FROM Customers UNION SELECT City, CompanyName, ContactName, 'Suppliers' FROM Suppliers)",
     None),
]

out = ["# Generated by tests/slt/access/generate_access.py: Access SQL over",
       "# mdbtools/nwind.mdb; expected rows are SQLite's answers to a hand",
       "# translation, over mdb-export of the same tables.", ""]
for title, types, sql, lite, fmts in Q:
    rows = con.execute(lite).fetchall()
    rowsort = "rowsort" in types or ("ORDER BY" not in sql.upper() and len(rows) > 1)
    out.append(f"# {title}")
    out.append(f"query {types.replace(' rowsort', '')}" + (" rowsort" if rowsort else ""))
    out.append(sql)
    out.append("----")
    lines = []
    for r in rows:
        vals = []
        for i, v in enumerate(r):
            f = fmts[i] if fmts else None
            if v is None:
                vals.append("NULL")
            elif f:
                vals.append(f % v)
            elif v == "":
                vals.append("(empty)")
            else:
                vals.append(str(v))
        lines.append(vals)
    if rowsort:
        lines.sort()
    out.extend(" ".join(v) for v in lines)
    out.append("")
open(os.path.join(here, "nwind_access.slt"), "w").write("\n".join(out))
print(f"wrote {len(Q)} queries")
