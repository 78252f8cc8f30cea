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
		Desc: "Symbol, case-insensitive, as a covered symbol, an alias or a venue spelling (read as its canonical symbol: rndrusd is RENDERUSD, BTC-USDT is BTCUSD), e.g. BTCUSD, ETHUSD or TSLA; GET /coverage (tool get_data_coverage) lists the covered symbols. A segment that is no symbol at all makes the path no route: 404 not_found, never charged or quoted."}
)
