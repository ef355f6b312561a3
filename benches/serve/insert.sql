\set n random(1, 1000000)
INSERT INTO "Shippers" ("CompanyName", "Phone") VALUES ('pgbench', :n);
