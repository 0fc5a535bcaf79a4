// Reads every series file shardsim wrote as Parquet with DuckDB (a reader that shares no
// code with the Go writer) and compares it with the CSV the same run wrote, cell for cell.
// Usage: node check.mjs PARQUET_DIR CSV_DIR (make test-parquet; docs/outputs.md).
import { DuckDBInstance } from "@duckdb/node-api";
import { existsSync } from "node:fs";
import { join } from "node:path";

const [pq, csv] = process.argv.slice(2);
if (!pq || !csv) {
  console.error("usage: node check.mjs PARQUET_DIR CSV_DIR");
  process.exit(2);
}
const db = await (await DuckDBInstance.create(":memory:")).connect();
const rows = async (sql) => (await db.runAndReadAll(sql)).getRowObjectsJS();
const lit = (p) => "'" + p.replaceAll("'", "''") + "'";

let bad = 0;
for (const name of ["streams", "shards", "nodes", "skew"]) {
  const p = join(pq, name + ".parquet"), c = join(csv, name + ".csv");
  if (!existsSync(p) || !existsSync(c)) {
    console.error(`${name}: ${existsSync(p) ? c : p} is missing`);
    bad++;
    continue;
  }
  const a = await rows(`SELECT * FROM read_parquet(${lit(p)})`);
  const b = await rows(`SELECT * FROM read_csv(${lit(c)}, header = true, all_varchar = true)`);
  const ca = a.length ? Object.keys(a[0]) : [], cb = b.length ? Object.keys(b[0]) : [];
  if (a.length !== b.length || ca.join(",") !== cb.join(",")) {
    console.error(`${name}: ${a.length} rows of [${ca}] in Parquet, ${b.length} rows of [${cb}] in CSV`);
    bad++;
    continue;
  }
  let diffs = 0;
  for (let i = 0; i < a.length; i++) {
    for (const k of ca) {
      const x = a[i][k], y = b[i][k];
      let same;
      if (y === null || y === "") same = x === null || x === "";
      else if (typeof x === "number" || typeof x === "bigint") same = Number(x) === Number(y);
      else if (typeof x === "boolean") same = String(x) === y;
      else same = String(x) === y;
      if (!same && diffs++ < 5) console.error(`${name}: row ${i + 1}, ${k}: Parquet ${x}, CSV ${JSON.stringify(y)}`);
    }
  }
  if (diffs > 0) bad++;
  console.log(`${name}: ${a.length} rows x ${ca.length} columns, ${diffs === 0 ? "the same" : diffs + " cells differ"}`);
}
process.exit(bad > 0 ? 1 : 0);
