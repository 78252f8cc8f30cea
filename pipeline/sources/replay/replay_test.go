package replay

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

type result struct {
	name    string
	trades  []*schemas.Trade
	rejects []sources.Record
	events  []sources.Record // side records (mi.pool-events.v1)
	gaps    []sources.Record // gap records (Kraken REST pages)
	skipped uint64
}

func readAll(tb testing.TB, path string) result {
	tb.Helper()
	s, err := Open(path)
	if err != nil {
		tb.Fatalf("Open(%s): %v", path, err)
	}
	defer s.Close()
	return drain(tb, s)
}

func drain(tb testing.TB, s sources.Source) result {
	tb.Helper()
	r := result{name: s.Name()}
	for {
		rec, err := s.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			tb.Fatalf("Next: %v", err)
		}
		if rec.Trade != nil {
			if err := schemas.Validate(rec.Trade); err != nil {
				tb.Fatalf("invalid trade yielded: %v", err)
			}
			r.trades = append(r.trades, rec.Trade)
		} else if rec.Side != nil {
			r.events = append(r.events, rec)
		} else if rec.Gap != nil {
			r.gaps = append(r.gaps, rec)
		} else {
			if rec.Reason == "" || len(rec.Raw) == 0 {
				tb.Fatalf("rejected record without reason or raw: %+v", rec)
			}
			r.rejects = append(r.rejects, rec)
		}
	}
	r.skipped = s.(Skipper).Skipped()
	return r
}

func sides(ts []*schemas.Trade) (buy, sell, unknown int) {
	for _, t := range ts {
		switch t.Side {
		case schemas.Side_SIDE_BUY:
			buy++
		case schemas.Side_SIDE_SELL:
			sell++
		default:
			unknown++
		}
	}
	return
}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b)) }

func checkTrade(t *testing.T, got, want *schemas.Trade) {
	t.Helper()
	g, w := proto.Clone(got).(*schemas.Trade), proto.Clone(want).(*schemas.Trade)
	if !near(g.Size, w.Size, 1e-12) || !near(g.NotionalUsd, w.NotionalUsd, 1e-12) || !near(g.Price, w.Price, 1e-12) {
		t.Fatalf("numbers differ:\n got %v\nwant %v", g, w)
	}
	g.Size, g.NotionalUsd, g.Price = 0, 0, 0
	w.Size, w.NotionalUsd, w.Price = 0, 0, 0
	if !proto.Equal(g, w) {
		t.Fatalf("trade differs:\n got %v\nwant %v", got, want)
	}
}

func TestBinance(t *testing.T) {
	f := func(rel, source, venue string, trades int) result {
		t.Helper()
		r := readAll(t, fixtures.Path(t, "trades/"+rel))
		if len(r.trades) != trades || len(r.rejects) != 0 {
			t.Fatalf("%s: %d trades, %d rejects; want %d, 0", rel, len(r.trades), len(r.rejects), trades)
		}
		if r.name != source || r.skipped == 0 {
			t.Fatalf("%s: name %q skipped %d", rel, r.name, r.skipped)
		}
		for _, tr := range r.trades {
			if tr.Venue != venue || tr.Source != source || tr.IngestTimeNs < tr.EventTimeNs-5e9 {
				t.Fatalf("%s: bad trade %v", rel, tr)
			}
		}
		return r
	}
	r := f("binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz", "replay:binance_spot_BTCUSDT_ws_raw_2024-08-08", "binance", 9757)
	checkTrade(t, r.trades[0], &schemas.Trade{
		Venue: "binance", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Market: "BTCUSDT", Symbol: "BTCUSD", VenueSymbol: "BTCUSDT",
		EventTimeNs: 1723161255342000000, IngestTimeNs: 1723161254087896568, Price: 61837.63, Size: 0.02, NotionalUsd: 61837.63 * 0.02,
		Side: schemas.Side_SIDE_SELL, TradeId: "3735683259", Source: "replay:binance_spot_BTCUSDT_ws_raw_2024-08-08",
	})
	f("binance_spot_BTCUSDT_ws_raw_2024-08-09.txt.gz", "replay:binance_spot_BTCUSDT_ws_raw_2024-08-09", "binance", 10147)
	f("binance_spot_ETHUSDT_ws_raw_2024-08-08.txt.gz", "replay:binance_spot_ETHUSDT_ws_raw_2024-08-08", "binance", 6106)
	f("binance_spot_ETHUSDT_ws_raw_2024-08-09.txt.gz", "replay:binance_spot_ETHUSDT_ws_raw_2024-08-09", "binance", 8409)
	f("binance_usdm_BTCUSDT_ws_raw_2024-08-08.txt.gz", "replay:binance_usdm_BTCUSDT_ws_raw_2024-08-08", "binance_usdm", 21313)
	f("binance_usdm_ETHUSDT_ws_raw_2024-08-08.txt.gz", "replay:binance_usdm_ETHUSDT_ws_raw_2024-08-08", "binance_usdm", 14076)
	// The 2023 capture stamps local receive time in µs.
	r = f("binance_usdm_BTCUSDT_ws_raw_with_markPrice_2023-04-05.txt.gz", "replay:binance_usdm_BTCUSDT_ws_raw_with_markPrice_2023-04-05", "binance_usdm", 10738)
	checkTrade(t, r.trades[1], &schemas.Trade{
		Venue: "binance_usdm", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Market: "BTCUSDT", Symbol: "BTCUSD", VenueSymbol: "BTCUSDT",
		EventTimeNs: 1680652804964000000, IngestTimeNs: 1680652806997675000, Price: 28155.2, Size: 0.012, NotionalUsd: 28155.2 * 0.012,
		Side: schemas.Side_SIDE_BUY, TradeId: "3535188230", Source: "replay:binance_usdm_BTCUSDT_ws_raw_with_markPrice_2023-04-05",
	})
	// COIN-M: 4 contracts of 100 USD.
	r = f("binance_coinm_BTCUSD_PERP_ws_raw_2024-08-09.txt.gz", "replay:binance_coinm_BTCUSD_PERP_ws_raw_2024-08-09", "binance_coinm", 2949)
	checkTrade(t, r.trades[0], &schemas.Trade{
		Venue: "binance_coinm", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Market: "BTCUSD_PERP", Symbol: "BTCUSD", VenueSymbol: "BTCUSD_PERP",
		EventTimeNs: 1723161601913000000, IngestTimeNs: 1723161600650152286, Price: 61668.7, Size: 400 / 61668.7, NotionalUsd: 400,
		Side: schemas.Side_SIDE_BUY, TradeId: "849716688", Source: "replay:binance_coinm_BTCUSD_PERP_ws_raw_2024-08-09",
	})
	if r.trades[1].Side != schemas.Side_SIDE_SELL || r.trades[1].NotionalUsd != 2200 {
		t.Fatalf("second COIN-M trade (m=true, 22 contracts): %v", r.trades[1])
	}
}

func TestCoinbase(t *testing.T) {
	r := readAll(t, fixtures.Path(t, "trades/cryptofeed_coinbase_advtrade_BTC-USD_ETH-USD_ws_capture.jsonl.gz"))
	if len(r.trades) != 279 || len(r.rejects) != 0 {
		t.Fatalf("advtrade: %d trades (want 200 snapshot + 79 updates), %d rejects", len(r.trades), len(r.rejects))
	}
	// side "SELL" is the maker's: the aggressor bought.
	checkTrade(t, r.trades[0], &schemas.Trade{
		Venue: "coinbase", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Market: "BTC-USD", Symbol: "BTCUSD", VenueSymbol: "BTC-USD",
		EventTimeNs: 1786309542514318000, IngestTimeNs: 1786309548629007800, Price: 65083.67, Size: 0.002186, NotionalUsd: 65083.67 * 0.002186,
		Side: schemas.Side_SIDE_BUY, TradeId: "1068572090", Source: "replay:cryptofeed_coinbase_advtrade_BTC-USD_ETH-USD_ws_capture",
	})
	syms := map[string]int{}
	for _, tr := range r.trades {
		syms[tr.Symbol]++
	}
	if len(syms) != 2 || syms["BTCUSD"] == 0 || syms["ETHUSD"] == 0 {
		t.Fatalf("symbols %v", syms)
	}

	r = readAll(t, fixtures.Path(t, "trades/cryptofeed_coinbase_legacy_ws_match_ticker_2021-04-17.jsonl"))
	// 97 match + 10 last_match; only the USD-quoted SKL-USD ones normalize.
	if len(r.trades)+len(r.rejects) != 107 || len(r.trades) != 53 {
		t.Fatalf("legacy: %d trades, %d rejects", len(r.trades), len(r.rejects))
	}
	for _, rec := range r.rejects {
		if !strings.HasPrefix(rec.Reason, "unknown symbol: ") || strings.Contains(rec.Reason, "-USD") {
			t.Fatalf("legacy reject reason %q", rec.Reason)
		}
	}
	tr := r.trades[0]
	if tr.Symbol != "SKLUSD" || tr.IngestTimeNs != tr.EventTimeNs || tr.Side != schemas.Side_SIDE_BUY || tr.TradeId != "1568267" {
		t.Fatalf("legacy first trade %v", tr)
	}
}

func TestBybit(t *testing.T) {
	r := readAll(t, fixtures.Path(t, "trades/cryptofeed_bybit_linear_BTC_ETH_SOL_DOGE_ws_capture.jsonl.gz"))
	if len(r.trades) != 347 || len(r.rejects) != 0 {
		t.Fatalf("%d trades, %d rejects", len(r.trades), len(r.rejects))
	}
	venues := map[string]int{}
	for _, tr := range r.trades {
		venues[tr.Venue]++
		// Linear trade ids are UUIDs, spot ids are numbers: a check that the
		// connection URL was mapped to the right market type.
		uuid := strings.Count(tr.TradeId, "-") == 4
		if uuid != (tr.Venue == "bybit_linear") {
			t.Fatalf("trade %v on the wrong market type", tr)
		}
	}
	if venues["bybit_linear"] == 0 || venues["bybit"] == 0 || len(venues) != 2 {
		t.Fatalf("venues %v", venues)
	}
	checkTrade(t, r.trades[0], &schemas.Trade{
		Venue: "bybit_linear", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Market: "BTCUSDT", Symbol: "BTCUSD", VenueSymbol: "BTCUSDT",
		EventTimeNs: 1786310819680000000, IngestTimeNs: 1786310819965676000, Price: 65114.2, Size: 0.004, NotionalUsd: 65114.2 * 0.004,
		Side: schemas.Side_SIDE_SELL, TradeId: "a9188a0a-82bc-50de-be60-03eedbe3cdd7", Source: "replay:cryptofeed_bybit_linear_BTC_ETH_SOL_DOGE_ws_capture",
	})
}

func TestHyperliquid(t *testing.T) {
	r := readAll(t, fixtures.Path(t, "trades/hyperliquid_BTC_ws_raw_2025-01-26.txt.gz"))
	if len(r.trades) != 64 || len(r.rejects) != 0 || r.skipped != 46 {
		t.Fatalf("%d trades, %d rejects, %d skipped", len(r.trades), len(r.rejects), r.skipped)
	}
	checkTrade(t, r.trades[0], &schemas.Trade{
		Venue: "hyperliquid", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Market: "BTC", Symbol: "BTCUSD", VenueSymbol: "BTC",
		EventTimeNs: 1737918794873000000, IngestTimeNs: 1737918844167767000, Price: 105056, Size: 0.00219, NotionalUsd: 105056 * 0.00219,
		Side: schemas.Side_SIDE_BUY, TradeId: "121451470284048", Wallet: "0xe9ed7e16612d676df804f5aecd16e1f9bf9ec9dd",
		Source: "replay:hyperliquid_BTC_ws_raw_2025-01-26",
	})
	if tr := r.trades[2]; tr.Side != schemas.Side_SIDE_SELL || tr.TradeId != "85392298469503" || !strings.HasPrefix(tr.Wallet, "0x") || tr.Wallet == "0x6f90d048a51162" {
		t.Fatalf("third trade (side A) %v", tr)
	}
}

func TestTardis(t *testing.T) {
	r := readAll(t, fixtures.Path(t, "trades/tardis_binance-futures_BTCUSDT_trades_2020-02-22.csv"))
	buy, sell, unknown := sides(r.trades)
	if len(r.trades) != 9999 || buy != 5267 || sell != 4732 || unknown != 0 || len(r.rejects) != 0 {
		t.Fatalf("%d trades (%d buy, %d sell, %d unknown), %d rejects", len(r.trades), buy, sell, unknown, len(r.rejects))
	}
	checkTrade(t, r.trades[0], &schemas.Trade{
		Venue: "binance_usdm", VenueKind: schemas.VenueKind_VENUE_KIND_CEX, Market: "BTCUSDT", Symbol: "BTCUSD", VenueSymbol: "BTCUSDT",
		EventTimeNs: 1582329602111000000, IngestTimeNs: 1582329602418379000, Price: 9682, Size: 0.132, NotionalUsd: 9682 * 0.132,
		Side: schemas.Side_SIDE_BUY, TradeId: "42377944", Source: "replay:tardis_binance-futures_BTCUSDT_trades_2020-02-22",
	})
	for i := 1; i < len(r.trades); i++ {
		if r.trades[i].EventTimeNs < r.trades[i-1].EventTimeNs {
			t.Fatalf("trade %d out of time order", i)
		}
	}
	// BitMEX XBTUSD amounts are 1-USD contracts.
	r = readAll(t, fixtures.Path(t, "trades/tardis_bitmex_XBTUSD_trades_2020-03-01.csv"))
	if len(r.trades) != 10 {
		t.Fatalf("bitmex: %d trades", len(r.trades))
	}
	if tr := r.trades[0]; tr.Venue != "bitmex" || tr.Symbol != "BTCUSD" || tr.NotionalUsd != 2152 || !near(tr.Size, 2152/8531.5, 1e-12) || tr.Side != schemas.Side_SIDE_SELL {
		t.Fatalf("bitmex first trade %v", tr)
	}
}

func TestOpenUnknownFormat(t *testing.T) {
	f := func(rel string) {
		t.Helper()
		_, err := Open(fixtures.Path(t, rel))
		if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "tardis trades CSV") {
			t.Fatalf("Open(%s) = %v; want ErrUnknownFormat naming the formats", rel, err)
		}
	}
	f("trades/freqtrade_binance_ETHUSDT_trades_2023-02-02.csv")
	f("trades/freqtrade_binance_XRPETH_trades_2019-10-11.json.gz")
	f("defi/uniswapv3_ethereum_USDC-WETH-0.05pct_0x88e6_minute_2024-01-05.csv")
	if _, err := Open(filepath.Join(t.TempDir(), "missing.csv")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Open(missing) = %v", err)
	}
}

func TestDeterministic(t *testing.T) {
	f := func(rel string) {
		t.Helper()
		a := readAll(t, fixtures.Path(t, rel))
		b := readAll(t, fixtures.Path(t, rel))
		if len(a.trades) != len(b.trades) || len(a.trades) == 0 {
			t.Fatalf("%s: %d vs %d trades", rel, len(a.trades), len(b.trades))
		}
		for i := range a.trades {
			x, _ := proto.MarshalOptions{Deterministic: true}.Marshal(a.trades[i])
			y, _ := proto.MarshalOptions{Deterministic: true}.Marshal(b.trades[i])
			if string(x) != string(y) {
				t.Fatalf("%s: trade %d differs between replays", rel, i)
			}
		}
	}
	f("trades/hyperliquid_BTC_ws_raw_2025-01-26.txt.gz")
	f("trades/cryptofeed_coinbase_advtrade_BTC-USD_ETH-USD_ws_capture.jsonl.gz")
	f("defi/uniswapv3_ethereum_USDC-WETH-0.3pct_0x8ad5_raw_logs_2024-01-05.csv")
}

func TestOpenAllMerge(t *testing.T) {
	a := readAll(t, fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz"))
	b := readAll(t, fixtures.Path(t, "trades/binance_spot_ETHUSDT_ws_raw_2024-08-08.txt.gz"))
	s, err := OpenAll([]string{
		fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz"),
		fixtures.Path(t, "trades/binance_spot_ETHUSDT_ws_raw_2024-08-08.txt.gz"),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	m := drain(t, s)
	if m.name != "replay:binance_spot_BTCUSDT_ws_raw_2024-08-08,binance_spot_ETHUSDT_ws_raw_2024-08-08" {
		t.Fatalf("name %q", m.name)
	}
	if len(m.trades) != len(a.trades)+len(b.trades) || m.skipped != a.skipped+b.skipped {
		t.Fatalf("merged %d trades, %d skipped", len(m.trades), m.skipped)
	}
	// Each file is in time order, so the merge is too, and ties go to the
	// earlier path.
	for i := 1; i < len(m.trades); i++ {
		p, c := m.trades[i-1], m.trades[i]
		if c.EventTimeNs < p.EventTimeNs {
			t.Fatalf("merged trade %d out of time order", i)
		}
		if c.EventTimeNs == p.EventTimeNs && p.Symbol == "ETHUSD" && c.Symbol == "BTCUSD" {
			t.Fatalf("tie at %d not broken by path order", c.EventTimeNs)
		}
	}

	// Exact order on small files, with ties and a reject.
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const hdr = "time,venue,symbol,price,size,side,trade_id\n"
	p1 := write("one.csv", hdr+"3,binance,BTCUSDT,1,1,buy,a3\n5,binance,BTCUSDT,1,1,buy,a5\nx,binance,BTCUSDT,1,1,buy,bad\n7,binance,BTCUSDT,1,1,buy,a7\n")
	p2 := write("two.csv", hdr+"1,coinbase,BTC-USD,1,1,sell,b1\n5,coinbase,BTC-USD,1,1,sell,b5\n9,coinbase,BTC-USD,1,1,sell,b9\n")
	// Times here are tiny Unix ns, below the pipeline's minimum: shift them.
	for _, p := range []string{p1, p2} {
		body, _ := os.ReadFile(p)
		lines := strings.Split(string(body), "\n")
		for i, l := range lines[1:] {
			if l != "" && l[0] != 'x' {
				lines[i+1] = "170000000000000000" + l
			}
		}
		write(filepath.Base(p), strings.Join(lines, "\n"))
	}
	s, err = OpenAll([]string{p1, p2})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		rec, err := s.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec.Trade == nil {
			got = append(got, "reject")
			continue
		}
		got = append(got, rec.Trade.TradeId)
	}
	s.Close()
	if want := "b1 a3 a5 reject b5 a7 b9"; strings.Join(got, " ") != want {
		t.Fatalf("merge order %q, want %q", strings.Join(got, " "), want)
	}
	if _, err := OpenAll(nil); err == nil {
		t.Fatalf("OpenAll(nil) succeeded")
	}
	if _, err := OpenAll([]string{p1, filepath.Join(dir, "missing")}); err == nil {
		t.Fatalf("OpenAll with a missing file succeeded")
	}
}

func TestContextCanceled(t *testing.T) {
	s, err := Open(fixtures.Path(t, "trades/tardis_bitmex_XBTUSD_trades_2020-03-01.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next(canceled) = %v", err)
	}
}
