package api

import "github.com/marketintel/mi/schemas"

// Parameters several rooms declare, so that a window or a symbol means the
// same everywhere (spec §4, §8).
var (
	// Window is the analysis window of the intelligence documents: 1m, 5m
	// or 15m, default 5m.
	Window = Enum{Name: "window", Values: schemas.Windows, Default: "5m",
		Desc: "Analysis window: the trailing 1, 5 or 15 minutes."}
	// SymbolPath is the {symbol} path parameter.
	SymbolPath = Symbol{In: InPath,
		Desc: "Symbol, case-insensitive (upper-cased before lookup), e.g. BTCUSD, ETHUSD, TSLA or BRK.B; GET /coverage (tool get_data_coverage) lists the covered symbols."}
)
