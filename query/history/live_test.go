package history_test

import (
	"context"
	"testing"
	"time"

	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
)

// waitFor polls cond until it holds or a minute passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestLiveHitRates: the known changes of TESTUSD (a BULLISH change whose
// hour ends 5% lower, a BEARISH one whose hour ends 5% lower: a hit) give
// the 1h hit rates per signal and per symbol, first computed in the
// background on a cache miss.
func TestLiveHitRates(t *testing.T) {
	root := t.TempDir()
	w := histtest.New(t, root)
	t0 := day0.Add(2 * time.Hour)
	w.Candles("1m", false, knownPath(t0, 150, nil))
	w.Changes(false, knownChanges(t0))
	s := open(t, root)
	if _, ok := s.CachedHitRates("5m"); ok {
		t.Fatal("hit rates before any computation")
	}
	var hr history.HitRates
	waitFor(t, "the background hit rates", func() bool {
		var ok bool
		hr, ok = s.CachedHitRates("5m")
		return ok
	})
	f := func(got history.HitRate, want history.HitRate) {
		t.Helper()
		if got.Samples != want.Samples || got.HitRate != want.HitRate || !near(got.AverageReturn, want.AverageReturn) {
			t.Errorf("got %+v, want %+v", got, want)
		}
	}
	f(hr.BySignal["BULLISH"], history.HitRate{Samples: 1, HitRate: 0, AverageReturn: -5})
	f(hr.BySignal["BEARISH"], history.HitRate{Samples: 1, HitRate: 100, AverageReturn: 5})
	f(hr.BySymbol["TESTUSD"]["BEARISH"], history.HitRate{Samples: 1, HitRate: 100, AverageReturn: 5})
	f(hr.BySymbol["OTHERUSD"]["BEARISH"], history.HitRate{})
	if want := s.Now().Add(-history.HitRateDays * 24 * time.Hour); !hr.From.Equal(want) || !hr.To.Equal(s.Now()) {
		t.Errorf("range %v–%v", hr.From, hr.To)
	}
	// A window without logged changes: empty rates, not an error.
	empty, err := s.ComputeHitRates(context.Background(), "15m")
	if err != nil || len(empty.BySignal) != 0 {
		t.Errorf("15m: %+v %v", empty, err)
	}
}

// TestLiveSmartMoney: a scan's request ranks the symbol in the background
// and keeps its net flow; a symbol without wallet trades is remembered as
// such; a route's ranking is kept too.
func TestLiveSmartMoney(t *testing.T) {
	root := t.TempDir()
	d1 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	d2 := d1.Add(24 * time.Hour)
	trade := func(at time.Time, wallet, side string, size, price float64, id string) histtest.Trade {
		return histtest.Trade{Time: at, Symbol: "TOKUSD", Venue: "uniswap_v3", VenueKind: "onchain_dex", Chain: "base", Market: "0xpool",
			VenueSymbol: "TOK/USDC", Price: price, Size: size, NotionalUSD: price * size, Side: side, TradeID: id, LogIndex: 1, Wallet: wallet}
	}
	w := histtest.New(t, root)
	w.Trades(false, []histtest.Trade{trade(d1, "0xW1", "BUY", 10, 100, "0x01")})
	w.Trades(true, []histtest.Trade{trade(d2, "0xW1", "SELL", 4, 150, "0x02"), trade(d2.Add(time.Minute), "0xW2", "BUY", 5, 130, "0x03")})
	now := d2.Add(time.Hour)
	s, err := history.Open(history.Config{DataDir: root, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, ok := s.CachedSmartMoney("TOKUSD"); ok {
		t.Fatal("cached before any ranking")
	}
	s.WantSmartMoney([]string{"TOKUSD", "NONEUSD", "TOKUSD"})
	waitFor(t, "the background rankings", s.SmartMoneyIdle)
	f, ok := s.CachedSmartMoney("TOKUSD")
	// The top decile is W1 (PnL 200 realized + 120 unrealized): bought
	// $1000 yesterday, sold $600 today: net +400 of 1600, BUYING.
	if !ok || f.NetFlow.TopDecileDirection != "BUYING" || f.NetFlow.TopDecileNetFlowUSD != 400 || f.WalletsRanked != 2 || !f.AsOf.Equal(now) {
		t.Fatalf("TOKUSD %+v %v", f, ok)
	}
	if _, ok := s.CachedSmartMoney("NONEUSD"); ok {
		t.Error("NONEUSD has no wallet trades")
	}
	if got := s.SmartMoneySymbols(); len(got) != 1 || got[0] != "TOKUSD" {
		t.Errorf("symbols %v", got)
	}
}
