package main

import (
	"context"
	"encoding/json"
	"net"
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
// ADBE 8-K of 2023-03-15 and CoinDesk's headlines of 2026-09-25).
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
	if err := os.WriteFile(cfg, []byte(`{"http":`+string(httpCfg)+`,"sources":[`+string(entry)+`]}`), 0o644); err != nil {
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
		done <- cmdRun(ctx, []string{"--data-dir", data, "--http-addr", httpAddr, "--kafka-listen", "127.0.0.1:0",
			"--sources-config", cfg, "--log-format", "json", "--news-alert-max-age", "-1s", "--news-retention", "87600h"})
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
}
