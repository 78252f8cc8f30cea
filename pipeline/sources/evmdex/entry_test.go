package evmdex

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources"
)

type fakeObserver struct {
	mu     sync.Mutex
	states []string
}

func (o *fakeObserver) SetState(name, state string, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.states = append(o.states, name+"="+state)
}
func (o *fakeObserver) Reconnect(string)                 {}
func (o *fakeObserver) Gap(string, int64, int64, string) {}
func (o *fakeObserver) seen(s string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, x := range o.states {
		if x == s {
			return true
		}
	}
	return false
}

func TestFromEntry(t *testing.T) {
	f := func(raw, wantErr string) {
		t.Helper()
		_, err := FromEntry([]byte(raw), nil, nil)
		if err == nil || !strings.Contains(err.Error(), wantErr) {
			t.Fatalf("FromEntry(%s) = %v, want %q", raw, err, wantErr)
		}
	}
	f(`{"kind":"evmdex","chain":"base","rpc":"ws://x","pools":[{"address":"0x1"}]}`, "not a 20-byte hex address")
	f(`{"kind":"evmdex","chain":"base","rpc":"ws://x","pool":[]}`, "unknown field")
	f(`{"kind":"evmdex","chain":"base","rpc":"ws://x","pools":[]}`, "no pools")
	f(`{"kind":"evmdex","chain":"base","pools":[]}`, "chain and rpc are required")

	// A configured entry follows the local server and reports its state.
	s := newChainServer(t)
	s.start()
	s.advance(s.last)
	obs := &fakeObserver{}
	src, err := FromEntry([]byte(`{"kind":"evmdex","name":"dex:eth","chain":"ethereum","rpc":"`+s.wsURL+`","confirmations":400,"poll_interval":"5ms","max_range":1000,
		"pools":[{"address":"0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640","name":"USDC/WETH 0.05%"}]}`), obs, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if src.Name() != "dex:eth" {
		t.Fatalf("name %q", src.Name())
	}
	// Starting 400 blocks behind the head, it reads forward as the head moves.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go func() {
		for h := s.last; h < s.last+400 && ctx.Err() == nil; h += 10 {
			time.Sleep(2 * time.Millisecond)
			s.advance(h)
		}
	}()
	// The first record is the pool event of the first swap, then its trade.
	r, err := src.Next(ctx)
	if err != nil || r.Side == nil {
		t.Fatalf("Next: %+v %v", r, err)
	}
	if ev := poolEvent(t, r); ev.Kind != operators.PoolSwap || ev.Meta.Fee != 500 || ev.Meta.Name != "USDC/WETH 0.05%" {
		t.Fatalf("pool event %+v of %+v", ev, ev.Meta)
	}
	if r, err = src.Next(ctx); err != nil || r.Trade == nil {
		t.Fatalf("Next: %+v %v", r, err)
	}
	if !obs.seen("dex:eth=connecting") || !obs.seen("dex:eth=running") {
		t.Fatalf("states %v", obs.states)
	}
}

// TestRemovedLogRetracts: a log flagged removed:true retracts the trade its
// earlier copy produced, and a removed log never seen is ignored.
func TestRemovedLogRetracts(t *testing.T) {
	s := newChainServer(t)
	s.start()
	s.advance(s.last)
	src, err := New(Config{ChainConfig: ChainConfig{Chain: "ethereum", RPC: s.url}, Pools: []PoolConfig{{Chain: "ethereum", Address: poolA.Hex()}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c, err := rpc.DialContext(ctx, s.url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ec := ethclient.NewClient(c)
	if err := src.resolve(ctx, ec); err != nil {
		t.Fatal(err)
	}
	b := s.first
	logs := append([]types.Log(nil), s.blocks[b]...)
	for i := range logs {
		logs[i].BlockHash = s.hash(b)
	}
	if err := src.process(ctx, c, logs, b, b); err != nil {
		t.Fatal(err)
	}
	if ev := <-src.out; ev.Side == nil || poolEvent(t, ev).Retracted {
		t.Fatalf("first record %+v", ev)
	}
	first := <-src.out
	if first.Trade == nil {
		t.Fatalf("second record %+v", first)
	}
	removed := logs[0]
	removed.Removed = true
	ghost := removed
	ghost.TxHash = common.HexToHash("0x01")
	if err := src.process(ctx, c, []types.Log{removed, ghost}, b, b); err != nil {
		t.Fatal(err)
	}
	// The retracted pool event comes first, then the retraction of the trade.
	var r sources.Record
	var last operators.PoolEvent
	for r = range src.out {
		if r.Side != nil {
			last = poolEvent(t, r)
			continue
		}
		if r.Trade == nil {
			break
		}
	}
	if !strings.HasPrefix(r.Reason, ReasonRetracted) || !strings.Contains(r.Reason, first.Trade.TradeId) || !strings.Contains(string(r.Raw), first.Trade.TradeId) {
		t.Fatalf("retraction %q %s", r.Reason, r.Raw)
	}
	if !last.Retracted || last.Kind != operators.PoolSwap || last.TxHash != first.Trade.TradeId {
		t.Fatalf("last pool event %+v", last)
	}
	if src.Stats().Retracted != 1 {
		t.Fatalf("stats %+v", src.Stats())
	}
}
