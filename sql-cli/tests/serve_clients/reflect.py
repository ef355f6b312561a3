"""SQLAlchemy's reflection of a PostgreSQL database (psycopg 3), as JSON:
for each table its columns (name, type, nullable), primary key, indexes
and foreign keys. Run against `jetsql serve` and against PostgreSQL
holding the same data (`jetsql migrate`), the two must agree.

Usage: reflect.py URL"""
import json
import sys

import sqlalchemy as sa

engine = sa.create_engine(sys.argv[1])
inspector = sa.inspect(engine)
out = {}
for table in sorted(inspector.get_table_names()):
    out[table] = {
        "columns": [
            [c["name"], str(c["type"]), c["nullable"]]
            for c in inspector.get_columns(table)
        ],
        "primary_key": inspector.get_pk_constraint(table)["constrained_columns"],
        "indexes": sorted(
            [i["name"], i["column_names"], bool(i["unique"])]
            for i in inspector.get_indexes(table)
        ),
        "foreign_keys": sorted(
            [
                f["name"],
                f["constrained_columns"],
                f["referred_table"],
                f["referred_columns"],
            ]
            for f in inspector.get_foreign_keys(table)
        ),
    }
json.dump(out, sys.stdout, indent=1, sort_keys=True, ensure_ascii=False)
