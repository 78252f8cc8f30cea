package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/schemas"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// `mi run --demo-publishers` as make demo runs it: the rates and
// positioning routes answer from the replayed captures (the README tour's
// figures), /coverage offers funding_extreme, and the positioning event
// stage raises the Hyperliquid capture's seven funding extremes on
// mi.events.v1. The news and SEC routes answer offline too: the ADBE 8-K
// from the news source's filings, Apple's fundamentals and its 10b5-1
// Form 4 from the SEC routes' EDGAR client, which reads the publishers
// (the demo configuration's edgar section) and then shows in /status as
// sec:edgar.
func TestRunDemoPublishers(t *testing.T) {
	fx := fixtures.Dir(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	t.Cleanup(func() {
		for i := 0; i < 100 && os.RemoveAll(data) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	httpAddr, kafkaAddr := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- cmdRun(ctx, "run", nil, []string{"--source", "sim", "--demo-publishers", fx, "--data-dir", data, "--http-addr", httpAddr,
			"--kafka-listen", kafkaAddr, "--log-format", "json", "--news-alert-max-age", "-1s", "--news-retention", "87600h",
			"--sec-insiders-as-of", "2022-06-01"})
	}()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("mi run did not stop")
		}
	}()
	deadline := time.Now().Add(2 * time.Minute)
	// get waits for a 200 of path that ready accepts (the sources read
	// their captures one by one: an early answer may lack some).
	get := func(path string, out any, ready func() bool) {
		t.Helper()
		for {
			resp, err := http.Get("http://" + httpAddr + path)
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					if err := json.Unmarshal(b, out); err != nil {
						t.Fatalf("%s: %v", path, err)
					}
					if ready() {
						return
					}
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("GET %s: no 200 within 2 minutes (%v)", path, err)
			}
			select {
			case err := <-done:
				t.Fatalf("mi run stopped: %v", err)
			case <-time.After(300 * time.Millisecond):
			}
		}
	}
	var curve struct {
		Slopes []struct {
			Name     string
			Bp       float64
			Inverted bool
		}
	}
	get("/api/v1/rates/curve", &curve, func() bool { return len(curve.Slopes) == 4 })
	slopes := map[string]float64{}
	for _, s := range curve.Slopes {
		slopes[s.Name] = s.Bp
		if s.Inverted != (s.Bp < 0) {
			t.Fatalf("slope %+v", s)
		}
	}
	if slopes["2s10s"] != 11 || slopes["3m10y"] != -66 || slopes["5s30s"] != 47 || slopes["3m2y"] != -77 {
		t.Fatalf("slopes %v", slopes)
	}
	var pos struct {
		Venues []struct {
			Venue        string
			OpenInterest float64
			Stale        bool
		}
		Flag string
	}
	get("/api/v1/intelligence/positioning/BTCUSD", &pos, func() bool { return len(pos.Venues) == 3 })
	oi := map[string]float64{}
	for _, v := range pos.Venues {
		oi[v.Venue] = v.OpenInterest
		if !v.Stale {
			t.Fatalf("an old capture presented as current: %+v", v)
		}
	}
	if oi["binance"] != 108833.193 || oi["hyperliquid"] != 22727.78266 || pos.Flag == "" {
		t.Fatalf("positioning %+v", pos)
	}
	var adbe []struct {
		Category string
		Symbols  []string
	}
	get("/api/v1/news/symbol?symbol=ADBE", &adbe, func() bool { return len(adbe) > 0 })
	if adbe[0].Category != "filings" {
		t.Fatalf("news/symbol ADBE: %+v", adbe)
	}
	var fund struct {
		Financials map[string]struct {
			Value           float64
			AccessionNumber string
		}
	}
	beforeSEC := time.Now().UTC()
	get("/api/v1/fundamentals/AAPL", &fund, func() bool { return true })
	if r := fund.Financials["revenue"]; r.Value != 416161000000 || r.AccessionNumber != "0000320193-25-000079" {
		t.Fatalf("fundamentals AAPL: %+v", fund)
	}
	var ins struct {
		AsOf   string
		Signal string
	}
	get("/api/v1/insiders/AAPL?days=365", &ins, func() bool { return true })
	if ins.Signal != "PLANNED_SELLING" || ins.AsOf != "2022-06-01T00:00:00Z" {
		t.Fatalf("insiders AAPL: %+v", ins)
	}
	var st struct {
		Freshness struct {
			Sources []struct {
				Name, Kind, Endpoint, State  string
				LastAttemptAt, LastSuccessAt *time.Time
			}
		}
	}
	get("/status", &st, func() bool { return true })
	var edgarEntry bool
	for _, f := range st.Freshness.Sources {
		if f.Name == "sec:edgar" {
			edgarEntry = true
			// The news classifier's ticker read goes through the same
			// client at start: the fundamentals call's reads are newer.
			if f.Kind != "filings" || f.LastSuccessAt == nil || f.LastAttemptAt == nil || f.LastAttemptAt.Before(beforeSEC.Truncate(time.Millisecond)) || f.Endpoint == "" {
				t.Fatalf("/status sec:edgar after the SEC calls: %+v", f)
			}
		}
	}
	if !edgarEntry {
		t.Fatalf("/status lists no sec:edgar among %+v", st.Freshness.Sources)
	}
	var cov struct {
		Events []struct {
			Name string
			Live bool
		}
	}
	get("/coverage", &cov, func() bool { return true })
	live := map[string]bool{}
	for _, e := range cov.Events {
		live[e.Name] = e.Live
	}
	if !live[operators.AlertFundingExtreme] || live[operators.AlertPredictionMarketMove] {
		t.Fatalf("live events %+v", cov.Events)
	}
	for {
		n := 0
		err := pipeline.ReadCommitted(ctx, []string{kafkaAddr}, schemas.TopicEvents, nil, func(r *kgo.Record) {
			var e operators.AlertEvent
			if json.Unmarshal(r.Value, &e) == nil && e.Event == operators.AlertFundingExtreme {
				n++
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 7 {
			break
		}
		if n > 7 || time.Now().After(deadline) {
			t.Fatalf("%d funding_extreme events, want the capture's 7", n)
		}
		time.Sleep(300 * time.Millisecond)
	}
}
