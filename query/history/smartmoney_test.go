package history_test

import (
	"context"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/testhistory"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
)

// TestSmartMoneyFromParquet stores trades in day files (two days, two
// venues, a staging part for today), reads them back through DuckDB and
// checks the ranking against a hand computation:
//
//	W1 buys 10 @ 100 on day 1 and sells 4 @ 150 on day 2: realized
//	4 x 50 = 200; 6 open at cost 600 marked at 120 (the last trade):
//	unrealized 120; total 320; win rate 100 %; held 1 day.
//	W2 buys 5 @ 130 on day 2: unrealized 5 x (120 - 130) = -50.
//	W3's $40 trade is under the $50 minimum: ignored, counted.
//	The CEX trade has no wallet: not a wallet trade.
func TestSmartMoneyFromParquet(t *testing.T) {
	root := t.TempDir()
	d1 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	d2 := d1.Add(24 * time.Hour)
	trade := func(at time.Time, venue, wallet, side string, size, price float64, id string) histtest.Trade {
		kind, chain := "onchain_dex", "base"
		if wallet == "" {
			kind, chain = "cex", ""
		}
		return histtest.Trade{Time: at, Symbol: "TOKUSD", Venue: venue, VenueKind: kind, Chain: chain, Market: "0xpool", VenueSymbol: "TOK/USDC",
			Price: price, Size: size, NotionalUSD: price * size, Side: side, TradeID: id, LogIndex: 1, Wallet: wallet}
	}
	w := histtest.New(t, root)
	w.Trades(false, []histtest.Trade{
		trade(d1, "uniswap_v3", "0xW1", "BUY", 10, 100, "0x01"),
		trade(d1.Add(time.Minute), "binance", "", "SELL", 100, 101, "cex-1"),
	})
	w.Trades(true, []histtest.Trade{
		trade(d2, "uniswap_v3", "0xW1", "SELL", 4, 150, "0x02"),
		trade(d2.Add(time.Minute), "uniswap_v2", "0xW2", "BUY", 5, 130, "0x03"),
		trade(d2.Add(2*time.Minute), "uniswap_v2", "0xW3", "BUY", 1, 40, "0x04"),
		trade(d2.Add(3*time.Minute), "uniswap_v3", "0xW4", "BUY", 1, 120, "0x05"),
	})
	now := d2.Add(time.Hour)
	st, err := history.Open(history.Config{DataDir: root, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a, err := st.SmartMoney(context.Background(), "TOKUSD", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.MarkPrice != 120 || a.WalletsRanked != 3 || a.Excluded.UnderMinimum.Trades != 1 || a.TradesUsed != 4 {
		t.Fatalf("answer %+v", a)
	}
	w1 := a.Wallets[0]
	if w1.Wallet != "0xW1" || math.Abs(w1.RealizedPnlUSD-200) > 1e-9 || math.Abs(w1.UnrealizedPnlUSD-120) > 1e-9 ||
		*w1.WinRate != 100 || *w1.AvgHoldingSeconds != 86400 || w1.OpenPosition.Size != 6 {
		t.Fatalf("W1 %+v", w1)
	}
	if w2 := a.Wallets[2]; w2.Wallet != "0xW2" || math.Abs(w2.TotalPnlUSD+50) > 1e-9 {
		t.Fatalf("W2 %+v", w2)
	}
	// 404 for a symbol without wallet trades (the CEX-only one too).
	for _, sym := range []string{"NONEUSD"} {
		if _, err := st.SmartMoney(context.Background(), sym, nil); !errors.Is(err, history.ErrNoWalletTrades) {
			t.Fatalf("%s: %v", sym, err)
		}
	}
}

// TestSmartMoneyFromSimulator ranks the simulator's on-chain wallets of a
// backfilled day: wallets are ranked by total PnL, every ranked wallet
// traded on chain, and the exclusions were applied.
func TestSmartMoneyFromSimulator(t *testing.T) {
	root := t.TempDir()
	testhistory.Build(t, root, testhistory.Options{Symbols: []string{"ETHUSD", "BTCUSD"}, Rate: 0.05})
	now := testhistory.DefaultFrom.Add(25 * time.Hour)
	st, err := history.Open(history.Config{DataDir: root, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a, err := st.SmartMoney(context.Background(), "ETHUSD", nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.WalletsRanked < 100 || len(a.Wallets) != 20 || a.Excluded.UnderMinimum.Trades == 0 {
		t.Fatalf("ranked %d, listed %d, excluded %+v", a.WalletsRanked, len(a.Wallets), a.Excluded)
	}
	for i := 1; i < len(a.Wallets); i++ {
		if a.Wallets[i].TotalPnlUSD > a.Wallets[i-1].TotalPnlUSD {
			t.Fatalf("not ranked at %d", i)
		}
	}
}
