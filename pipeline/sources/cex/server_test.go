package cex

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/klauspost/compress/gzip"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/replay"
	"github.com/marketintel/mi/schemas"
)

// venueServer is a local WebSocket server speaking one venue's protocol: it
// waits for the subscription messages, answers them as the venue does, and
// replays recorded messages. Its script makes the stream hostile: the first
// connection is cut after cutAfter messages; the next resumes overlap
// messages earlier (duplicates), and every dupEvery-th message is sent twice
// and every swapEvery-th pair is swapped (reordering).
type venueServer struct {
	t                   *testing.T
	msgs                [][]byte
	subs                int                              // subscription messages to wait for
	answer              func(sub []byte) ([]byte, error) // the venue's answer to one
	cutAfter            int
	overlap             int
	dupEvery, swapEvery int
	extra               [][]byte // sent after the replay (bad input etc.)
	// pong, when set, answers every message the client sends after
	// subscribing that equals ping (OKX's text keep-alive).
	ping, pong []byte

	mu       sync.Mutex
	conns    int
	subsSeen [][]byte
	pings    int // messages equal to ping received after subscribing
	queries  []string
	srv      *httptest.Server
}

func (s *venueServer) start() string {
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.t.Cleanup(s.srv.Close)
	return "ws" + strings.TrimPrefix(s.srv.URL, "http")
}

func (s *venueServer) handle(w http.ResponseWriter, r *http.Request) {
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer ws.CloseNow()
	ws.SetReadLimit(-1)
	ctx := r.Context()
	s.mu.Lock()
	s.conns++
	n := s.conns
	s.queries = append(s.queries, r.URL.RawQuery)
	s.mu.Unlock()
	// Keep reading (subscriptions first, then pings) in the background.
	subc := make(chan []byte, 16)
	go func() {
		for {
			_, b, err := ws.Read(ctx)
			if err != nil {
				close(subc)
				return
			}
			subc <- b
		}
	}()
	for i := 0; i < s.subs; i++ {
		b, ok := <-subc
		if !ok {
			return
		}
		s.mu.Lock()
		s.subsSeen = append(s.subsSeen, b)
		s.mu.Unlock()
		ans, err := s.answer(b)
		if err != nil {
			s.t.Errorf("bad subscription %s: %v", b, err)
			return
		}
		if ans != nil {
			if ws.Write(ctx, websocket.MessageText, ans) != nil {
				return
			}
		}
	}
	go func() { // drain pings, answering them when the venue does
		for b := range subc {
			if s.ping != nil && bytes.Equal(b, s.ping) {
				s.mu.Lock()
				s.pings++
				s.mu.Unlock()
				if s.pong != nil {
					_ = ws.Write(ctx, websocket.MessageText, s.pong)
				}
			}
		}
	}()
	var seq [][]byte
	if n == 1 {
		seq = s.msgs[:min(s.cutAfter, len(s.msgs))]
		if s.cutAfter >= len(s.msgs) {
			seq = append(seq, s.extra...)
		}
	} else {
		from := max(s.cutAfter-s.overlap, 0)
		for i := from; i < len(s.msgs); i++ {
			seq = append(seq, s.msgs[i])
			if s.dupEvery > 0 && i%s.dupEvery == 0 {
				seq = append(seq, s.msgs[i])
			}
		}
		for i := 0; s.swapEvery > 0 && i+1 < len(seq); i += s.swapEvery {
			seq[i], seq[i+1] = seq[i+1], seq[i]
		}
		seq = append(seq, s.extra...)
	}
	for _, m := range seq {
		typ := websocket.MessageText
		if bytes.HasPrefix(m, []byte("BINARY:")) {
			typ, m = websocket.MessageBinary, m[len("BINARY:"):]
		}
		if err := ws.Write(ctx, typ, m); err != nil {
			return
		}
	}
	if n == 1 && s.cutAfter < len(s.msgs) {
		return // abrupt cut: CloseNow without a close handshake
	}
	<-ctx.Done()
}

// readLines returns the lines of a (gzipped) fixture.
func readLines(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r = bufio.NewReader(f)
	var sc *bufio.Scanner
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		sc = bufio.NewScanner(zr)
	} else {
		sc = bufio.NewScanner(r)
	}
	sc.Buffer(nil, 64<<20)
	var out [][]byte
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) > 0 {
			out = append(out, append([]byte(nil), sc.Bytes()...))
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// rawAfterTimestamp extracts the JSON of `<ts> <json>` capture lines.
func rawAfterTimestamp(lines [][]byte) [][]byte {
	var out [][]byte
	for _, l := range lines {
		if _, js, ok := bytes.Cut(l, []byte{' '}); ok && len(js) > 0 && js[0] == '{' {
			out = append(out, js)
		}
	}
	return out
}

// cryptofeedRecv extracts the received messages of one connection (all
// connections when conn is "") of a cryptofeed capture.
func cryptofeedRecv(t *testing.T, lines [][]byte, conn string) [][]byte {
	var out [][]byte
	for _, l := range lines {
		var r struct{ T, Conn, Data string }
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		if r.T == "recv" && (conn == "" || r.Conn == conn) {
			out = append(out, []byte(r.Data))
		}
	}
	return out
}

// replayTrades reads a capture with the replay source and returns its
// trades, deduplicated by (venue, market, id), filtered by keep.
func replayTrades(t *testing.T, path string, keep func(*schemas.Trade) bool) []*schemas.Trade {
	t.Helper()
	src, err := replay.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	seen := map[string]bool{}
	var out []*schemas.Trade
	for {
		r, err := src.Next(context.Background())
		if err != nil {
			break
		}
		if r.Trade == nil || !keep(r.Trade) {
			continue
		}
		k := r.Trade.Venue + "|" + r.Trade.Market + "|" + r.Trade.TradeId
		if !seen[k] {
			seen[k] = true
			out = append(out, r.Trade)
		}
	}
	return out
}

// collect reads records from c until it holds want trades and rejects, or
// the deadline passes. Gap records are neither.
func collect(t *testing.T, c *Conn, wantTrades, wantRejects int) (trades []*schemas.Trade, rejects []sources.Record) {
	t.Helper()
	trades, rejects, _ = collectAll(t, c, wantTrades, wantRejects)
	return trades, rejects
}

// collectAll is collect that also returns the gap records read.
func collectAll(t *testing.T, c *Conn, wantTrades, wantRejects int) (trades []*schemas.Trade, rejects, gaps []sources.Record) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for len(trades) < wantTrades || len(rejects) < wantRejects {
		r, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("after %d/%d trades and %d/%d rejects: %v", len(trades), wantTrades, len(rejects), wantRejects, err)
		}
		switch {
		case r.Trade != nil:
			trades = append(trades, r.Trade)
		case r.Gap != nil:
			gaps = append(gaps, r)
		default:
			rejects = append(rejects, r)
		}
	}
	return trades, rejects, gaps
}

// tradeKey renders the fields a trade must keep between replay and live:
// everything but the ingest time and the source name.
func tradeKey(t *schemas.Trade) string {
	return fmt.Sprintf("%s|%s|%s|%s|%s|%.10g|%.10g|%.10g|%d|%s|%s|%s", t.Venue, t.Market, t.TradeId, t.Symbol, t.VenueSymbol,
		t.Price, t.Size, t.NotionalUsd, t.EventTimeNs, t.Side, t.VenueKind, t.Wallet)
}

func sameTrades(t *testing.T, got, want []*schemas.Trade) {
	t.Helper()
	g := make([]string, len(got))
	for i, x := range got {
		g[i] = tradeKey(x)
	}
	w := make([]string, len(want))
	for i, x := range want {
		w[i] = tradeKey(x)
	}
	sort.Strings(g)
	sort.Strings(w)
	if len(g) != len(w) {
		t.Fatalf("got %d trades, want %d", len(g), len(w))
	}
	for i := range g {
		if g[i] != w[i] {
			t.Fatalf("trade %d differs:\n got %s\nwant %s", i, g[i], w[i])
		}
	}
}

// recorder is an Observer that keeps what it is told.
type recorder struct {
	mu         sync.Mutex
	states     []string
	reconnects int
	gaps       []string
}

func (r *recorder) SetState(_, state string, _ error) {
	r.mu.Lock()
	r.states = append(r.states, state)
	r.mu.Unlock()
}
func (r *recorder) Reconnect(string) { r.mu.Lock(); r.reconnects++; r.mu.Unlock() }
func (r *recorder) Gap(_ string, _, _ int64, reason string) {
	r.mu.Lock()
	r.gaps = append(r.gaps, reason)
	r.mu.Unlock()
}

func testConfig(protocol, venue, url string, markets []string, obs Observer) Config {
	return Config{Protocol: protocol, Venue: venue, URL: url, Markets: markets, Observer: obs,
		BackoffMin: 5 * time.Millisecond, BackoffMax: 50 * time.Millisecond, GapGrace: 64}
}
