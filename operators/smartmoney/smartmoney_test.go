package smartmoney

import (
	"cmp"
	"math"
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

var dict = NewDict()

func tr(sec int, wallet string, buy bool, size, price float64) Trade {
	return Trade{TimeNs: t0.Add(time.Duration(sec) * time.Second).UnixNano(), Chain: dict.ID("base"), Market: dict.ID("0xpool"), Wallet: dict.ID(wallet),
		Buy: buy, Size: size, Price: price, USD: size * price}
}

func near(t *testing.T, name string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-9 {
		t.Fatalf("%s = %v, want %v", name, got, want)
	}
}

// TestRankByHand: the PnL, win rate and holding time of each wallet
// computed by hand (comments) equal Rank's.
func TestRankByHand(t *testing.T) {
	trades := []Trade{
		// A: buys 10 @ 100 and 10 @ 120: 20 at average cost 110, acquired
		// on average at second 1.5.
		tr(1, "0xA", true, 10, 100),
		tr(2, "0xA", true, 10, 120),
		// A sells 5 @ 130: realized 5 x (130 - 110) = 100, held 1.5 s.
		tr(3, "0xA", false, 5, 130),
		// B buys 1 @ 200.
		tr(4, "0xB", true, 1, 200),
		// A sells 5 @ 100: realized 5 x (100 - 110) = -50, held 3.5 s.
		// A keeps 10 at cost 1100.
		tr(5, "0xA", false, 5, 100),
		// B sells 3 @ 150: 1 matched, realized -50; 2 x 150 = 300 unmatched.
		tr(6, "0xB", false, 3, 150),
		// C buys and sells in one block alone in it: arbitrage.
		tr(7, "0xC", true, 2, 140), tr(7, "0xC", false, 2, 141),
		// S sandwiches V in one block: S excluded, V kept (buy 1 @ 141).
		tr(8, "0xS", true, 1, 140), tr(8, "0xV", true, 1, 141), tr(8, "0xS", false, 1, 142),
		// A router-bound swap.
		tr(9, "0xROUTER", true, 1, 140),
		// D buys 1 @ 150: the last trade, so the mark is 150.
		tr(10, "0xD", true, 1, 150),
	}
	now := time.Date(2026, 3, 3, 12, 0, 0, 0, time.UTC)
	a := Rank(trades, Options{Symbol: "TEST", Now: now, Routers: map[string]bool{"0xrouter": true}, Under: 3, Dict: dict})
	if a.MarkPrice != 150 || a.WalletsRanked != 4 || a.TradesUsed != 8 {
		t.Fatalf("mark %v, ranked %d, used %d", a.MarkPrice, a.WalletsRanked, a.TradesUsed)
	}
	want := []struct {
		wallet               string
		realized, unrealized float64
		winRate, hold        float64 // -1: none
		openSize             float64
	}{
		// A: realized 100 - 50 = 50; unrealized 10 x 150 - 1100 = 400;
		// win rate 1 of 2; holding (1.5 + 3.5) / 2 = 2.5 s.
		{"0xA", 50, 400, 50, 2.5, 10},
		// V: 1 x 150 - 141 = 9.
		{"0xV", 0, 9, -1, -1, 1},
		// D: bought at the mark.
		{"0xD", 0, 0, -1, -1, 1},
		// B: realized -50, nothing open; held 6 - 4 = 2 s.
		{"0xB", -50, 0, 0, 2, 0},
	}
	for i, w := range want {
		g := a.Wallets[i]
		if g.Wallet != w.wallet || g.Rank != i+1 {
			t.Fatalf("rank %d is %s, want %s", i+1, g.Wallet, w.wallet)
		}
		near(t, w.wallet+" realized", g.RealizedPnlUSD, w.realized)
		near(t, w.wallet+" unrealized", g.UnrealizedPnlUSD, w.unrealized)
		near(t, w.wallet+" total", g.TotalPnlUSD, w.realized+w.unrealized)
		near(t, w.wallet+" open", g.OpenPosition.Size, w.openSize)
		if w.winRate < 0 {
			if g.WinRate != nil || g.AvgHoldingSeconds != nil {
				t.Fatalf("%s: win rate without closing sells", w.wallet)
			}
			continue
		}
		near(t, w.wallet+" win rate", *g.WinRate, w.winRate)
		near(t, w.wallet+" holding", *g.AvgHoldingSeconds, w.hold)
	}
	near(t, "A avg cost", a.Wallets[0].OpenPosition.AvgCost, 110)
	near(t, "B unmatched", a.Wallets[3].UnmatchedSellUSD, 300)
	ex := a.Excluded
	if ex.Arbitrage != (Excluded{2, 1}) || ex.MEVSandwich != (Excluded{2, 1}) || ex.RouterBound != (Excluded{1, 1}) || ex.TwoSidedBots != (Excluded{}) || ex.UnderMinimum.Trades != 3 {
		t.Fatalf("exclusions %+v", ex)
	}
	// Net flow since 2026-03-02 00:00: the top decile is A alone (buys
	// 2200, sells 1150); all wallets: A 1050, B 200 - 450, V 141, D 150.
	nf := a.NetFlow
	if nf.TopDecileWallets != 1 || nf.TopDecileDirection != "BUYING" || !nf.From.Equal(time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("net flow %+v", nf)
	}
	near(t, "top net", nf.TopDecileNetFlowUSD, 1050)
	near(t, "all net", nf.AllWalletsNetFlowUSD, 1050-250+141+150)
	// Three days later the window holds nothing.
	b := Rank(trades, Options{Now: now.AddDate(0, 0, 3), Dict: dict})
	if b.NetFlow.AllWalletsBuyUSD != 0 || b.NetFlow.TopDecileDirection != "FLAT" {
		t.Fatalf("later window %+v", b.NetFlow)
	}
}

// TestTwoSidedBot: a wallet trading both ways 60 times with a balanced
// flow is excluded; one trading 49 times is not.
func TestTwoSidedBot(t *testing.T) {
	var trades []Trade
	for i := range 60 {
		trades = append(trades, tr(10*i, "0xBOT", i%2 == 0, 1, 100))
	}
	for i := range 49 {
		trades = append(trades, tr(10*i+5, "0xBUSY", i%2 == 0, 1, 100))
	}
	slices.SortStableFunc(trades, func(a, b Trade) int { return cmp.Compare(a.TimeNs, b.TimeNs) })
	a := Rank(trades, Options{Now: t0, Dict: dict})
	if a.Excluded.TwoSidedBots != (Excluded{60, 1}) || a.WalletsRanked != 1 || a.Wallets[0].Wallet != "0xBUSY" {
		t.Fatalf("bots %+v, ranked %+v", a.Excluded.TwoSidedBots, a.Wallets)
	}
}

// TestMergeRuns: runs in time order merge into one time order, whatever
// their number and lengths; many short runs are sorted instead.
func TestMergeRuns(t *testing.T) {
	f := func(times [][]int64) {
		t.Helper()
		var trades []Trade
		var runs []int
		var all []int64
		for _, run := range times {
			runs = append(runs, len(trades))
			for _, ts := range run {
				trades = append(trades, Trade{TimeNs: ts, Size: float64(ts)})
				all = append(all, ts)
			}
		}
		got := MergeRuns(trades, runs)
		slices.Sort(all)
		if len(got) != len(all) {
			t.Fatalf("%v: %d trades, want %d", times, len(got), len(all))
		}
		for i, tr := range got {
			if tr.TimeNs != all[i] || tr.Size != float64(tr.TimeNs) {
				t.Fatalf("%v: trade %d is %+v, want time %d", times, i, tr, all[i])
			}
		}
	}
	f(nil)
	f([][]int64{{1, 2, 3}})
	f([][]int64{{5, 6, 9}, {1, 2, 7}, {3, 3, 8, 10}})
	long := make([][]int64, 40)
	for r := range long {
		for i := range 100 {
			long[r] = append(long[r], int64((i*37+r*11)%1000)+int64(i*1000))
		}
	}
	f(long)
	short := make([][]int64, 500) // runs of 2: sorted instead
	for r := range short {
		short[r] = []int64{int64(1000 - r), int64(2000 - r)}
	}
	f(short)
}
