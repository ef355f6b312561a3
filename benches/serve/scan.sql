\set p random(1, 77)
SELECT "OrderID", "Quantity", "UnitPrice" * "Quantity" AS amount FROM "Order Details" WHERE "ProductID" = :p ORDER BY "OrderID";
