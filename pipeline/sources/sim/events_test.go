package sim

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

// schedule returns the events of a run over the default universe; the
// schedule does not depend on RateScale, so a slow rate makes it cheap.
func schedule(t *testing.T, cfg Config) []Event {
	t.Helper()
	cfg.RateScale = MinRateScale
	s := mustNew(t, cfg)
	each(t, s, func(*schemas.Trade) bool { return true })
	return s.Events()
}

func TestEventSchedule(t *testing.T) {
	end := testStart.Add(48 * time.Hour)
	events := schedule(t, Config{Seed: 11, Start: testStart, End: end})
	if n := len(events); n < 56*2*3*3/4 || n > 56*2*3*5/4 {
		t.Fatalf("%d events in 2 days of 56 symbols; want about %d", n, 56*2*3)
	}
	symOrder := map[string]int{}
	for i, s := range DefaultSymbols() {
		symOrder[s] = i
	}
	types := map[string]int{}
	last := map[string]Event{}
	for i, e := range events {
		if i > 0 {
			p := events[i-1]
			if e.Start.Before(p.Start) || e.Start.Equal(p.Start) && symOrder[e.Symbol] < symOrder[p.Symbol] {
				t.Fatalf("event %d (%s %s) is out of order after %s %s", i, e.Symbol, e.Start, p.Symbol, p.Start)
			}
		}
		if e.End.After(end) || e.Start.Sub(testStart)%time.Second != 0 || e.End.Sub(e.Start)%time.Second != 0 {
			t.Fatalf("event %d has bad bounds: %+v", i, e)
		}
		if p, ok := last[e.Symbol]; ok {
			if gap := e.Start.Sub(p.End); gap < QuietGap {
				t.Fatalf("events of %s are only %s apart: %+v then %+v", e.Symbol, gap, p, e)
			}
		} else if e.Start.Sub(testStart) < QuietGap {
			t.Fatalf("first event of %s starts %s after Start", e.Symbol, e.Start.Sub(testStart))
		}
		last[e.Symbol] = e
		types[e.Type]++

		dur := e.End.Sub(e.Start).Seconds()
		kind := slices.Index(EventTypes, e.Type)
		if kind < 0 {
			t.Fatalf("event %d has unknown type %q", i, e.Type)
		}
		sh := eventShapes[kind]
		in := func(name string, v, lo, hi float64) {
			t.Helper()
			if v < lo || v > hi {
				t.Fatalf("event %d (%s): %s = %v is outside %v..%v", i, e.Type, name, v, lo, hi)
			}
		}
		in("duration", dur, sh.minDur, sh.maxDur)
		in("rate_multiplier", e.Params["rate_multiplier"], sh.minRate, sh.maxRate)
		in("buy_prob", e.Params["buy_prob"], sh.minBuy, sh.maxBuy)
		wantParams := 2
		if e.Type != EventVolumeBurst {
			wantParams++
			in("return_pct", e.Params["return_pct"], sh.minRet, sh.maxRet)
		}
		if e.Type == EventDistribution {
			wantParams++
			in("sell_size_multiplier", e.Params["sell_size_multiplier"], sh.minSell, sh.maxSell)
		}
		if len(e.Params) != wantParams {
			t.Fatalf("event %d (%s) has params %v", i, e.Type, e.Params)
		}
	}
	for _, typ := range EventTypes {
		if share := float64(types[typ]) / float64(len(events)); share < 0.2 || share > 0.3 {
			t.Fatalf("%s is %.2f of the events; want about a quarter", typ, share)
		}
	}
	if !events[0].Contains(events[0].Start) || events[0].Contains(events[0].End) || events[0].Contains(events[0].Start.Add(-1)) {
		t.Fatalf("Contains does not treat the event as [Start, End)")
	}

	// A 6-hour run has several events of each type across the universe.
	six := schedule(t, Config{Start: testStart, End: testStart.Add(6 * time.Hour)})
	clear(types)
	for _, e := range six {
		types[e.Type]++
	}
	for _, typ := range EventTypes {
		if types[typ] < 3 {
			t.Fatalf("a 6-hour run has %d %s events; want several: %v", types[typ], typ, types)
		}
	}
}

func TestEventsScheduledLazily(t *testing.T) {
	// Without End, events are scheduled an hour at a time as the run goes.
	s := mustNew(t, Config{Seed: 4, Start: testStart, EventsPerSymbolPerDay: 24, Symbols: []string{"DOTUSD", "TSLA", "WIFUSD", "AAPL"}})
	before := len(s.Events())
	if s.horizon != chunkSeconds {
		t.Fatalf("horizon after New is %v; want %v", s.horizon, chunkSeconds)
	}
	each(t, s, func(tr *schemas.Trade) bool { return tr.EventTimeNs < testStart.Add(3*time.Hour).UnixNano() })
	after := s.Events()
	if len(after) <= before || s.horizon < 3*chunkSeconds {
		t.Fatalf("no events scheduled lazily: %d events before, %d after, horizon %v", before, len(after), s.horizon)
	}
	// Events returns copies.
	after[0].Params["buy_prob"] = -1
	if s.Events()[0].Params["buy_prob"] == -1 {
		t.Fatalf("Events shares its Params maps with the caller")
	}
}

func TestNoEvents(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gt.ndjson")
	if err := os.WriteFile(path, []byte("stale content\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := mustNew(t, Config{Start: testStart, End: testStart.Add(2 * time.Hour), EventsPerSymbolPerDay: -1, RateScale: MinRateScale, GroundTruthPath: path})
	each(t, s, func(*schemas.Trade) bool { return true })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 0 || len(s.Events()) != 0 {
		t.Fatalf("events injected although disabled: %q, %d events", b, len(s.Events()))
	}
}

func TestReadGroundTruth(t *testing.T) {
	ok := func(in string, want int) {
		t.Helper()
		got, err := ReadGroundTruth(strings.NewReader(in))
		if err != nil {
			t.Fatalf("ReadGroundTruth(%q): %v", in, err)
		}
		if len(got) != want {
			t.Fatalf("ReadGroundTruth(%q) gave %d events; want %d", in, len(got), want)
		}
	}
	line := `{"symbol":"BTCUSD","type":"breakout","start":"2024-08-08T01:00:00Z","end":"2024-08-08T01:10:00Z","params":{"buy_prob":0.75}}`
	ok("", 0)
	ok("\n\n", 0)
	ok(line, 1)
	ok(line+"\n\n"+line+"\n", 2)
	ok(`{"symbol":"X","type":"volume_burst","start":"2024-08-08T01:00:00.5+02:00","end":"2024-08-08T01:00:01+02:00"}`, 1)

	bad := func(in, want string) {
		t.Helper()
		_, err := ReadGroundTruth(strings.NewReader(in))
		if err == nil {
			t.Fatalf("ReadGroundTruth(%q) succeeded; want error containing %q", in, want)
		}
		if !errors.Is(err, ErrBadGroundTruth) || !strings.Contains(err.Error(), want) {
			t.Fatalf("ReadGroundTruth(%q) error %q; want ErrBadGroundTruth containing %q", in, err, want)
		}
	}
	bad("{", "line 1")
	bad("[]", "cannot unmarshal")
	bad(line+"\nnull x", "line 2")
	bad(`{"symbol":"BTCUSD","type":"pump","start":"2024-08-08T01:00:00Z","end":"2024-08-08T01:10:00Z"}`, `unknown type "pump"`)
	bad(`{"type":"breakout","start":"2024-08-08T01:00:00Z","end":"2024-08-08T01:10:00Z"}`, "missing symbol")
	bad(`{"symbol":"BTCUSD","type":"breakout","start":"yesterday","end":"2024-08-08T01:10:00Z"}`, "bad start")
	bad(`{"symbol":"BTCUSD","type":"breakout","start":"2024-08-08T01:00:00Z","end":""}`, "bad end")
	bad(`{"symbol":"BTCUSD","type":"breakout","start":"2024-08-08T01:00:00Z","end":"2024-08-08T01:00:00Z"}`, "is not after start")
	bad(`{"symbol":"BTCUSD","type":"breakout","start":"2024-08-08T01:00:00Z","end":"2024-08-08T01:10:00Z","extra":1}`, "unknown field")
	bad(`{"symbol":"BTCUSD","type":"breakout","start":"2024-08-08T01:00:00Z","end":"2024-08-08T01:10:00Z","params":{"x":"y"}}`, "cannot unmarshal")
	bad(line+` {}`, "trailing data")
	bad(strings.Replace(line, "01:", "02:", 2)+"\n"+line, "line 2: bad ground truth: event starts before the previous one")
}

// FuzzReadGroundTruth checks that ReadGroundTruth never panics, fails only
// with ErrBadGroundTruth or a read error, and that what it accepts writes
// back to a file it reads the same.
func FuzzReadGroundTruth(f *testing.F) {
	f.Add([]byte(`{"symbol":"BTCUSD","type":"breakout","start":"2024-08-08T01:00:00Z","end":"2024-08-08T01:10:00Z","params":{"buy_prob":0.75,"return_pct":3.1}}` + "\n"))
	f.Add([]byte(`{"symbol":"SOLUSD","type":"distribution","start":"2024-08-08T01:00:00.123456789Z","end":"2024-08-09T01:00:00Z","params":{}}`))
	f.Add([]byte("{}\n{}"))
	f.Add([]byte(`{"symbol":"A","type":"volume_burst","start":"2024-08-08T01:00:00Z","end":"2024-08-08T01:00:01Z","params":{"rate_multiplier":1e308}}`))
	f.Add([]byte("\n\n \t\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		events, err := ReadGroundTruth(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrBadGroundTruth) && !strings.Contains(err.Error(), "cannot read ground truth") {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		var out []byte
		for _, e := range events {
			if e.Symbol == "" || !e.End.After(e.Start) {
				t.Fatalf("accepted a bad event: %+v", e)
			}
			out = appendEventJSON(out, e)
		}
		again, err := ReadGroundTruth(bytes.NewReader(out))
		if err != nil {
			t.Fatalf("cannot read back %q: %v", out, err)
		}
		if len(again) != len(events) {
			t.Fatalf("read back %d events; want %d", len(again), len(events))
		}
		for i := range again {
			a, b := again[i], events[i]
			if a.Symbol != b.Symbol || a.Type != b.Type || !a.Start.Equal(b.Start) || !a.End.Equal(b.End) || len(a.Params) != len(b.Params) {
				t.Fatalf("event %d changed on the round trip: %+v vs %+v", i, a, b)
			}
		}
	})
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestGroundTruthWriteFailureStopsTheSource(t *testing.T) {
	s := mustNew(t, Config{Start: testStart, EventsPerSymbolPerDay: 24, Symbols: []string{"BTCUSD", "ETHUSD"}})
	s.gt = bufio.NewWriterSize(failingWriter{}, 16)
	s.cfg.GroundTruthPath = "gt.ndjson"
	var err error
	for n := 0; err == nil; n++ {
		if n > 10_000_000 {
			t.Fatalf("no error after %d trades", n)
		}
		_, err = s.Next(context.Background())
	}
	if !strings.Contains(err.Error(), `cannot write ground truth to "gt.ndjson": disk full`) {
		t.Fatalf("Next error: %v", err)
	}
	if _, again := s.Next(context.Background()); again != err {
		t.Fatalf("Next after a failure: %v; want the same error", again)
	}
	s.gt = nil // nothing to flush on Close
}
