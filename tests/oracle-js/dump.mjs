// Prints every value of every user table of an Access file as mdb-reader
// reads it, one JSON object per line, for jetsql's tests
// (tests/tests/oracle_mdb_reader.rs, tests/tests/long_text.rs).
//
//   node dump.mjs FILE [PASSWORD]
//
// Lines:
//   {"table": NAME, "columns": [[NAME, TYPE], ...]}   a table starts
//   {"row": [VALUE, ...]}                             one row of it
//   {"table": NAME, "error": MESSAGE}                 the table could not be read
//   {"error": MESSAGE}                                the file could not be opened
//
// Every VALUE is null or a string, normalized so that nothing is lost:
//   boolean      "true" / "false"
//   number       String(n): JavaScript's shortest round-trip form
//   bigint       its decimal digits
//   Date         toISOString() (UTC fields are Access's zone-less fields),
//                "invalid" for an invalid Date
//   Buffer       lower-case hex
//   string       as mdb-reader gives it (text, memo, currency, numeric,
//                replication id, extended date/time)
//   anything else (complex columns)  "json:" + JSON of its normalized parts
// Exit status: 0, or 2 when the file could not be opened.
import { readFileSync } from "node:fs";
import MDBReader from "mdb-reader";

function norm(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return String(v);
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "string") return v;
  if (v instanceof Date) return isNaN(v.getTime()) ? "invalid" : v.toISOString();
  if (Buffer.isBuffer(v)) return v.toString("hex");
  return "json:" + JSON.stringify(v, (_k, x) => {
    if (x && x.type === "Buffer" && Array.isArray(x.data)) return Buffer.from(x.data).toString("hex");
    if (typeof x === "bigint") return x.toString();
    return x;
  });
}

const out = [];
const flush = () => {
  if (out.length) {
    process.stdout.write(out.join("\n") + "\n");
    out.length = 0;
  }
};
const [file, password] = process.argv.slice(2);
let reader;
try {
  reader = new MDBReader(readFileSync(file), password ? { password } : {});
} catch (e) {
  console.log(JSON.stringify({ error: String(e && e.message ? e.message : e) }));
  process.exit(2);
}
let names;
try {
  names = reader.getTableNames();
} catch (e) {
  console.log(JSON.stringify({ error: String(e && e.message ? e.message : e) }));
  process.exit(2);
}
for (const name of names) {
  let table, columns, rows;
  try {
    table = reader.getTable(name);
    columns = table.getColumns();
    rows = table.getData();
  } catch (e) {
    out.push(JSON.stringify({ table: name, error: String(e && e.message ? e.message : e) }));
    continue;
  }
  out.push(JSON.stringify({ table: name, columns: columns.map((c) => [c.name, c.type]) }));
  for (const r of rows) {
    out.push(JSON.stringify({ row: columns.map((c) => norm(r[c.name])) }));
    if (out.length > 4096) flush();
  }
}
flush();
