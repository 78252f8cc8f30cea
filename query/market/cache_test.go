package market

import (
	"sync"
	"testing"
	"time"

	"github.com/marketintel/mi/sinks/views"
)

func TestMarketCache(t *testing.T) {
	v := views.New()
	v.Apply(smallDoc("AAA", "5m", 10, 100))
	now := testNow
	s := newServer(Config{Views: v, Now: func() time.Time { return now }})

	m1 := s.market("5m")
	if s.market("5m") != m1 {
		t.Fatal("unchanged views, same time: rebuilt")
	}
	if s.market("1m") == m1 {
		t.Fatal("windows share a market")
	}
	v.Apply(smallDoc("BBB", "5m", 20, 100))
	m2 := s.market("5m")
	if m2 == m1 || len(m2.docs) != 2 {
		t.Fatalf("changed views on a frozen clock: not rebuilt (%d docs)", len(m2.docs))
	}
	now = now.Add(50 * time.Millisecond)
	v.Apply(smallDoc("CCC", "5m", 30, 100))
	if s.market("5m") != m2 {
		t.Fatal("changed views 50 ms after the build: rebuilt before marketMinAge")
	}
	now = now.Add(60 * time.Millisecond)
	m3 := s.market("5m")
	if m3 == m2 || len(m3.docs) != 3 {
		t.Fatal("changed views 110 ms after the build: not rebuilt")
	}
	now = now.Add(999 * time.Millisecond)
	if s.market("5m") != m3 {
		t.Fatal("unchanged views 999 ms after the build: rebuilt")
	}
	now = now.Add(time.Millisecond)
	m4 := s.market("5m")
	if m4 == m3 {
		t.Fatal("a market marketMaxAge old was reused")
	}
	now = now.Add(-time.Millisecond)
	if s.market("5m") == m4 {
		t.Fatal("a market built later than now was reused")
	}
}

// BenchmarkMarketCached measures the market step when the cache answers.
func BenchmarkMarketCached(b *testing.B) {
	v := views.New()
	for i := range 1000 {
		d := fullDoc()
		d.Symbol = "S" + itoaTest(i)
		v.Apply(d)
	}
	s := newServer(Config{Views: v, Now: func() time.Time { return testNow }})
	s.market("5m")
	b.ReportAllocs()
	for b.Loop() {
		if len(s.market("5m").docs) != 1000 {
			b.Fatal("wrong market")
		}
	}
}

func itoaTest(i int) string {
	const digits = "0123456789"
	return string([]byte{digits[i/100%10], digits[i/10%10], digits[i%10], digits[i/1000%10]})
}

// TestMarketCacheConcurrent reads markets and the summary from many
// goroutines while the views change (run with -race).
func TestMarketCacheConcurrent(t *testing.T) {
	v := views.New()
	s := newServer(Config{Views: v})
	app := s.App()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 300 {
			v.Apply(smallDoc("S"+itoaTest(i), "5m", int64(i), 1))
		}
	}()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if m := s.market("5m"); len(m.docs) > 300 {
					t.Errorf("%d docs", len(m.docs))
				}
				if status, _, _ := do(t, app, "GET", "/api/v1/intelligence/summary"); status != 200 {
					t.Errorf("summary %d", status)
				}
			}
		}()
	}
	wg.Wait()
	<-done
}
