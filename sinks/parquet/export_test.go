package parquet

// GenericReads lets the external tests switch ReadRows to parquet-go's
// generic reader.
var GenericReads = &genericReads
