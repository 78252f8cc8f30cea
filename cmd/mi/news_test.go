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

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/newsreplay"
	"github.com/marketintel/mi/internal/pubreplay"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/edgar/edgarreplay"
)

// `mi run` with a news source over the replayed publishers and EDGAR: the
// items reach mi.news.v1 and the news stage writes their day files (the
// ADBE 8-K of 2023-03-15 and CoinDesk's headlines of 2026-09-25); the API
// serves them, and the SEC routes read the same replayed EDGAR (the edgar
// section of the sources file), insiders as of 2022-06-01.
func TestRunWithNewsSource(t *testing.T) {
	fx := fixtures.Dir(t)
	srv, err := pubreplay.New(append(newsreplay.Routes(fx), edgarreplay.Routes(fx)...))
	if err != nil {
		t.Fatal(err)
	}
	rl, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer rl.Close()
	dir := t.TempDir()
	t.Cleanup(func() {
		for i := 0; i < 100 && os.RemoveAll(filepath.Join(dir, "data")) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	entry, err := json.Marshal(newsreplay.Config(rl.URL))
	if err != nil {
		t.Fatal(err)
	}
	httpCfg, err := json.Marshal(sources.HTTPConfig{Contact: newsreplay.HTTP().Contact, DefaultLimit: newsreplay.HTTP().DefaultLimit})
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "sources.json")
	edgarCfg := `{"www":"` + rl.URL + `","data":"` + rl.URL + `"}`
	if err := os.WriteFile(cfg, []byte(`{"http":`+string(httpCfg)+`,"edgar":`+edgarCfg+`,"sources":[`+string(entry)+`]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	httpAddr := l.Addr().String()
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	data := filepath.Join(dir, "data")
	go func() {
		done <- cmdRun(ctx, "run", nil, []string{"--data-dir", data, "--http-addr", httpAddr, "--kafka-listen", "127.0.0.1:0",
			"--sources-config", cfg, "--log-format", "json", "--news-alert-max-age", "-1s", "--news-retention", "87600h",
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
	want := []string{
		filepath.Join(datasets.NewsDir(data, "2023-03-15"), datasets.DayFileName),
		filepath.Join(datasets.NewsDir(data, "2026-09-25"), datasets.DayFileName),
	}
	deadline := time.Now().Add(90 * time.Second)
	for _, p := range want {
		for {
			if _, err := os.Stat(p); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no news day file %s", p)
			}
			select {
			case err := <-done:
				t.Fatalf("mi run stopped: %v", err)
			case <-time.After(300 * time.Millisecond):
			}
		}
	}
	base := "http://" + httpAddr
	// The news view follows mi.news.v1: the ADBE 8-K with item 2.02 as
	// earnings.
	var docs []struct {
		Category string `json:"category"`
		Filing   *struct {
			Earnings bool `json:"earnings"`
			Items    []struct {
				Item     string `json:"item"`
				Earnings bool   `json:"earnings"`
			} `json:"items"`
		} `json:"filing"`
	}
	for {
		status, body := httpGet(t, base+"/api/v1/news/symbol?symbol=ADBE")
		if status == 200 {
			if err := json.Unmarshal(body, &docs); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("news/symbol ADBE: %d %s", status, body)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if d := docs[0]; d.Category != "filings" || d.Filing == nil || !d.Filing.Earnings || d.Filing.Items[0].Item != "2.02" || !d.Filing.Items[0].Earnings {
		t.Fatalf("ADBE: %+v", docs)
	}
	var fund struct {
		Financials map[string]struct {
			Value           float64 `json:"value"`
			AccessionNumber string  `json:"accessionNumber"`
		} `json:"financials"`
	}
	status, body := httpGet(t, base+"/api/v1/fundamentals/AAPL")
	if err := json.Unmarshal(body, &fund); status != 200 || err != nil || fund.Financials["revenue"].Value != 416161000000 ||
		fund.Financials["revenue"].AccessionNumber != "0000320193-25-000079" {
		t.Fatalf("fundamentals: %d %.300s", status, body)
	}
	var ins struct {
		AsOf   string `json:"asOf"`
		Signal string `json:"signal"`
	}
	status, body = httpGet(t, base+"/api/v1/insiders/AAPL?days=365")
	if err := json.Unmarshal(body, &ins); status != 200 || err != nil || ins.Signal != "PLANNED_SELLING" || ins.AsOf != "2022-06-01T00:00:00Z" {
		t.Fatalf("insiders: %d %.300s", status, body)
	}
	// The snapshots of both answers are under the data directory.
	for _, p := range []string{filepath.Join(datasets.SecFundamentalsDir(data, time.Now().UTC().Format(time.DateOnly), "AAPL"), datasets.DayFileName),
		filepath.Join(datasets.SecInsidersDir(data, "2022-06-01", "AAPL"), datasets.DayFileName)} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("no snapshot: %v", err)
		}
	}
}

func httpGet(t *testing.T, url string) (int, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}
