package symbols

import "testing"

func TestCoverage(t *testing.T) {
	cov := Coverage()
	if len(cov) != len(Assets()) {
		t.Fatalf("%d entries for %d assets", len(cov), len(Assets()))
	}
	by := map[string]CoverageEntry{}
	for i, e := range cov {
		if i > 0 && cov[i-1].Symbol >= e.Symbol {
			t.Fatalf("not sorted at %s", e.Symbol)
		}
		by[e.Symbol] = e
	}
	eth := by["ETHUSD"]
	var exch, chains int
	seen := map[string]bool{}
	for _, s := range eth.Sources {
		switch s.Kind {
		case "exchange":
			exch++
		case "onchain_dex":
			chains++
			seen[s.Chain] = true
			if s.Ticker != "WETH" {
				t.Fatalf("ETHUSD token %+v", s)
			}
		default:
			t.Fatalf("source %+v", s)
		}
	}
	if exch != 5 || chains != 4 || !seen["optimism"] || !seen["arbitrum"] {
		t.Fatalf("ETHUSD sources %+v", eth.Sources)
	}
	// WETH on Base and Optimism share an address: two tokens, never merged.
	b, okB := LookupToken("base", "0x4200000000000000000000000000000000000006")
	o, okO := LookupToken("optimism", "0x4200000000000000000000000000000000000006")
	if !okB || !okO || b.Chain == o.Chain {
		t.Fatalf("base %+v optimism %+v", b, o)
	}
	// Solana mints are case-sensitive: a lower-cased mint is unknown.
	if _, ok := LookupToken("solana", "So11111111111111111111111111111111111111112"); !ok {
		t.Fatal("wSOL unknown")
	}
	if _, ok := LookupToken("solana", "epjfwdd5aufqssqem2qn1xzybapc8g4weggkzwytdt1v"); ok {
		t.Fatal("a lower-cased Solana mint matched")
	}
	if by["SOLUSD"].Sources[0].Kind != "solana_dex" || by["TSLA"].Class != USEquity || by["KPEPEUSD"].Class != PerpOnly {
		t.Fatalf("SOLUSD %+v TSLA %+v KPEPEUSD %+v", by["SOLUSD"], by["TSLA"], by["KPEPEUSD"])
	}
	if _, ok := by["TSLAUSD"]; ok {
		t.Fatal("TSLAUSD listed: stocks are bare tickers")
	}
	// Stablecoins are quotes: no USD entry.
	if _, ok := by["USD"]; ok {
		t.Fatal("a USD entry")
	}
}
