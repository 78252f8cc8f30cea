package evmdex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/replay"
	"github.com/marketintel/mi/schemas"
)

// replayTrades reads the trades of both recorded pools with the replay
// source, keyed by (tx hash, log index).
func replayTrades(t *testing.T) map[string]*schemas.Trade {
	t.Helper()
	out := map[string]*schemas.Trade{}
	for _, f := range []string{fileA, fileB} {
		src, err := replay.Open(fixtures.Path(t, f))
		if err != nil {
			t.Fatal(err)
		}
		for {
			r, err := src.Next(context.Background())
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Side != nil {
				continue // a pool event
			}
			if r.Trade == nil {
				t.Fatalf("replay rejected %s: %s", r.Raw, r.Reason)
			}
			out[key(r.Trade)] = r.Trade
		}
		src.Close()
	}
	return out
}

// poolEvent decodes a record of mi.pool-events.v1 the source yielded.
func poolEvent(t testing.TB, r sources.Record) operators.PoolEvent {
	t.Helper()
	if r.Side.Topic != sidetopic.PoolEvents.Name {
		t.Fatalf("side record for %s", r.Side.Topic)
	}
	p, err := sidetopic.PoolEvents.Decode(r.Side.Value)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Side.Key) != sidetopic.PoolEvents.Key(p) {
		t.Fatalf("key %q of %v", r.Side.Key, p)
	}
	ev, err := operators.PoolEventFromProto(p)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func key(t *schemas.Trade) string { return fmt.Sprintf("%s/%d", t.TradeId, t.LogIndex) }

type runResult struct {
	trades    []*schemas.Trade
	retracted []sources.Record
	rejects   []sources.Record
	events    []operators.PoolEvent
	side      []*sources.SideRecord // the pool events as yielded
	stats     Stats
}

// drive runs the connector against the server while a clock advances the
// head 20 blocks every 2 ms, with a disconnect at a third of the day and a
// fork of two blocks at two thirds.
func drive(t *testing.T, s *chainServer, url string, confirmations uint64) runResult {
	t.Helper()
	blocks := s.sortedBlocks()
	forkAt := blocks[len(blocks)*2/3]
	dropAt := blocks[len(blocks)/3]
	var mu sync.Mutex
	var res runResult
	src, err := New(Config{
		ChainConfig: ChainConfig{Chain: "ethereum", RPC: url, Confirmations: confirmations, PollInterval: Duration(5 * time.Millisecond), MaxRange: 300},
		Pools:       []PoolConfig{{Chain: "ethereum", Address: poolA.Hex(), Name: "USDC/WETH 0.05%"}, {Chain: "ethereum", Address: poolB.Hex(), Name: "USDC/WETH 0.3%"}},
		StartBlock:  s.first, EndBlock: s.last,
		MinBackoff: 5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, StepTimeout: 2 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		dropped, forked, resolved := false, false, false
		for h := s.first; ; h += 20 {
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
			if h > s.last+confirmations {
				h = s.last + confirmations
			}
			if !forked && h+20 >= forkAt {
				s.mu.Lock()
				s.forkFrom = forkAt
				s.mu.Unlock()
				h = forkAt + 1 // the fork is the head
				forked = true
			}
			if forked && !resolved {
				s.mu.Lock()
				served := s.forkRead || confirmations > 0
				if served && h >= forkAt+confirmations+4 {
					s.forkFrom = 0
					resolved = true
				}
				s.mu.Unlock()
				if !resolved && h > forkAt+confirmations+4 {
					h = forkAt + confirmations + 4 // hold until the fork was read
				}
			}
			s.advance(h)
			if !dropped && h >= dropAt {
				s.disconnect(30 * time.Millisecond)
				dropped = true
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		r, err := src.Next(ctx)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Next: %v (stats %+v)", err, src.Stats())
		}
		switch {
		case r.Trade != nil:
			res.trades = append(res.trades, r.Trade)
		case r.Side != nil:
			mu.Lock()
			res.events = append(res.events, poolEvent(t, r))
			res.side = append(res.side, r.Side)
			mu.Unlock()
		case strings.HasPrefix(r.Reason, ReasonRetracted):
			res.retracted = append(res.retracted, r)
		default:
			res.rejects = append(res.rejects, r)
		}
	}
	res.stats = src.Stats()
	return res
}

// check compares the connector's net trades with the replay source's.
func check(t *testing.T, res runResult, want map[string]*schemas.Trade) {
	t.Helper()
	if len(res.rejects) > 0 {
		t.Fatalf("%d rejects, first %s: %s", len(res.rejects), res.rejects[0].Raw, res.rejects[0].Reason)
	}
	// Net trades: every emission counts +1, every retraction -1.
	got := map[string]*schemas.Trade{}
	count := map[string]int{}
	for i, tr := range res.trades {
		if i > 0 && tr.EventTimeNs < res.trades[i-1].EventTimeNs && len(res.retracted) == 0 {
			t.Fatalf("trade %d out of block order", i)
		}
		k := key(tr)
		got[k] = tr
		count[k]++
	}
	for _, r := range res.retracted {
		var tx string
		var li uint32
		if _, err := fmt.Sscanf(r.Reason[strings.Index(r.Reason, "(tx "):], "(tx %s log %d)", &tx, &li); err != nil {
			t.Fatalf("retraction reason %q: %v", r.Reason, err)
		}
		k := fmt.Sprintf("%s/%d", strings.TrimSuffix(strings.ToLower(tx), ","), li)
		if count[k] == 0 {
			t.Fatalf("retraction of a trade never emitted: %s", r.Reason)
		}
		count[k]--
	}
	for k, n := range count {
		switch n {
		case 0:
			delete(got, k)
		case 1:
		default:
			t.Fatalf("trade %s emitted %d times net", k, n)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d net trades through the connector, %d from replay", len(got), len(want))
	}
	for k, w := range want {
		g := got[k]
		if g == nil {
			t.Fatalf("trade %s missing", k)
		}
		a, b := proto.Clone(g).(*schemas.Trade), proto.Clone(w).(*schemas.Trade)
		a.Source, b.Source, a.IngestTimeNs, b.IngestTimeNs = "", "", 0, 0
		if !proto.Equal(a, b) {
			t.Fatalf("trade %s differs:\nconnector %v\nreplay    %v", k, a, b)
		}
	}
}

// TestConnectorWebSocket follows heads by subscription with 3
// confirmations: the two-block fork is never read, the disconnect is
// backfilled, shuffled and duplicated answers are put in order and deduped,
// and the trades equal the replay source's.
func TestConnectorWebSocket(t *testing.T) {
	s := newChainServer(t)
	s.start()
	want := replayTrades(t)
	if len(want) != 6046+267 {
		t.Fatalf("replay read %d trades", len(want))
	}
	res := drive(t, s, s.wsURL, 3)
	check(t, res, want)
	if len(res.retracted) != 0 {
		t.Fatalf("%d retractions with 3 confirmations and a 2-block fork", len(res.retracted))
	}
	if res.stats.Reconnects == 0 || res.stats.Duplicates == 0 {
		t.Fatalf("stats %+v: want a reconnect and duplicates", res.stats)
	}
	checkEvents(t, res)
	// The records of mi.pool-events.v1 are those the replay of the same
	// logs yields, byte for byte, in the same order per pool.
	got := map[string][][]byte{}
	for _, r := range res.side {
		got[string(r.Key)] = append(got[string(r.Key)], r.Value)
	}
	wantEv := replayPoolEvents(t)
	if len(got) != 2 || len(wantEv) != 2 {
		t.Fatalf("pool event keys: connector %d, replay %d", len(got), len(wantEv))
	}
	for k, w := range wantEv {
		g := got[k]
		if len(g) != len(w) {
			t.Fatalf("%s: %d pool events through the connector, %d from replay", k, len(g), len(w))
		}
		for i := range w {
			if !bytes.Equal(g[i], w[i]) {
				a, _ := sidetopic.PoolEvents.Decode(g[i])
				b, _ := sidetopic.PoolEvents.Decode(w[i])
				t.Fatalf("%s: pool event %d differs:\nconnector %v\nreplay    %v", k, i, a, b)
			}
		}
	}
}

// replayPoolEvents reads the pool events of both recorded pools with the
// replay source, by key.
func replayPoolEvents(t *testing.T) map[string][][]byte {
	t.Helper()
	out := map[string][][]byte{}
	for _, f := range []string{fileA, fileB} {
		src, err := replay.Open(fixtures.Path(t, f))
		if err != nil {
			t.Fatal(err)
		}
		for {
			r, err := src.Next(context.Background())
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Side != nil {
				out[string(r.Side.Key)] = append(out[string(r.Side.Key)], r.Side.Value)
			}
		}
		src.Close()
	}
	return out
}

// TestConnectorPollingReorg polls over HTTP with no confirmations: the fork's
// extra swaps are emitted, then retracted when the fork is replaced.
func TestConnectorPollingReorg(t *testing.T) {
	s := newChainServer(t)
	s.noSubscribe = true
	s.start()
	want := replayTrades(t)
	res := drive(t, s, s.url, 0)
	if len(res.retracted) == 0 || res.stats.Reorgs == 0 {
		t.Fatalf("no retraction (stats %+v) served %v read %v trades %d", res.stats, s.forkServed, s.forkRead, len(res.trades))
	}
	for _, r := range res.retracted {
		if !strings.Contains(string(r.Raw), `"transactionHash"`) {
			t.Fatalf("retraction raw is not the log: %s", r.Raw)
		}
	}
	check(t, res, want)
	if res.stats.Subscribed {
		t.Fatal("subscribed over HTTP")
	}
}

// checkEvents checks that the pool events, replayed into pool states, end at
// the last recorded swap of each pool.
func checkEvents(t *testing.T, res runResult) {
	t.Helper()
	states := map[string]*operators.PoolState{}
	for _, ev := range res.events {
		st := states[ev.Meta.Address]
		if st == nil {
			st = operators.NewPoolState(ev.Meta)
			states[ev.Meta.Address] = st
		}
		st.Apply(ev)
	}
	if len(states) != 2 {
		t.Fatalf("%d pool states", len(states))
	}
	a := states[strings.ToLower(poolA.Hex())]
	if a.Meta.Fee != 500 || a.Meta.TickSpacing != 10 || a.Meta.Ticker0 != "USDC" || a.Meta.Decimals1 != 18 {
		t.Fatalf("pool meta %+v", a.Meta)
	}
	var last *operators.PoolEvent
	for i := range res.events {
		if ev := &res.events[i]; ev.Kind == operators.PoolSwap && ev.Meta.Address == a.Meta.Address {
			last = ev
		}
	}
	if a.SqrtPriceX96.Cmp(last.SqrtPriceX96) != 0 {
		t.Fatalf("pool state %v, last swap %v", a.SqrtPriceX96, last.SqrtPriceX96)
	}
}
