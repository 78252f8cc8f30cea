package sim

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/schemas"
)

var testStart = time.Date(2024, 8, 8, 0, 0, 0, 0, time.UTC)

// mustNew returns a simulator for cfg, closed when the test ends.
func mustNew(tb testing.TB, cfg Config) *Source {
	tb.Helper()
	s, err := New(cfg)
	if err != nil {
		tb.Fatalf("cannot create simulator: %v", err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// each calls fn for every trade of s until io.EOF or until fn returns false.
func each(tb testing.TB, s *Source, fn func(t *schemas.Trade) bool) {
	tb.Helper()
	ctx := context.Background()
	for {
		r, err := s.Next(ctx)
		if err == io.EOF {
			return
		}
		if err != nil {
			tb.Fatalf("cannot get next trade: %v", err)
		}
		if r.Trade == nil {
			tb.Fatalf("record without trade: %+v", r)
		}
		if !fn(r.Trade) {
			return
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	f := func(cfg Config, want string) {
		t.Helper()
		s, err := New(cfg)
		if err == nil {
			s.Close()
			t.Fatalf("New(%+v) succeeded; want error containing %q", cfg, want)
		}
		if !errors.Is(err, ErrBadConfig) {
			t.Fatalf("New error %v does not wrap ErrBadConfig", err)
		}
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("New error %q does not contain %q", err, want)
		}
	}
	f(Config{}, "Start is required")
	f(Config{Start: time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)}, "outside 2009-01-03..2100-01-01")
	f(Config{Start: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)}, "outside")
	f(Config{Start: testStart, End: testStart}, "is not after Start")
	f(Config{Start: testStart, End: testStart.Add(-time.Second)}, "is not after Start")
	f(Config{Start: testStart, RateScale: -1}, "RateScale -1 is outside")
	f(Config{Start: testStart, RateScale: 1e-4}, "RateScale")
	f(Config{Start: testStart, RateScale: 1e5}, "RateScale")
	f(Config{Start: testStart, RateScale: math.NaN()}, "RateScale NaN")
	f(Config{Start: testStart, RateScale: math.Inf(1)}, "RateScale")
	f(Config{Start: testStart, EventsPerSymbolPerDay: 25}, "EventsPerSymbolPerDay 25 is above 24")
	f(Config{Start: testStart, EventsPerSymbolPerDay: math.NaN()}, "EventsPerSymbolPerDay NaN")
	f(Config{Start: testStart, Symbols: []string{"BTCUSD", "FOOUSD"}}, `symbol "FOOUSD" is not simulated; the simulator trades BTCUSD, ETHUSD`)
	f(Config{Start: testStart, Symbols: []string{"BTCUSD", "ETHUSD", "BTCUSD"}}, `symbol "BTCUSD" listed twice`)
	f(Config{Start: testStart, Symbols: []string{"BTCUSD", "btc"}}, `symbol "btc" listed twice (as BTCUSD)`)
	f(Config{Start: testStart, Symbols: []string{""}}, `symbol "" is not simulated`)
	f(Config{Start: testStart, Symbols: []string{"BNBUSD"}}, `(mi symbols lists every covered symbol)`) // covered, not simulated
}

func TestNewCannotCreateGroundTruth(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "gt.ndjson")
	_, err := New(Config{Start: testStart, GroundTruthPath: path})
	if err == nil || !strings.Contains(err.Error(), "cannot create ground truth file") {
		t.Fatalf("New with ground truth in a missing directory: got %v", err)
	}
}

func TestDefaultSymbols(t *testing.T) {
	syms := DefaultSymbols()
	if len(syms) != 56 {
		t.Fatalf("DefaultSymbols has %d symbols; want 56", len(syms))
	}
	for _, want := range []string{"BTCUSD", "ETHUSD", "SOLUSD", "TSLA", "NVDA", "AAPL", "HOOD", "IMXUSD"} {
		if !slices.Contains(syms, want) {
			t.Fatalf("DefaultSymbols lacks %s", want)
		}
	}
	if len(slices.Compact(slices.Sorted(slices.Values(syms)))) != len(syms) {
		t.Fatalf("DefaultSymbols has duplicates")
	}
	// One identity: every simulated symbol is a covered asset's canonical
	// symbol, and any spelling of it selects it.
	for _, sym := range syms {
		if a, err := symbols.Resolve(sym); err != nil || a.Symbol != sym {
			t.Errorf("simulated symbol %s is not canonical and covered: %+v, %v", sym, a, err)
		}
	}
	s, err := New(Config{Start: testStart, Symbols: []string{"TSLAUSD", "rndrusd"}, End: testStart.Add(time.Minute)})
	if err != nil {
		t.Fatalf("New with aliases: %v", err)
	}
	seen := map[string]bool{}
	for {
		r, err := s.Next(context.Background())
		if err != nil {
			break
		}
		if r.Trade != nil {
			seen[r.Trade.Symbol] = true
		}
	}
	if len(seen) != 2 || !seen["TSLA"] || !seen["RENDERUSD"] {
		t.Fatalf("trades of %v, want TSLA and RENDERUSD", seen)
	}
	syms[0] = "changed"
	if DefaultSymbols()[0] != "BTCUSD" {
		t.Fatalf("DefaultSymbols returns shared storage")
	}
	// Every symbol's parameters are sane.
	for _, sp := range universe {
		if !(sp.price > 0 && sp.rate > 0 && sp.vol > 0 && sp.beta > 0 && sp.notional > 0) || sp.venues == 0 {
			t.Fatalf("bad parameters for %s: %+v", sp.symbol, sp)
		}
		if sp.class == classEquity && sp.venues != onDEX {
			t.Fatalf("equity %s must trade on the two DEX kinds only", sp.symbol)
		}
	}
}

func TestName(t *testing.T) {
	f := func(seed int64, want string) {
		t.Helper()
		s := mustNew(t, Config{Seed: seed, Start: testStart, Symbols: []string{"BTCUSD"}})
		if got := s.Name(); got != want {
			t.Fatalf("Name() = %q; want %q", got, want)
		}
	}
	f(0, "sim:seed=1")
	f(1, "sim:seed=1")
	f(42, "sim:seed=42")
	f(-7, "sim:seed=-7")
}

// TestTradesAreValid checks every field of half an hour of trades over the
// default universe, the event-time order and the uniqueness of trade ids.
func TestTradesAreValid(t *testing.T) {
	t.Parallel()
	s := mustNew(t, Config{Seed: 3, Start: testStart, End: testStart.Add(30 * time.Minute)})
	var (
		last    int64
		n       int
		keys    = map[string]bool{}
		key     []byte
		perKind = map[schemas.VenueKind]int{}
		symbols = map[string]bool{}
		unknown = map[schemas.VenueKind]int{}
	)
	each(t, s, func(tr *schemas.Trade) bool {
		n++
		if err := schemas.Validate(tr); err != nil {
			t.Fatalf("trade %d is invalid: %v: %v", n, err, tr)
		}
		if tr.EventTimeNs < last {
			t.Fatalf("trade %d at %d is before the previous one at %d", n, tr.EventTimeNs, last)
		}
		last = tr.EventTimeNs
		if tr.EventTimeNs < testStart.UnixNano() || tr.EventTimeNs >= testStart.Add(30*time.Minute).UnixNano() {
			t.Fatalf("trade %d at %d is outside [Start, End)", n, tr.EventTimeNs)
		}
		if tr.IngestTimeNs != tr.EventTimeNs || tr.Source != "sim:seed=3" || tr.Market == "" || tr.VenueSymbol == "" {
			t.Fatalf("trade %d lacks fields: %v", n, tr)
		}
		if math.Abs(tr.NotionalUsd-tr.Price*tr.Size) > 1e-9*tr.NotionalUsd {
			t.Fatalf("trade %d: notional %v != price*size %v", n, tr.NotionalUsd, tr.Price*tr.Size)
		}
		switch tr.VenueKind {
		case schemas.VenueKind_VENUE_KIND_CEX:
			if tr.Venue != "sim_cex" || tr.Chain != "" || tr.Wallet != "" || tr.LogIndex != 0 || tr.Side == schemas.Side_SIDE_UNKNOWN ||
				!strings.Contains(tr.VenueSymbol, "-USD") || tr.Market != tr.VenueSymbol {
				t.Fatalf("bad CEX trade: %v", tr)
			}
		case schemas.VenueKind_VENUE_KIND_ONCHAIN_DEX:
			if tr.Venue != "sim_uniswap" || tr.Chain != "base" || len(tr.Wallet) != 42 || len(tr.TradeId) != 66 ||
				!strings.HasPrefix(tr.TradeId, "0x") || len(tr.Market) != 42 || !strings.HasSuffix(tr.VenueSymbol, "/USDC") {
				t.Fatalf("bad on-chain DEX trade: %v", tr)
			}
		case schemas.VenueKind_VENUE_KIND_SOLANA_DEX:
			if tr.Venue != "sim_raydium" || tr.Chain != "solana" || len(tr.Wallet) < 32 || len(tr.TradeId) != 64 ||
				tr.LogIndex != 0 || len(tr.Market) < 32 || !strings.HasSuffix(tr.VenueSymbol, "/USDC") {
				t.Fatalf("bad Solana DEX trade: %v", tr)
			}
		}
		if tr.Side == schemas.Side_SIDE_UNKNOWN {
			unknown[tr.VenueKind]++
		}
		perKind[tr.VenueKind]++
		symbols[tr.Symbol] = true
		key = schemas.DedupeKey(key[:0], tr)
		if keys[string(key)] {
			t.Fatalf("trade %d repeats the dedupe key %q", n, key)
		}
		keys[string(key)] = true
		return true
	})
	if rate := float64(n) / 1800; rate < 200 || rate > 400 {
		t.Fatalf("default universe makes %.0f trades/s; want 200..400", rate)
	}
	if len(symbols) != 56 {
		t.Fatalf("%d symbols traded; want 56", len(symbols))
	}
	for _, k := range []schemas.VenueKind{schemas.VenueKind_VENUE_KIND_CEX, schemas.VenueKind_VENUE_KIND_ONCHAIN_DEX, schemas.VenueKind_VENUE_KIND_SOLANA_DEX} {
		if perKind[k] < n/10 {
			t.Fatalf("only %d of %d trades on %s", perKind[k], n, k)
		}
	}
	for _, k := range []schemas.VenueKind{schemas.VenueKind_VENUE_KIND_ONCHAIN_DEX, schemas.VenueKind_VENUE_KIND_SOLANA_DEX} {
		if share := float64(unknown[k]) / float64(perKind[k]); share < 0.01 || share > 0.02 {
			t.Fatalf("UNKNOWN side share on %s is %.4f; want 0.01..0.02", k, share)
		}
	}
}

// marshalRun returns the first n trades of cfg marshalled, and the ground
// truth file.
func marshalRun(t *testing.T, cfg Config, n int) ([][]byte, []byte, []Event) {
	t.Helper()
	cfg.GroundTruthPath = filepath.Join(t.TempDir(), "gt.ndjson")
	s := mustNew(t, cfg)
	var out [][]byte
	each(t, s, func(tr *schemas.Trade) bool {
		b, err := proto.Marshal(tr)
		if err != nil {
			t.Fatalf("cannot marshal trade: %v", err)
		}
		out = append(out, b)
		return len(out) < n
	})
	if err := s.Close(); err != nil {
		t.Fatalf("cannot close: %v", err)
	}
	gt, err := os.ReadFile(cfg.GroundTruthPath)
	if err != nil {
		t.Fatalf("cannot read ground truth: %v", err)
	}
	return out, gt, s.Events()
}

func TestDeterminism(t *testing.T) {
	t.Parallel()
	cfg := Config{Seed: 7, Start: testStart, End: testStart.Add(3 * time.Hour), EventsPerSymbolPerDay: 20, RateScale: 0.3}
	a, gtA, evA := marshalRun(t, cfg, 1<<30)
	b, gtB, evB := marshalRun(t, cfg, 1<<30)
	if len(a) < 100000 {
		t.Fatalf("only %d trades", len(a))
	}
	if len(a) != len(b) {
		t.Fatalf("runs differ in length: %d vs %d", len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("trade %d differs between runs", i)
		}
	}
	if len(evA) < 50 || !bytes.Equal(gtA, gtB) {
		t.Fatalf("ground truth differs between runs or is short (%d events)", len(evA))
	}
	parsed, err := ReadGroundTruth(bytes.NewReader(gtA))
	if err != nil {
		t.Fatalf("cannot read own ground truth: %v", err)
	}
	if len(parsed) != len(evB) {
		t.Fatalf("ground truth file has %d events, Events() %d", len(parsed), len(evB))
	}
	for i := range parsed {
		e, g := evB[i], parsed[i]
		if e.Symbol != g.Symbol || e.Type != g.Type || !e.Start.Equal(g.Start) || !e.End.Equal(g.End) || len(e.Params) != len(g.Params) {
			t.Fatalf("event %d: file %+v, Events() %+v", i, g, e)
		}
		for k, v := range e.Params {
			if g.Params[k] != v {
				t.Fatalf("event %d param %s: file %v, Events() %v", i, k, g.Params[k], v)
			}
		}
	}

	// A different seed or start gives different trades and events.
	differs := func(cfg Config) {
		t.Helper()
		c, gtC, _ := marshalRun(t, cfg, 1000)
		same := 0
		for i := range c {
			if bytes.Equal(c[i], a[i]) {
				same++
			}
		}
		if same > 0 || bytes.Equal(gtC, gtA[:min(len(gtA), len(gtC))]) {
			t.Fatalf("config %+v repeats %d trades or the ground truth of seed 7", cfg, same)
		}
	}
	differs(Config{Seed: 8, Start: testStart, End: cfg.End, EventsPerSymbolPerDay: 20, RateScale: 0.3})
	differs(Config{Seed: 7, Start: testStart.Add(24 * time.Hour), EventsPerSymbolPerDay: 20, RateScale: 0.3})
}

// TestSymbolIndependence checks that a symbol's trades do not depend on
// which other symbols are simulated, apart from trade ids.
func TestSymbolIndependence(t *testing.T) {
	t.Parallel()
	type tick struct {
		ns          int64
		price, size float64
		side        schemas.Side
		venue       string
	}
	run := func(symbols []string) []tick {
		s := mustNew(t, Config{Seed: 5, Start: testStart, End: testStart.Add(20 * time.Minute), Symbols: symbols})
		var out []tick
		each(t, s, func(tr *schemas.Trade) bool {
			if tr.Symbol == "SOLUSD" {
				out = append(out, tick{tr.EventTimeNs, tr.Price, tr.Size, tr.Side, tr.Venue})
			}
			return true
		})
		return out
	}
	alone := run([]string{"SOLUSD"})
	withOthers := run(nil)
	if len(alone) < 10000 || !slices.Equal(alone, withOthers) {
		t.Fatalf("SOLUSD alone (%d trades) differs from SOLUSD in the default universe (%d trades)", len(alone), len(withOthers))
	}
}

func TestEndCloseAndContext(t *testing.T) {
	s := mustNew(t, Config{Start: testStart, End: testStart.Add(time.Second), Symbols: []string{"BTCUSD", "ETHUSD"}})
	n := 0
	each(t, s, func(*schemas.Trade) bool { n++; return true })
	if n < 20 || n > 300 {
		t.Fatalf("%d trades in one second of BTCUSD and ETHUSD; want about 70", n)
	}
	for range 3 {
		if _, err := s.Next(context.Background()); err != io.EOF {
			t.Fatalf("Next after the end: %v; want io.EOF", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := s.Next(context.Background()); !errors.Is(err, ErrClosed) {
		t.Fatalf("Next after Close: %v; want ErrClosed", err)
	}

	s = mustNew(t, Config{Start: testStart})
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := s.Next(ctx); err != nil {
		t.Fatalf("Next: %v", err)
	}
	cancel()
	if _, err := s.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Next with a canceled context: %v; want context.Canceled", err)
	}
}

// TestRateScale checks that RateScale scales the trade rate and leaves the
// event schedule alone.
func TestRateScale(t *testing.T) {
	t.Parallel()
	count := func(scale float64) (int, []Event) {
		s := mustNew(t, Config{Seed: 2, Start: testStart, End: testStart.Add(2 * time.Hour), RateScale: scale, EventsPerSymbolPerDay: 24, Symbols: []string{"ETHUSD", "TSLA"}})
		n := 0
		each(t, s, func(*schemas.Trade) bool { n++; return true })
		return n, s.Events()
	}
	n1, ev1 := count(1)
	n4, ev4 := count(4)
	if ratio := float64(n4) / float64(n1); ratio < 3.5 || ratio > 4.5 {
		t.Fatalf("RateScale 4 gives %.2f times the trades of RateScale 1; want about 4", ratio)
	}
	if len(ev1) == 0 || len(ev1) != len(ev4) {
		t.Fatalf("event schedules differ: %d vs %d events", len(ev1), len(ev4))
	}
	for i := range ev1 {
		if ev1[i].Symbol != ev4[i].Symbol || !ev1[i].Start.Equal(ev4[i].Start) || ev1[i].Type != ev4[i].Type {
			t.Fatalf("event %d differs: %+v vs %+v", i, ev1[i], ev4[i])
		}
	}
}
