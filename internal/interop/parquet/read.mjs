// Prints the rows of a Parquet file as JSON, read with hyparquet: one
// object per row, 64-bit integers and timestamps as decimal strings (the raw
// stored integer: µs or ns since the Unix epoch), doubles as numbers.
// Usage: node read.mjs FILE
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet'

const file = await asyncBufferFromFile(process.argv[2])
const keep = v => v
const rows = await parquetReadObjects({
  file,
  parsers: { timestampFromMilliseconds: keep, timestampFromMicroseconds: keep, timestampFromNanoseconds: keep },
})
process.stdout.write(JSON.stringify(rows, (_, v) => (typeof v === 'bigint' ? v.toString() : v)))
