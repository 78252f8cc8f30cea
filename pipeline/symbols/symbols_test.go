package symbols

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	f := func(venue, venueSymbol, want string) {
		t.Helper()
		got, ok := Normalize(venue, venueSymbol)
		if want == "" {
			if ok {
				t.Fatalf("Normalize(%q, %q) = %q, want not normalized", venue, venueSymbol, got)
			}
			return
		}
		if !ok || got != want {
			t.Fatalf("Normalize(%q, %q) = %q, %v; want %q", venue, venueSymbol, got, ok, want)
		}
	}
	// BTC in every venue spelling.
	f("binance", "BTCUSDT", "BTCUSD")
	f("binance", "btcusdt", "BTCUSD")
	f("kraken", "XBT/USD", "BTCUSD")
	f("bitmex", "XBTUSD", "BTCUSD")
	f("coinbase", "BTC-USD", "BTCUSD")
	f("hyperliquid", "BTC", "BTCUSD")
	f("uniswap_v3", "WBTC/USDC", "BTCUSD")
	f("binance_coinm", "BTCUSD_PERP", "BTCUSD")
	f("bybit", "BTC-USDT-PERP", "BTCUSD")
	f("", "BTCUSD", "BTCUSD")
	// ETH, SOL, DOGE.
	f("binance", "ETHUSDT", "ETHUSD")
	f("coinbase", "ETH-USD", "ETHUSD")
	f("hyperliquid", "ETH", "ETHUSD")
	f("uniswap_v3", "WETH/USDC", "ETHUSD")
	f("", "WETH", "")
	f("binance", "SOLUSDT", "SOLUSD")
	f("coinbase", "SOL-USD", "SOLUSD")
	f("binance", "DOGEUSDT", "DOGEUSD")
	// Every stablecoin quote is USD.
	for _, q := range []string{"USDT", "USDC", "USD", "DAI", "FDUSD", "BUSD", "PYUSD", "USDS", "RLUSD", "USDE"} {
		f("binance", "BTC"+q, "BTCUSD")
		f("coinbase", "ETH-"+q, "ETHUSD")
		f("kraken", "SOL/"+q, "SOLUSD")
	}
	// Not quoted in USD: not normalized.
	f("binance", "XRPETH", "")
	f("binance", "ADABTC", "")
	f("coinbase", "DASH-BTC", "")
	f("coinbase", "NMR-EUR", "")
	f("coinbase", "BAND-GBP", "")
	// Dated futures, malformed and quote-less symbols.
	f("binance_coinm", "BTCUSD_240927", "")
	f("binance", "BTC", "")
	f("binance", "USDT", "")
	f("coinbase", "-USD", "")
	f("coinbase", "BTC--USD", "")
	f("coinbase", "BTC-USD-", "")
	f("coinbase", "A-B-C-USD", "")
	f("hyperliquid", "@107", "")
	f("hyperliquid", "BT C", "")
	f("", "", "")
	f("", "BTC USD", "")
	// Hyperliquid spot pairs use the general rules.
	f("hyperliquid", "PURR/USDC", "PURRUSD")
	// Tokenized equities: the canonical symbol is the ticker.
	f("", "TSLAx/USD", "TSLA")
	f("", "NVDAon-USDC", "NVDA")
	f("", "AAPLUSD", "AAPL")
	f("", "SPY-USD", "SPY")
	f("", "TSLA", "TSLA")
	f("binance", "XYZ", "")
	// Renamed assets: the former ticker is an alias of the current one.
	f("binance", "RNDRUSDT", "RENDERUSD")
	f("coinbase", "RENDER-USD", "RENDERUSD")
	f("binance", "MATICUSDT", "POLUSD")
	f("coinbase", "POL-USD", "POLUSD")
	// 1,000-coin perps are their own perp-only symbols.
	f("hyperliquid", "kPEPE", "KPEPEUSD")
	f("binance_usdm", "1000PEPEUSDT", "KPEPEUSD")
	f("hyperliquid", "kNOPE", "")
}

func TestLookupToken(t *testing.T) {
	f := func(chain, address, wantTicker string, wantDecimals int, wantSymbol string) {
		t.Helper()
		tok, ok := LookupToken(chain, address)
		if wantTicker == "" {
			if ok {
				t.Fatalf("LookupToken(%q, %q) = %+v, want unknown", chain, address, tok)
			}
			return
		}
		if !ok || tok.Ticker != wantTicker || tok.Decimals != wantDecimals || tok.Symbol != wantSymbol || tok.Chain != chain {
			t.Fatalf("LookupToken(%q, %q) = %+v, %v; want %s %d %s", chain, address, tok, ok, wantTicker, wantDecimals, wantSymbol)
		}
	}
	const (
		ethUSDC  = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
		ethUSDT  = "0xdAC17F958D2ee523a2206206994597C13D831ec7"
		ethWETH  = "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"
		ethWBTC  = "0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599"
		baseWETH = "0x4200000000000000000000000000000000000006"
		baseUSDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
	)
	f("ethereum", ethUSDC, "USDC", 6, "USD")
	f("ethereum", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "USDC", 6, "USD")
	f("ethereum", ethUSDT, "USDT", 6, "USD")
	f("ethereum", ethWETH, "WETH", 18, "ETHUSD")
	f("ethereum", ethWBTC, "WBTC", 8, "BTCUSD")
	f("base", baseWETH, "WETH", 18, "ETHUSD")
	f("base", baseUSDC, "USDC", 6, "USD")
	// Never merged across chains: the same ticker at another address, or the
	// same address on another chain, is a different (here unknown) token.
	f("base", ethUSDC, "", 0, "")
	f("ethereum", baseUSDC, "", 0, "")
	f("ethereum", baseWETH, "", 0, "")
	f("base", ethWETH, "", 0, "")
	f("arbitrum", ethUSDC, "", 0, "")
	// The 39-digit WETH address (a common typo) is not WETH.
	f("ethereum", "0xC02aaA39b223FE8D0A0e5C4F27eAD083C756Cc2", "", 0, "")
	f("ethereum", "", "", 0, "")

	// USDC on each chain is its own entry with one ticker.
	chains := map[string]bool{}
	for _, tok := range Tokens() {
		if tok.Ticker == "USDC" {
			if chains[tok.Chain] {
				t.Fatalf("two USDC entries on %s", tok.Chain)
			}
			chains[tok.Chain] = true
		}
	}
	if len(chains) != 5 {
		t.Fatalf("USDC on %d chains, want 5 (ethereum, base, arbitrum, optimism, solana)", len(chains))
	}
}

func TestAssets(t *testing.T) {
	as := Assets()
	if !sort.SliceIsSorted(as, func(i, j int) bool { return as[i].Symbol < as[j].Symbol }) {
		t.Fatalf("Assets() is not sorted by symbol")
	}
	classes := map[AssetClass]int{}
	for _, a := range as {
		classes[a.Class]++
		if a.Name == "" {
			t.Fatalf("asset %s has no name", a.Symbol)
		}
		if got, ok := Normalize("", a.Symbol); !ok || got != a.Symbol {
			t.Fatalf("covered symbol %s does not normalize to itself: %q %v", a.Symbol, got, ok)
		}
	}
	if classes[Crypto] < 40 {
		t.Fatalf("crypto assets = %d, want >= 40", classes[Crypto])
	}
	if classes[PerpOnly] == 0 {
		t.Fatalf("no perp_only assets")
	}
	f := func(symbol string, want AssetClass) {
		t.Helper()
		a, ok := LookupAsset(symbol)
		if want == "" {
			if ok {
				t.Fatalf("LookupAsset(%q) = %+v, want unknown", symbol, a)
			}
			return
		}
		if !ok || a.Class != want || a.Symbol != symbol {
			t.Fatalf("LookupAsset(%q) = %+v, %v; want class %s", symbol, a, ok, want)
		}
	}
	for _, s := range []string{"TSLA", "NVDA", "AAPL", "MSFT", "AMZN", "GOOGL", "META", "SPY", "QQQ", "COIN", "MSTR", "HOOD"} {
		f(s, USEquity)
		f(s+"USD", "") // an alias (Canonical), not the symbol
	}
	for _, s := range []string{"BTC", "ETH", "SOL", "DOGE", "XRP", "ADA", "AVAX", "LINK"} {
		f(s+"USD", Crypto)
	}
	f("KPEPEUSD", PerpOnly)
	f("SKLUSD", "")
	f("BTCUSDT", "")

	// Callers cannot corrupt the registry through the returned slice.
	as[0].Symbol = "X"
	if Assets()[0].Symbol == "X" {
		t.Fatalf("Assets() shares its backing array")
	}
}

// TestCanonical checks the one resolver every input goes through: any case,
// canonical symbols, aliases (renamed assets, a stock's USD pair, a crypto
// asset's bare base) and venue spellings, covered or not.
func TestCanonical(t *testing.T) {
	f := func(in, want string, wantCovered bool) {
		t.Helper()
		got, covered, ok := Canonical(in)
		if want == "" {
			if ok {
				t.Fatalf("Canonical(%q) = %q, want no symbol", in, got)
			}
			if _, err := Resolve(in); !errors.Is(err, ErrUnknownSymbol) || !strings.Contains(err.Error(), "mi symbols") {
				t.Fatalf("Resolve(%q) = %v", in, err)
			}
			return
		}
		if !ok || got != want || covered != wantCovered {
			t.Fatalf("Canonical(%q) = %q, %v, %v; want %q, covered %v", in, got, covered, ok, want, wantCovered)
		}
		a, err := Resolve(in)
		if wantCovered != (err == nil) || err == nil && a.Symbol != want {
			t.Fatalf("Resolve(%q) = %+v, %v", in, a, err)
		}
	}
	for _, in := range []string{"TSLA", "tsla", " Tsla ", "TSLAUSD", "tslausd", "TSLA-USD", "TSLAx/USD", "TSLAon-USDC"} {
		f(in, "TSLA", true)
	}
	for _, in := range []string{"SPY", "spy", "SPYUSD"} {
		f(in, "SPY", true)
	}
	for _, in := range []string{"BTCUSD", "btcusd", "BTC", "btc", "XBT", "XBTUSD", "BTC-USDT", "xbt/usd", "WBTC"} {
		f(in, "BTCUSD", true)
	}
	for _, in := range []string{"RENDERUSD", "renderusd", "RNDRUSD", "rndrusd", "RNDR", "RENDER", "RNDR-USDT"} {
		f(in, "RENDERUSD", true)
	}
	for _, in := range []string{"POLUSD", "MATICUSD", "maticusd", "MATIC", "POL", "MATIC/USDC"} {
		f(in, "POLUSD", true)
	}
	f("TONX", "TONX", true)
	f("TON", "TONUSD", true)
	f("1000PEPEUSDT", "KPEPEUSD", true)
	f("SKL-USD", "SKLUSD", false)
	f("sklusd", "SKLUSD", false)
	for _, in := range []string{"", "  ", "XRPETH", "BTC USD", "ÄÖÜ", strings.Repeat("A", 49)} {
		f(in, "", false)
	}

	// Every asset resolves to itself from its symbol and each alias, in
	// upper and lower case; aliases are sorted and belong to one asset.
	owner := map[string]string{}
	for _, a := range Assets() {
		if !sort.StringsAreSorted(a.Aliases) {
			t.Fatalf("%s aliases not sorted: %v", a.Symbol, a.Aliases)
		}
		for _, in := range append([]string{a.Symbol}, a.Aliases...) {
			f(in, a.Symbol, true)
			f(strings.ToLower(in), a.Symbol, true)
			if prev, dup := owner[in]; dup {
				t.Fatalf("%s is a name of %s and %s", in, prev, a.Symbol)
			}
			owner[in] = a.Symbol
		}
	}
	if a, _ := LookupAsset("RENDERUSD"); !slices.Contains(a.Aliases, "RNDRUSD") {
		t.Fatalf("RENDERUSD aliases %v", a.Aliases)
	}
	if a, _ := LookupAsset("TSLA"); !slices.Contains(a.Aliases, "TSLAUSD") {
		t.Fatalf("TSLA aliases %v", a.Aliases)
	}
}

func TestIsStable(t *testing.T) {
	f := func(code string, want bool) {
		t.Helper()
		if got := IsStable(code); got != want {
			t.Fatalf("IsStable(%q) = %v, want %v", code, got, want)
		}
	}
	f("USDT", true)
	f("usdc", true)
	f("USDe", true)
	f("USD", true)
	f("EUR", false)
	f("BTC", false)
	f("", false)
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"BTCUSDT", "XBT/USD", "BTC", "kPEPE", "BTCUSD_PERP", "BTC-USDT-PERP", "TSLAx/USD", "", "-", "@1"} {
		f.Add("hyperliquid", s)
		f.Add("binance", s)
	}
	f.Fuzz(func(t *testing.T, venue, s string) {
		sym, ok := Normalize(venue, s)
		if a, covered := LookupAsset(sym); ok && !(len(sym) > 3 && sym[len(sym)-3:] == "USD" && a.Class != USEquity || covered && a.Class == USEquity) {
			t.Fatalf("Normalize(%q, %q) = %q: neither <BASE>USD nor a covered stock ticker", venue, s, sym)
		}
		if c, _, cok := Canonical(sym); ok && (!cok || c != sym) {
			t.Fatalf("Normalize(%q, %q) = %q, which is not canonical (Canonical says %q)", venue, s, sym, c)
		}
		if !ok && sym != "" {
			t.Fatalf("Normalize(%q, %q) = %q with ok=false", venue, s, sym)
		}
		// User input: Canonical is idempotent.
		if c, _, cok := Canonical(s); cok {
			if c2, _, ok2 := Canonical(c); !ok2 || c2 != c {
				t.Fatalf("Canonical(%q) = %q but Canonical(%q) = %q, %v", s, c, c, c2, ok2)
			}
		}
	})
}

func BenchmarkNormalize(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Normalize("binance", "BTCUSDT")
		Normalize("coinbase", "ETH-USD")
	}
}
