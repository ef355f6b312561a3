SELECT "ProductID", count(*) AS n, sum("Quantity") AS quantity FROM "Order Details" GROUP BY "ProductID" ORDER BY "ProductID";
