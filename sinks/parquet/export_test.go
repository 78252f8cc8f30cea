package parquet

// GenericReads lets the external tests switch ReadRows to parquet-go's
// generic reader.
var GenericReads = &genericReads

// Duck lets the external tests open DuckDB as the internal ones do.
var Duck = duck
