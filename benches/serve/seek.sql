\set id random(10248, 11077)
SELECT "OrderID", "CustomerID", "EmployeeID", "OrderDate", "Freight", "ShipName" FROM "Orders" WHERE "OrderID" = :id;
