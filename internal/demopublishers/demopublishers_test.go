package demopublishers

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sources"
	_ "github.com/marketintel/mi/pipeline/sources/aave"
	_ "github.com/marketintel/mi/pipeline/sources/fred"
	_ "github.com/marketintel/mi/pipeline/sources/newsfeed"
	_ "github.com/marketintel/mi/pipeline/sources/nyfed"
	_ "github.com/marketintel/mi/pipeline/sources/perps"
	_ "github.com/marketintel/mi/pipeline/sources/treasury"
)

// Every source of the demo's configuration reads records from the replay
// through its live client, and asks the replay only for what the captures
// hold or for the documented requests that no capture answers.
func TestEverySourceReadsTheCaptures(t *testing.T) {
	p, err := Start(fixtures.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	srcs, err := p.Config.Open(sources.Env{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	got := map[string]int{}
	var wg sync.WaitGroup
	for _, s := range srcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer s.Close()
			for {
				r, err := s.Next(ctx)
				if err != nil {
					return
				}
				mu.Lock()
				if r.Side != nil {
					got[s.Name()]++
				} else if r.Reason != "" {
					t.Errorf("%s dead-lettered: %s", s.Name(), r.Reason)
				}
				n := len(got)
				mu.Unlock()
				if n == len(srcs) {
					cancel()
				}
			}
		}()
	}
	wg.Wait()
	if len(got) != len(srcs) {
		t.Fatalf("records from %d of %d sources: %v", len(got), len(srcs), got)
	}
	for _, m := range p.Server.Misses() {
		documented := false
		for _, d := range []string{"/fapi/v1/fundingInfo", "/v5/market/instruments-info", "/v5/market/account-ratio"} {
			documented = documented || strings.Contains(m, d)
		}
		if !documented {
			t.Errorf("a request no capture answers and docs/demo.md does not list: %s", m)
		}
	}
}
