package sidetopic

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/schemas"
)

func TestDLQName(t *testing.T) {
	f := func(name, want string) {
		t.Helper()
		if got := dlqName(name); got != want {
			t.Fatalf("dlqName(%q) = %q, want %q", name, got, want)
		}
	}
	f("mi.trades.v1", "mi.trades.dlq.v1")
	f("mi.pool-events.v1", "mi.pool-events.dlq.v1")
	f("mi.rates.v12", "mi.rates.dlq.v12")
	if PoolEvents.DLQ() != "mi.pool-events.dlq.v1" || PoolEvents.Spec().DLQ != PoolEvents.DLQ() {
		t.Fatal(PoolEvents.Spec())
	}
	seen := map[string]bool{}
	for _, s := range All {
		if seen[s.Name] || seen[s.DLQ] {
			t.Fatalf("topic %s listed twice", s.Name)
		}
		seen[s.Name], seen[s.DLQ] = true, true
	}
}

// TestRecord: a record is keyed by its Key function, encoded
// deterministically, decodes to an equal value, and carries the extra
// headers; a reject names the topic's DLQ.
func TestRecord(t *testing.T) {
	ev := &schemas.PoolEvent{Pool: &schemas.Pool{Chain: "base", Address: "0xd0b5"}, Kind: schemas.PoolEventKind_POOL_EVENT_KIND_SNAPSHOT,
		Block: 7, SqrtPriceX96: "79228162514264337593543950336", Liquidity: "1", Ticks: []*schemas.TickLiquidity{{Tick: -10, LiquidityNet: "5"}, {Tick: 10, LiquidityNet: "-5"}}}
	r := PoolEvents.Record(ev, sources.Header{Key: "origin", Value: []byte("chain")})
	if r.Trade != nil || r.Raw != nil || r.Side == nil || r.Side.Topic != "mi.pool-events.v1" || string(r.Side.Key) != "base|0xd0b5" {
		t.Fatalf("record %+v", r)
	}
	if len(r.Side.Headers) != 1 || r.Side.Headers[0].Key != "origin" {
		t.Fatalf("headers %+v", r.Side.Headers)
	}
	again := PoolEvents.Record(proto.Clone(ev).(*schemas.PoolEvent))
	if !bytes.Equal(r.Side.Value, again.Side.Value) {
		t.Fatal("two encodings of one value differ")
	}
	got, err := PoolEvents.Decode(r.Side.Value)
	if err != nil || !proto.Equal(got, ev) {
		t.Fatalf("decoded %v, %v", got, err)
	}
	if _, err := PoolEvents.Decode([]byte{0xff}); err == nil {
		t.Fatal("garbage decoded")
	}
	rej := PoolEvents.Reject([]byte("raw"), "malformed log: x")
	if rej.DLQ != "mi.pool-events.dlq.v1" || rej.Reason != "malformed log: x" || string(rej.Raw) != "raw" || rej.Side != nil {
		t.Fatalf("reject %+v", rej)
	}
}

// TestEmitter: records come out in order, End drains then ends, Emit after
// End fails, a full buffer blocks Emit until Next or ctx ends.
func TestEmitter(t *testing.T) {
	ctx := context.Background()
	e := NewEmitter("rates:test", 2)
	if e.Name() != "rates:test" {
		t.Fatal(e.Name())
	}
	for i := range 2 {
		if err := e.Emit(ctx, sources.Record{Reason: string(rune('a' + i))}); err != nil {
			t.Fatal(err)
		}
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	if err := e.Emit(short, sources.Record{Reason: "c"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("emit into a full buffer: %v", err)
	}
	cancel()
	nctx, ncancel := context.WithTimeout(ctx, 20*time.Millisecond)
	if r, err := e.Next(nctx); err != nil || r.Reason != "a" {
		t.Fatalf("first %+v %v", r, err)
	}
	ncancel()
	e.End()
	if err := e.Emit(ctx, sources.Record{}); !errors.Is(err, ErrEnded) {
		t.Fatalf("emit after end: %v", err)
	}
	if r, err := e.Next(ctx); err != nil || r.Reason != "b" {
		t.Fatalf("second %+v %v", r, err)
	}
	if _, err := e.Next(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("after the buffer: %v", err)
	}
	e2 := NewEmitter("x", 1)
	wctx, wcancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer wcancel()
	if _, err := e2.Next(wctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("next on an idle emitter: %v", err)
	}
	_ = e2.Close()
	if _, err := e2.Next(ctx); !errors.Is(err, io.EOF) {
		t.Fatalf("next after close: %v", err)
	}
}
