package history_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/query/history/histtest"
)

var day0 = time.Date(2026, 1, 5, 0, 0, 0, 0, time.UTC)

func open(t testing.TB, root string) *history.Store {
	t.Helper()
	s, err := history.Open(history.Config{DataDir: root, MemoryLimit: "256MB", Now: func() time.Time { return day0.Add(48 * time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*math.Max(1, math.Abs(b)) }

func TestCandlesAcrossVenuesAndRollup(t *testing.T) {
	root := t.TempDir()
	w := histtest.New(t, root)
	a := histtest.Flat("ETHUSD", "coinbase", day0, 100, 1)
	a.High, a.Close = 110, 105
	b := histtest.Flat("ETHUSD", "uniswap", day0, 200, 3)
	b.Low, b.VenueKind = 190, "onchain_dex"
	c := histtest.Flat("ETHUSD", "coinbase", day0.Add(time.Minute), 120, 2)
	c.BuyVolumeUSD, c.SellVolumeUSD = 180, 60
	w.Candles("1m", false, []datasets.Candle{a, b, c})
	// A staged part for a (date, venue) that has a day file is ignored.
	w.Candles("1m", true, []datasets.Candle{histtest.Flat("ETHUSD", "coinbase", day0.Add(2*time.Minute), 999, 1)})
	// A staged part for a pair without a day file is read.
	w.Candles("1m", true, []datasets.Candle{histtest.Flat("ETHUSD", "kraken", day0.Add(3*time.Minute), 130, 1)})
	s := open(t, root)

	res, err := s.Candles(t.Context(), history.CandleQuery{Symbols: []string{"ETHUSD"}, Interval: "1m", From: day0, To: day0.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candles) != 3 {
		t.Fatalf("got %d candles, want 3: %+v", len(res.Candles), res.Candles)
	}
	x := res.Candles[0]
	// open and close: the leading venue's (uniswap, 600 USD against 100);
	// high max; low min; volume sum.
	if x.Open != 200 || x.High != 200 || x.Low != 100 || x.Volume != 4 || x.VolumeUSD != 700 {
		t.Errorf("cross-venue candle %+v", x)
	}
	if x.Close != 200 || !near(x.VWAP, (100*1+200*3)/4.0) || x.TradeCount != 4 {
		t.Errorf("cross-venue close/vwap/count %+v", x)
	}
	if !near(res.Candles[1].BuyPressure, 75) || res.Candles[2].Close != 130 {
		t.Errorf("second/third candle %+v %+v", res.Candles[1], res.Candles[2])
	}

	r5, err := s.Candles(t.Context(), history.CandleQuery{Symbols: []string{"ETHUSD"}, Interval: "5m", From: day0, To: day0.Add(24 * time.Hour), PerVenue: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r5.Candles) != 3 { // coinbase, kraken, uniswap
		t.Fatalf("5m per venue: %+v", r5.Candles)
	}
	cb := r5.Candles[0]
	if cb.Venue != "coinbase" || cb.Open != 100 || cb.Close != 120 || cb.High != 120 || cb.Volume != 3 || cb.WidthSeconds != 300 {
		t.Errorf("5m coinbase %+v", cb)
	}
	if !near(cb.VWAP, (100*1+120*2)/3.0) {
		t.Errorf("5m vwap %v", cb.VWAP)
	}

	if _, err := s.Candles(t.Context(), history.CandleQuery{Symbols: []string{"NOPE"}, Interval: "1m", From: day0, To: day0.Add(time.Hour)}); !errors.Is(err, history.ErrNoData) {
		t.Errorf("unknown symbol: %v", err)
	}
	last, err := s.LatestCandles(t.Context(), "ETHUSD", "1m", 2)
	if err != nil || len(last.Candles) != 2 || !last.Candles[1].Time.Equal(day0.Add(3*time.Minute)) {
		t.Errorf("latest: %v %+v", err, last.Candles)
	}
}

func TestCoarserStoredResolutionIsAnswered(t *testing.T) {
	root := t.TempDir()
	w := histtest.New(t, root)
	old := day0.Add(-20 * 24 * time.Hour)
	c := histtest.Flat("BTCUSD", "coinbase", old, 50, 1)
	w.Candles("5m", false, []datasets.Candle{c})
	s := open(t, root)
	res, err := s.Candles(t.Context(), history.CandleQuery{Symbols: []string{"BTCUSD"}, Interval: "1m", From: old, To: old.Add(24 * time.Hour), PerVenue: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resolutions) != 1 || res.Resolutions[0] != "5m" || res.Candles[0].WidthSeconds != 300 {
		t.Errorf("got %v %+v", res.Resolutions, res.Candles)
	}
}

func TestMemoryLimitIsApplied(t *testing.T) {
	s, err := history.Open(history.Config{DataDir: t.TempDir(), MemoryLimit: "64MB"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	v, err := s.MemoryLimit(t.Context())
	if err != nil || v != "61.0 MiB" {
		t.Errorf("memory_limit %q %v", v, err)
	}
	// A query that needs far more than the limit fails instead of growing.
	_, err = s.DB().ExecContext(t.Context(), "CREATE TABLE big AS SELECT range AS x, repeat('x', 100) AS y FROM range(3000000)")
	if err == nil || !strings.Contains(err.Error(), "Out of Memory") {
		t.Errorf("a 300 MB table in a 64MB memory limit: %v", err)
	}
}
