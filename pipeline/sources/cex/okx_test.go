package cex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

// The real OKX capture (pipeline/sources/venue/okx/testdata/README.md):
// cryptofeed's format-1 recording of the v5 public WebSocket and the SWAP
// instruments answer recorded beside it.
const (
	okxCapture     = "../venue/okx/testdata/OKX.ws.1.0"
	okxInstruments = "../venue/okx/testdata/OKX.0"
)

// okxMessages returns the messages OKX sent on the recorded connection
// for markets: the received lines (`<ts>: <json>`) whose arg names one of
// them, and those without an instrument (answers, notices); the
// subscription answers are left out (the server answers itself).
func okxMessages(t *testing.T, markets []string) [][]byte {
	var out [][]byte
	for _, l := range readLines(t, okxCapture) {
		if bytes.HasPrefix(l, []byte("wss://")) {
			continue
		}
		_, msg, ok := bytes.Cut(l, []byte(": "))
		if !ok {
			t.Fatalf("line %.80s", l)
		}
		var m struct {
			Event string
			Arg   struct{ InstID string }
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			t.Fatal(err)
		}
		if m.Event == "subscribe" || m.Arg.InstID != "" && !slices.Contains(markets, m.Arg.InstID) {
			continue
		}
		out = append(out, msg)
	}
	return out
}

// instrumentsServer serves the recorded SWAP instruments answer at
// /api/v5/public/instruments?instType=SWAP; its first fail requests get a
// 500.
type instrumentsServer struct {
	t    *testing.T
	body []byte
	fail int

	mu       sync.Mutex
	requests int
}

func (s *instrumentsServer) start() string {
	b, err := os.ReadFile(okxInstruments)
	if err != nil {
		s.t.Fatal(err)
	}
	_, body, ok := bytes.Cut(bytes.TrimSpace(b), []byte(": "))
	if !ok {
		s.t.Fatal("OKX.0 is not `<url> -> <ts>: <body>`")
	}
	s.body = body
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests++
		n := s.requests
		s.mu.Unlock()
		if r.URL.Path != "/api/v5/public/instruments" || r.URL.Query().Get("instType") != "SWAP" {
			s.t.Errorf("instruments request %s", r.URL)
			http.NotFound(w, r)
			return
		}
		if n <= s.fail {
			http.Error(w, "upstream down", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(s.body)
	}))
	s.t.Cleanup(srv.Close)
	return srv.URL + "/api/v5/public/instruments"
}

// The OKX connector against a local WebSocket server replaying the real
// capture and a local HTTP server answering the instruments request with
// the recorded answer: the connector reads the contract values, subscribes
// to trades of BTC-USDT and UNI-USD-SWAP, keeps the connection alive with
// "ping" (answered "pong"), survives a cut, duplicates and reordering, and
// yields exactly the trades the replay reader takes from the same
// recording, including the swap trade sized from its contract value. The
// instruments endpoint fails twice first: the connector says it is
// unreachable, does not connect without contract values, and retries.
func TestOKXCaptureOverWebSocket(t *testing.T) {
	markets := []string{"BTC-USDT", "UNI-USD-SWAP"}
	msgs := okxMessages(t, markets)
	want := replayTrades(t, okxCapture, func(tr *schemas.Trade) bool { return slices.Contains(markets, tr.Market) })
	if len(want) != 70 {
		t.Fatalf("the replay reader yields %d trades of %v, want 70", len(want), markets)
	}
	inst := &instrumentsServer{t: t, fail: 2}
	instURL := inst.start()
	srv := &venueServer{t: t, msgs: msgs, subs: 1, cutAfter: len(msgs) / 2, overlap: 40, dupEvery: 7, swapEvery: 5,
		ping: []byte("ping"), pong: []byte("pong"),
		answer: func(sub []byte) ([]byte, error) {
			var s struct {
				Op   string
				Args []struct{ Channel, InstID string }
			}
			if err := json.Unmarshal(sub, &s); err != nil || s.Op != "subscribe" || len(s.Args) != 2 ||
				s.Args[0].Channel != "trades" || s.Args[0].InstID != "BTC-USDT" || s.Args[1].InstID != "UNI-USD-SWAP" {
				return nil, fmt.Errorf("want subscribe trades BTC-USDT, UNI-USD-SWAP; err %v", err)
			}
			return []byte(`{"event":"subscribe","arg":{"channel":"trades","instId":"BTC-USDT"},"connId":"a4d3ae55"}`), nil
		}}
	url := srv.start()
	rec := &recorder{}
	cfg := testConfig("okx", "", url, markets, rec)
	cfg.InstrumentsURL = instURL
	cfg.PingInterval = 20 * time.Millisecond
	conn, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if conn.Venue() != "okx" || conn.Name() != "okx:okx" {
		t.Errorf("venue %q name %q", conn.Venue(), conn.Name())
	}
	got, rejects := collect(t, conn, len(want), 0)
	if len(rejects) > 0 {
		t.Fatalf("%d rejected, first: %s (%.200s)", len(rejects), rejects[0].Reason, rejects[0].Raw)
	}
	sameTrades(t, got, want)
	swaps := 0
	for _, tr := range got {
		if tr.Venue == "okx_swap" {
			swaps++
			if tr.Symbol != "UNIUSD" || tr.NotionalUsd != 1000 {
				t.Errorf("swap trade %v", tr)
			}
		}
	}
	if swaps != 1 {
		t.Errorf("%d swap trades, want 1", swaps)
	}
	// Pings go out on the live connection; wait for one to be answered.
	deadline := time.Now().Add(10 * time.Second)
	for {
		srv.mu.Lock()
		p := srv.pings
		srv.mu.Unlock()
		if p > 0 || time.Now().After(deadline) {
			if p == 0 {
				t.Error("the server received no ping")
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	st := conn.Stats()
	if st.Duplicates == 0 || st.Dials < 4 {
		t.Errorf("stats %+v: want duplicates dropped, two failed attempts and a reconnect", st)
	}
	inst.mu.Lock()
	if inst.requests < 4 {
		t.Errorf("%d instruments requests, want 2 failed + one per connection", inst.requests)
	}
	inst.mu.Unlock()
	srv.mu.Lock()
	if srv.conns < 2 {
		t.Errorf("%d WebSocket connections, want 2 (none while contract values were missing)", srv.conns)
	}
	srv.mu.Unlock()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if !slices.Contains(rec.states, "unreachable") || !slices.Contains(rec.states, "running") {
		t.Errorf("states %v: want unreachable, then running", rec.states)
	}
	if !slices.Contains(rec.gaps, "disconnected") {
		t.Errorf("gaps %q: want the disconnect recorded", rec.gaps)
	}
}

// Spot markets only: no instruments request; "pong" and the venue's error
// events are handled without dropping the connection.
func TestOKXSpotOnly(t *testing.T) {
	markets := []string{"BTC-USDT"}
	msgs := okxMessages(t, markets)
	inst := &instrumentsServer{t: t}
	instURL := inst.start()
	srv := &venueServer{t: t, msgs: msgs, subs: 1, cutAfter: len(msgs) + 1,
		extra:  [][]byte{[]byte("pong"), []byte(`{"event":"error","code":"60018","msg":"Wrong URL or channel:trades,instId:FOO-USDT doesn't exist.","connId":"x"}`)},
		answer: func([]byte) ([]byte, error) { return nil, nil }}
	url := srv.start()
	cfg := testConfig("okx", "", url, markets, &recorder{})
	cfg.InstrumentsURL = instURL
	conn, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	got, rejects := collect(t, conn, 69, 1)
	if len(got) != 69 || len(rejects) != 1 || !strings.HasPrefix(rejects[0].Reason, "venue error: 60018") {
		t.Fatalf("%d trades, rejects %v", len(got), rejects)
	}
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if inst.requests != 0 {
		t.Errorf("%d instruments requests for spot markets", inst.requests)
	}
	if _, err := New(Config{Protocol: "okx", Venue: "okx_swap", Markets: markets}); err == nil {
		t.Error("venue okx_swap accepted: one connector takes both")
	}
}
