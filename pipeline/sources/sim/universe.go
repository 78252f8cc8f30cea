package sim

import "github.com/marketintel/mi/schemas"

// assetClass says whether a symbol is a crypto asset or a tokenized US equity.
type assetClass uint8

const (
	classCrypto assetClass = iota
	classEquity
)

// venueSet is a bit set of the simulated venues a symbol trades on.
type venueSet uint8

const (
	onCEX     venueSet = 1 << venueCEX
	onUniswap venueSet = 1 << venueUniswap
	onRaydium venueSet = 1 << venueRaydium

	onAll  = onCEX | onUniswap | onRaydium
	onEVM  = onCEX | onUniswap
	onSol  = onCEX | onRaydium
	onDEX  = onUniswap | onRaydium
	onlyCX = onCEX
)

// Indexes of the simulated venues in venues.
const (
	venueCEX = iota
	venueUniswap
	venueRaydium
	numVenues
)

// venue describes one simulated venue.
type venue struct {
	name       string
	kind       schemas.VenueKind
	chain      string
	halfSpread float64 // fraction of the mid an aggressor pays (buy) or gives up (sell)
	weight     [2]float64
	dex        bool
}

// venues are the simulated venues. weight is the share of a symbol's trades
// the venue gets, per asset class, before normalizing over the venues the
// symbol trades on.
var venues = [numVenues]venue{
	venueCEX:     {name: "sim_cex", kind: schemas.VenueKind_VENUE_KIND_CEX, halfSpread: 0.5e-4, weight: [2]float64{0.60, 0}},
	venueUniswap: {name: "sim_uniswap", kind: schemas.VenueKind_VENUE_KIND_ONCHAIN_DEX, chain: "base", halfSpread: 3e-4, weight: [2]float64{0.25, 0.40}, dex: true},
	venueRaydium: {name: "sim_raydium", kind: schemas.VenueKind_VENUE_KIND_SOLANA_DEX, chain: "solana", halfSpread: 3e-4, weight: [2]float64{0.15, 0.60}, dex: true},
}

// symbolSpec holds the reference parameters of one symbol of the universe.
// docs/simulator.md lists them; keep the two in step.
type symbolSpec struct {
	symbol   string
	class    assetClass
	price    float64  // starting price, USD
	rate     float64  // mean trades/s at RateScale 1, all venues together
	vol      float64  // annualized volatility of the log price
	beta     float64  // loading on the common market factor
	notional float64  // median trade notional, USD
	venues   venueSet // venues the symbol trades on
	dexBase  string   // base token on DEX venues when it differs from the symbol's base
}

// universe is the default simulated universe, in DefaultSymbols order.
var universe = []symbolSpec{
	{"BTCUSD", classCrypto, 60000, 40, 0.55, 1.00, 900, onAll, "WBTC"},
	{"ETHUSD", classCrypto, 3000, 28, 0.65, 1.15, 600, onAll, "WETH"},
	{"SOLUSD", classCrypto, 150, 20, 0.85, 1.30, 300, onAll, ""},
	{"XRPUSD", classCrypto, 0.55, 10, 0.80, 1.20, 250, onlyCX, ""},
	{"DOGEUSD", classCrypto, 0.12, 10, 1.00, 1.40, 150, onAll, ""},
	{"ADAUSD", classCrypto, 0.40, 5, 0.85, 1.25, 150, onlyCX, ""},
	{"AVAXUSD", classCrypto, 28, 5, 0.95, 1.30, 200, onEVM, ""},
	{"LINKUSD", classCrypto, 13, 5, 0.90, 1.25, 200, onAll, ""},
	{"DOTUSD", classCrypto, 6, 3, 0.85, 1.25, 150, onlyCX, ""},
	{"TRXUSD", classCrypto, 0.13, 3, 0.60, 0.80, 150, onlyCX, ""},
	{"TONUSD", classCrypto, 6.5, 3, 0.80, 0.90, 150, onlyCX, ""},
	{"SHIBUSD", classCrypto, 0.000017, 4, 1.10, 1.45, 100, onEVM, ""},
	{"LTCUSD", classCrypto, 70, 4, 0.75, 1.10, 200, onlyCX, ""},
	{"BCHUSD", classCrypto, 380, 3, 0.80, 1.15, 200, onlyCX, ""},
	{"UNIUSD", classCrypto, 8, 3, 0.95, 1.30, 150, onEVM, ""},
	{"NEARUSD", classCrypto, 5, 3, 1.00, 1.35, 150, onlyCX, ""},
	{"APTUSD", classCrypto, 8, 3, 1.00, 1.35, 150, onlyCX, ""},
	{"ARBUSD", classCrypto, 0.75, 4, 1.00, 1.35, 150, onEVM, ""},
	{"OPUSD", classCrypto, 1.7, 3, 1.00, 1.35, 150, onEVM, ""},
	{"SUIUSD", classCrypto, 1.0, 6, 1.10, 1.40, 150, onlyCX, ""},
	{"PEPEUSD", classCrypto, 0.000009, 8, 1.30, 1.50, 80, onEVM, ""},
	{"ATOMUSD", classCrypto, 6.5, 2, 0.85, 1.25, 150, onlyCX, ""},
	{"XLMUSD", classCrypto, 0.10, 2, 0.75, 1.10, 120, onlyCX, ""},
	{"FILUSD", classCrypto, 4.5, 2, 0.95, 1.30, 120, onlyCX, ""},
	{"ICPUSD", classCrypto, 9, 2, 1.00, 1.30, 120, onlyCX, ""},
	{"HBARUSD", classCrypto, 0.07, 2, 0.90, 1.25, 120, onlyCX, ""},
	{"INJUSD", classCrypto, 22, 2, 1.10, 1.40, 150, onlyCX, ""},
	{"RENDERUSD", classCrypto, 7, 2, 1.10, 1.40, 150, onSol, ""},
	{"MKRUSD", classCrypto, 2500, 1.5, 0.85, 1.20, 300, onEVM, ""},
	{"AAVEUSD", classCrypto, 110, 3, 0.90, 1.25, 250, onEVM, ""},
	{"LDOUSD", classCrypto, 1.5, 2, 1.00, 1.35, 150, onEVM, ""},
	{"SEIUSD", classCrypto, 0.35, 2, 1.10, 1.40, 120, onlyCX, ""},
	{"TIAUSD", classCrypto, 6, 2, 1.10, 1.40, 150, onlyCX, ""},
	{"WIFUSD", classCrypto, 2.0, 6, 1.30, 1.50, 80, onSol, ""},
	{"BONKUSD", classCrypto, 0.000022, 5, 1.30, 1.50, 80, onSol, ""},
	{"JUPUSD", classCrypto, 0.9, 3, 1.10, 1.40, 120, onSol, ""},
	{"PYTHUSD", classCrypto, 0.35, 2, 1.10, 1.40, 120, onSol, ""},
	{"ENAUSD", classCrypto, 0.45, 4, 1.20, 1.45, 120, onEVM, ""},
	{"ONDOUSD", classCrypto, 1.0, 3, 1.10, 1.40, 120, onEVM, ""},
	{"HYPEUSD", classCrypto, 20, 6, 1.10, 1.35, 250, onlyCX, ""},
	{"ETCUSD", classCrypto, 22, 2, 0.85, 1.20, 150, onlyCX, ""},
	{"ALGOUSD", classCrypto, 0.15, 1.5, 0.90, 1.25, 100, onlyCX, ""},
	{"STXUSD", classCrypto, 1.7, 1.5, 1.00, 1.35, 100, onlyCX, ""},
	{"IMXUSD", classCrypto, 1.4, 1.5, 1.00, 1.35, 100, onEVM, ""},

	{"TSLA", classEquity, 250, 8, 0.55, 0.35, 400, onDEX, ""},
	{"NVDA", classEquity, 120, 8, 0.50, 0.35, 400, onDEX, ""},
	{"AAPL", classEquity, 190, 4, 0.25, 0.20, 400, onDEX, ""},
	{"MSFT", classEquity, 420, 3, 0.25, 0.20, 400, onDEX, ""},
	{"AMZN", classEquity, 185, 3, 0.30, 0.25, 400, onDEX, ""},
	{"GOOGL", classEquity, 170, 3, 0.30, 0.25, 400, onDEX, ""},
	{"META", classEquity, 500, 3, 0.35, 0.25, 400, onDEX, ""},
	{"SPY", classEquity, 550, 6, 0.15, 0.20, 800, onDEX, ""},
	{"QQQ", classEquity, 470, 4, 0.20, 0.25, 600, onDEX, ""},
	{"COIN", classEquity, 230, 4, 0.80, 0.90, 400, onDEX, ""},
	{"MSTR", classEquity, 160, 5, 0.90, 1.10, 400, onDEX, ""},
	{"HOOD", classEquity, 22, 3, 0.70, 0.60, 300, onDEX, ""},
}

// DefaultSymbols returns the normalized symbols of the default universe: 44
// crypto assets quoted in USD, then 12 tokenized US equities. The caller owns
// the returned slice.
func DefaultSymbols() []string {
	out := make([]string, len(universe))
	for i := range universe {
		out[i] = universe[i].symbol
	}
	return out
}

// lookupSpec returns the reference parameters of a symbol, or nil when the
// symbol is not in the universe.
func lookupSpec(symbol string) *symbolSpec {
	for i := range universe {
		if universe[i].symbol == symbol {
			return &universe[i]
		}
	}
	return nil
}

// baseAsset returns the base asset of a symbol on a venue: the symbol without
// its "USD" quote for crypto (with dexBase on DEX venues, e.g. WBTC), and
// "<TICKER>x" for tokenized equities.
func baseAsset(sp *symbolSpec, dex bool) string {
	if sp.class == classEquity {
		return sp.symbol + "x"
	}
	if dex && sp.dexBase != "" {
		return sp.dexBase
	}
	return sp.symbol[:len(sp.symbol)-len("USD")]
}
