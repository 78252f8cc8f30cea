package symbols

import "sort"

// Market is one exchange market of a covered symbol that the default
// configuration reads. Its VenueSymbol normalizes (Normalize) to the symbol.
type Market struct {
	// Venue is the venue id: "binance", "coinbase", "kraken", "bybit",
	// "hyperliquid".
	Venue string
	// VenueSymbol is the venue's own spelling, e.g. "BTCUSDT", "BTC-USD".
	VenueSymbol string
	// Kind is "spot" or "perp".
	Kind string
}

// markets are the exchange markets of the default configuration: the BTC and
// ETH markets of the five exchanges.
var markets = []Market{
	{"binance", "BTCUSDT", "spot"}, {"binance", "ETHUSDT", "spot"},
	{"coinbase", "BTC-USD", "spot"}, {"coinbase", "ETH-USD", "spot"},
	{"kraken", "BTC/USD", "spot"}, {"kraken", "ETH/USD", "spot"},
	{"bybit", "BTCUSDT", "perp"}, {"bybit", "ETHUSDT", "perp"},
	{"hyperliquid", "BTC", "perp"}, {"hyperliquid", "ETH", "perp"},
}

// CoverageSource is one data source of a symbol: an exchange market, or a
// token on a chain (whose pools the DEX connectors read).
type CoverageSource struct {
	// Kind is "exchange", "onchain_dex" (EVM chains) or "solana_dex".
	Kind string
	// Venue and VenueSymbol name an exchange market (Kind "exchange").
	Venue, VenueSymbol, MarketKind string
	// Chain, Address and Ticker name a token (the DEX kinds).
	Chain, Address, Ticker string
}

// CoverageEntry is one covered symbol with its asset class and sources.
type CoverageEntry struct {
	Symbol  string
	Class   AssetClass
	Name    string
	Sources []CoverageSource
}

// Coverage returns every covered asset, sorted by symbol, with its data
// sources from this registry: the exchange markets of the default
// configuration (by venue), then the tokens (by chain and address). Stablecoin
// tokens are quotes, not symbols, and appear under no entry. An asset with
// no source is listed with an empty Sources.
func Coverage() []CoverageEntry {
	out := make([]CoverageEntry, 0, len(assets))
	idx := map[string]int{}
	for _, a := range assets {
		idx[a.Symbol] = len(out)
		out = append(out, CoverageEntry{Symbol: a.Symbol, Class: a.Class, Name: a.Name})
	}
	ms := append([]Market(nil), markets...)
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].Venue < ms[j].Venue })
	for _, m := range ms {
		s, _ := Normalize(m.Venue, m.VenueSymbol)
		i, ok := idx[s]
		if !ok {
			panic("BUG: market " + m.Venue + " " + m.VenueSymbol + " does not normalize to a covered asset")
		}
		e := &out[i]
		e.Sources = append(e.Sources, CoverageSource{Kind: "exchange", Venue: m.Venue, VenueSymbol: m.VenueSymbol, MarketKind: m.Kind})
	}
	for _, t := range Tokens() {
		i, ok := idx[t.Symbol]
		if !ok {
			continue
		}
		kind := "onchain_dex"
		if t.Chain == "solana" {
			kind = "solana_dex"
		}
		out[i].Sources = append(out[i].Sources, CoverageSource{Kind: kind, Chain: t.Chain, Address: t.Address, Ticker: t.Ticker})
	}
	return out
}
