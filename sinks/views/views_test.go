package views

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/marketintel/mi/schemas"
)

func doc(symbol, window string, ts int64, price float64) *schemas.IntelligenceDocument {
	return &schemas.IntelligenceDocument{
		Id:          fmt.Sprintf("%s|%s|%d", symbol, window, ts),
		Symbol:      symbol,
		Window:      window,
		TimestampNs: ts,
		Price:       price,
		Evidence:    []string{"e1"},
		Observations: &schemas.Observations{
			Quality: &schemas.Quality{Venues: []string{"binance"}},
		},
	}
}

// summary renders the state of v as one line per window: symbol@price.
func summary(v *Views) string {
	var b strings.Builder
	for _, w := range schemas.Windows {
		fmt.Fprintf(&b, "%s:", w)
		for _, d := range v.List(w) {
			fmt.Fprintf(&b, " %s@%g", d.Symbol, d.Price)
		}
		b.WriteString(";")
	}
	fmt.Fprintf(&b, " symbols=%v len=%d", v.Symbols(), v.Len())
	return b.String()
}

func TestViewsApply(t *testing.T) {
	f := func(docs []*schemas.IntelligenceDocument, want string) {
		t.Helper()
		v := New()
		for _, d := range docs {
			v.Apply(d)
		}
		if got := summary(v); got != want {
			t.Fatalf("unexpected state\ngot:  %s\nwant: %s", got, want)
		}
		// Applying everything again (a replay) changes nothing.
		for _, d := range docs {
			v.Apply(d)
		}
		if got := summary(v); got != want {
			t.Fatalf("replay changed the state\ngot:  %s\nwant: %s", got, want)
		}
	}

	f(nil, "1m:;5m:;15m:; symbols=[] len=0")
	f([]*schemas.IntelligenceDocument{nil, {Window: "5m"}, {Symbol: "BTCUSD"}},
		"1m:;5m:;15m:; symbols=[] len=0")
	f([]*schemas.IntelligenceDocument{doc("BTCUSD", "5m", 10, 1)},
		"1m:;5m: BTCUSD@1;15m:; symbols=[BTCUSD] len=1")
	// Newer replaces, older is ignored, equal replaces.
	f([]*schemas.IntelligenceDocument{doc("BTCUSD", "5m", 10, 1), doc("BTCUSD", "5m", 20, 2)},
		"1m:;5m: BTCUSD@2;15m:; symbols=[BTCUSD] len=1")
	f([]*schemas.IntelligenceDocument{doc("BTCUSD", "5m", 20, 2), doc("BTCUSD", "5m", 10, 1)},
		"1m:;5m: BTCUSD@2;15m:; symbols=[BTCUSD] len=1")
	f([]*schemas.IntelligenceDocument{doc("BTCUSD", "5m", 20, 2), doc("BTCUSD", "5m", 20, 3)},
		"1m:;5m: BTCUSD@3;15m:; symbols=[BTCUSD] len=1")
	// Lists are sorted by symbol whatever the arrival order; symbols are
	// distinct over windows.
	f([]*schemas.IntelligenceDocument{
		doc("SOLUSD", "5m", 1, 3), doc("BTCUSD", "5m", 1, 1), doc("ETHUSD", "5m", 1, 2),
		doc("ETHUSD", "1m", 1, 4), doc("AAPL", "15m", 1, 5), doc("ETHUSD", "15m", 1, 6),
	}, "1m: ETHUSD@4;5m: BTCUSD@1 ETHUSD@2 SOLUSD@3;15m: AAPL@5 ETHUSD@6; symbols=[AAPL BTCUSD ETHUSD SOLUSD] len=6")
}

func TestViewsGet(t *testing.T) {
	v := New()
	v.Apply(doc("BTCUSD", "5m", 10, 1))
	v.Apply(doc("BTCUSD", "1m", 10, 2))

	f := func(symbol, window string, wantOK bool, wantPrice float64) {
		t.Helper()
		d, ok := v.Get(symbol, window)
		if ok != wantOK {
			t.Fatalf("Get(%q, %q): ok=%v, want %v", symbol, window, ok, wantOK)
		}
		if !ok {
			if d != nil {
				t.Fatalf("Get(%q, %q) returned a document with ok=false", symbol, window)
			}
			return
		}
		if d.Price != wantPrice || d.Symbol != symbol || d.Window != window {
			t.Fatalf("Get(%q, %q) = %s %s %g, want price %g", symbol, window, d.Symbol, d.Window, d.Price, wantPrice)
		}
	}
	f("BTCUSD", "5m", true, 1)
	f("BTCUSD", "1m", true, 2)
	f("BTCUSD", "15m", false, 0)
	f("btcusd", "5m", false, 0)
	f("ETHUSD", "5m", false, 0)
	f("", "", false, 0)
}

func TestViewsApplyCopies(t *testing.T) {
	v := New()
	d := doc("BTCUSD", "5m", 10, 1)
	v.Apply(d)
	// The caller reuses its document: the view must not change.
	d.Symbol = "XXX"
	d.Price = 99
	d.Evidence[0] = "changed"
	d.Observations.Quality.Venues[0] = "changed"
	got, ok := v.Get("BTCUSD", "5m")
	if !ok {
		t.Fatalf("document lost after the caller modified its copy")
	}
	if got.Symbol != "BTCUSD" || got.Price != 1 || got.Evidence[0] != "e1" || got.Observations.Quality.Venues[0] != "binance" {
		t.Fatalf("view aliases the caller's document: %v", got)
	}
	// Results stay valid after later Apply calls.
	v.Apply(doc("BTCUSD", "5m", 20, 2))
	if got.Price != 1 {
		t.Fatalf("an earlier result changed after Apply: price %g", got.Price)
	}
}

func TestViewsResultsAreCallers(t *testing.T) {
	v := New()
	v.Apply(doc("BTCUSD", "5m", 10, 1))
	v.Apply(doc("ETHUSD", "5m", 10, 1))
	l := v.List("5m")
	l[0] = nil
	s := v.Symbols()
	s[0] = "ZZZ"
	if got := summary(v); got != "1m:;5m: BTCUSD@1 ETHUSD@1;15m:; symbols=[BTCUSD ETHUSD] len=2" {
		t.Fatalf("modifying returned slices changed the views: %s", got)
	}
}

// TestViewsConcurrent runs one writer against many readers; run with -race.
func TestViewsConcurrent(t *testing.T) {
	v := New()
	symbols := []string{"AAPL", "BTCUSD", "ETHUSD", "SOLUSD", "TSLA", "XRPUSD"}
	const rounds = 300

	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan string, 8)
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lastTs := map[string]int64{}
			for {
				select {
				case <-stop:
					return
				default:
				}
				for _, w := range schemas.Windows {
					l := v.List(w)
					if !slices.IsSortedFunc(l, func(a, b *schemas.IntelligenceDocument) int {
						return strings.Compare(a.Symbol, b.Symbol)
					}) {
						errs <- "List not sorted"
						return
					}
				}
				for _, s := range symbols {
					d, ok := v.Get(s, "5m")
					if !ok {
						continue
					}
					if d.Symbol != s || d.TimestampNs < lastTs[s] {
						errs <- fmt.Sprintf("Get(%s) went back in time: %d < %d", s, d.TimestampNs, lastTs[s])
						return
					}
					lastTs[s] = d.TimestampNs
				}
				if !slices.IsSorted(v.Symbols()) {
					errs <- "Symbols not sorted"
					return
				}
			}
		}()
	}
	d := &schemas.IntelligenceDocument{}
	for i := 1; i <= rounds; i++ {
		for _, s := range symbols {
			for _, w := range schemas.Windows {
				// The writer reuses one document, as the pipeline does.
				d.Symbol, d.Window, d.TimestampNs, d.Price = s, w, int64(i), float64(i)
				v.Apply(d)
			}
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
	if v.Len() != len(symbols)*len(schemas.Windows) {
		t.Fatalf("Len() = %d, want %d", v.Len(), len(symbols)*len(schemas.Windows))
	}
	for _, s := range symbols {
		got, ok := v.Get(s, "15m")
		if !ok || got.TimestampNs != rounds {
			t.Fatalf("Get(%s, 15m) = %v, %v; want timestamp %d", s, got, ok, rounds)
		}
	}
}

func TestApplyKeepsEvidenceBetweenRefreshes(t *testing.T) {
	v := New()
	d := &schemas.IntelligenceDocument{Symbol: "BTCUSD", Window: "5m", TimestampNs: 1, Evidence: []string{"Volume is 3.0× its median."}}
	v.Apply(d)
	v.Apply(&schemas.IntelligenceDocument{Symbol: "BTCUSD", Window: "5m", TimestampNs: 2, Price: 2})
	got, _ := v.Get("BTCUSD", "5m")
	if got.Price != 2 || len(got.Evidence) != 1 || got.Evidence[0] != "Volume is 3.0× its median." {
		t.Fatalf("evidence not kept: %v", got)
	}
	v.Apply(&schemas.IntelligenceDocument{Symbol: "BTCUSD", Window: "5m", TimestampNs: 3, Evidence: []string{"new"}})
	got, _ = v.Get("BTCUSD", "5m")
	if len(got.Evidence) != 1 || got.Evidence[0] != "new" {
		t.Fatalf("new evidence not taken: %v", got.Evidence)
	}
}
