package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/klauspost/compress/gzip"

	"github.com/marketintel/mi/pipeline/sources"

	"github.com/marketintel/mi/internal/fixtures"
)

// `mi run --sources-config FILE` ingests a live source: a local server
// speaking Binance's protocol replays the first trades of the spot capture,
// and /status and /metrics show them; a second source whose venue cannot be
// reached shows as unreachable with its error, and the API serves all along.
func TestRunWithSourcesConfig(t *testing.T) {
	f, err := os.Open(fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var msgs [][]byte
	trades := 0
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() && trades < 300 {
		if _, js, ok := bytes.Cut(sc.Bytes(), []byte{' '}); ok && bytes.HasPrefix(js, []byte(`{"stream"`)) {
			msgs = append(msgs, append([]byte(nil), js...))
			if bytes.Contains(js, []byte(`"e":"trade"`)) {
				trades++
			}
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		if _, sub, err := ws.Read(r.Context()); err != nil || !bytes.Contains(sub, []byte(`"SUBSCRIBE"`)) {
			t.Errorf("subscription %s: %v", sub, err)
			return
		}
		_ = ws.Write(r.Context(), websocket.MessageText, []byte(`{"result":null,"id":1}`))
		for _, m := range msgs {
			if ws.Write(r.Context(), websocket.MessageText, m) != nil {
				return
			}
		}
		_, _, _ = ws.Read(r.Context()) // hold the connection open
	}))
	defer srv.Close()
	dead, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	deadAddr := dead.Addr().String()
	dead.Close() // nothing listens there any more: unreachable
	dir := t.TempDir()
	t.Cleanup(func() {
		// mi run returns before its embedded broker has closed its files.
		for i := 0; i < 100 && os.RemoveAll(filepath.Join(dir, "data")) != nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
	})
	cfg := filepath.Join(dir, "sources.json")
	body := fmt.Sprintf(`{"sources":[{"kind":"binance","name":"ws:local","url":%q,"markets":["BTCUSDT"]},`+
		`{"kind":"kraken","name":"ws:dead","url":"ws://%s/v2","markets":["BTC/USD"],"backoffMax":"1s"}]}`,
		"ws"+strings.TrimPrefix(srv.URL, "http"), deadAddr)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
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
	go func() {
		done <- cmdRun(ctx, "run", nil, []string{"--data-dir", filepath.Join(dir, "data"), "--http-addr", httpAddr,
			"--kafka-listen", "127.0.0.1:0", "--sources-config", cfg, "--log-format", "json"})
	}()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("mi run did not stop")
		}
	}()
	type source struct {
		Source, State string
		Trades        int
		Error         *string
	}
	var status struct{ Sources []source }
	deadline := time.Now().Add(90 * time.Second)
	for {
		if time.Now().After(deadline) {
			t.Fatalf("status never showed %d trades for ws:local and ws:dead unreachable: %+v", trades, status)
		}
		time.Sleep(300 * time.Millisecond)
		resp, err := http.Get("http://" + httpAddr + "/status")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if json.Unmarshal(b, &status) != nil {
			continue
		}
		// The configuration's two sources, and the token risk watch (the
		// file reads no chain: no depeg watch).
		by := map[string]source{}
		for _, s := range status.Sources {
			by[s.Source] = s
		}
		d, l, rw := by["ws:dead"], by["ws:local"], by["token:risk-watch"]
		_, depeg := by["token:depeg"]
		if len(status.Sources) == 3 && !depeg && rw.State == "running" &&
			d.State == "unreachable" && d.Error != nil && strings.Contains(*d.Error, "cannot dial") && l.Trades == trades {
			break
		}
	}
	resp, err := http.Get("http://" + httpAddr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := fmt.Sprintf(`mi_source_trades_total{source="ws:local"} %d`, trades); !strings.Contains(string(b), want) {
		t.Fatalf("/metrics lacks %q", want)
	}
}

// TestDefaultConfigOpens opens every entry of the built-in sources
// configuration with the kinds mi registers (exchanges, on-chain DEX, the
// rates pollers and news), without connecting anywhere.
func TestDefaultConfigOpens(t *testing.T) {
	cfg, err := sources.LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	srcs, err := cfg.Open(sources.Env{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatalf("the default sources configuration does not open: %v", err)
	}
	kinds := map[string]int{}
	for _, s := range srcs {
		kinds[strings.SplitN(s.Name(), ":", 2)[0]]++
		_ = s.Close()
	}
	if len(srcs) != len(cfg.Sources) || kinds["evmdex"] != 2 || kinds["ws"] != 6 || kinds["news"] != 1 ||
		kinds["treasury"] != 3 || kinds["nyfed"] != 1 || kinds["ecb"] != 1 || kinds["aave-v3"] != 1 || kinds["tokenfunds"] != 1 {
		t.Fatalf("opened %d of %d sources: %v", len(srcs), len(cfg.Sources), kinds)
	}
}
