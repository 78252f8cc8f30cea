package pipeline

import (
	"context"
	"log/slog"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/schemas"
)

// produceSnapshots writes n committed positioning records in transactions
// of 500, keyed over many perps (so every partition has records), and
// returns how many it committed.
func produceSnapshots(t *testing.T, ctx context.Context, brokers []string, txn string, n int, commit bool) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.TransactionalID(txn), kgo.ProducerLinger(time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for i := 0; i < n; {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 500 && i < n; j, i = j+1, i+1 {
			s := &schemas.PerpSnapshot{Venue: "binance", VenueSymbol: "P" + strconv.Itoa(i%97) + "USDT", Symbol: "P" + strconv.Itoa(i%97) + "USD",
				ObservedNs: int64(i+1) * 1e9, ReadNs: int64(i+1) * 1e9, OpenInterest: 1}
			r := sidetopic.Positioning.Record(s).Side
			cl.Produce(ctx, &kgo.Record{Topic: r.Topic, Key: []byte(r.Key), Value: r.Value}, func(_ *kgo.Record, err error) {
				if err != nil {
					t.Error(err)
				}
			})
		}
		if err := cl.Flush(ctx); err != nil {
			t.Fatal(err)
		}
		if err := cl.EndTransaction(ctx, kgo.TransactionEndTry(commit)); err != nil {
			t.Fatal(err)
		}
	}
}

// follow starts FollowSide over a counting view and returns the count at
// the moment ready was closed, and the final count once nothing more
// arrives.
func follow(t *testing.T, ctx context.Context, brokers []string) (atReady int64, view *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	sv := ViewOf(sidetopic.Positioning, func(*schemas.PerpSnapshot) error { n.Add(1); return nil })
	ready := make(chan struct{})
	fctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = FollowSide(fctx, brokers, []SideView{sv}, slog.New(slog.DiscardHandler), ready)
	}()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-ready:
	case <-ctx.Done():
		t.Fatalf("not ready; %d records applied", n.Load())
	}
	return n.Load(), &n
}

// Readiness means the backlog was applied: on a machine kept busy by
// goroutines spinning on every core (a loaded machine gives empty polls
// before the backlog is read, which the first empty poll used to take for
// the end), each of several followers has applied every committed record
// the moment it says ready, and not one of an aborted transaction at the
// tail, whose marker it is handed and steps over.
func TestFollowSideReadyMeansBacklogApplied(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	emb, err := StartEmbedded("127.0.0.1:0", "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 4); err != nil {
		t.Fatal(err)
	}
	const committed = 30_000
	produceSnapshots(t, ctx, brokers, "ready-test", committed, true)
	produceSnapshots(t, ctx, brokers, "ready-test-aborted", 700, false)

	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !stop.Load() {
				for i := range 100_000 {
					x += i
				}
			}
			_ = x
		}()
	}
	for i := range 3 {
		at, n := follow(t, ctx, brokers)
		if at != committed {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("follower %d said ready with %d of %d records applied", i, at, committed)
		}
		if got := n.Load(); got != committed {
			t.Fatalf("follower %d applied %d records, want %d", i, got, committed)
		}
	}
	stop.Store(true)
	wg.Wait()

	// An empty topic is ready at once.
	emb2, err := StartEmbedded("127.0.0.1:0", "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer emb2.Close()
	if err := EnsureTopics(ctx, []string{emb2.Addr()}, 2); err != nil {
		t.Fatal(err)
	}
	if at, _ := follow(t, ctx, []string{emb2.Addr()}); at != 0 {
		t.Fatalf("%d records on an empty topic", at)
	}
}

// A transaction cut off by a restart of the embedded broker (its records
// written, never committed) leaves the follower of the restarted broker
// ready with exactly the committed records applied.
func TestFollowSideReadyAfterCrashAbortedTail(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	dir := t.TempDir()
	emb, err := StartEmbedded("127.0.0.1:0", dir, quiet)
	if err != nil {
		t.Fatal(err)
	}
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 2); err != nil {
		t.Fatal(err)
	}
	produceSnapshots(t, ctx, brokers, "crash-test", 1000, true)
	// A transaction left open: its records are written, then the broker
	// goes away before the commit.
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.TransactionalID("crash-open"))
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.BeginTransaction(); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		r := sidetopic.Positioning.Record(&schemas.PerpSnapshot{Venue: "bybit", VenueSymbol: "Q" + strconv.Itoa(i) + "USDT", ObservedNs: 1}).Side
		cl.Produce(ctx, &kgo.Record{Topic: r.Topic, Key: []byte(r.Key), Value: r.Value}, nil)
	}
	if err := cl.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	emb.Close()
	cl.Close()
	emb, err = StartEmbedded("127.0.0.1:0", dir, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	at, n := follow(t, ctx, []string{emb.Addr()})
	if at != 1000 || n.Load() != 1000 {
		t.Fatalf("ready with %d records applied (%d later), want 1000", at, n.Load())
	}
}

// nextVisible reads a partition's log as a read-committed consumer would:
// from inside an aborted transaction it lands on the transaction's marker
// (the next record such a consumer is handed), from a committed record on
// that record, and at the end it stays there.
func TestNextVisible(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	emb, err := StartEmbedded("127.0.0.1:0", "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 1); err != nil {
		t.Fatal(err)
	}
	// One partition: 500 committed (0..499), marker 500; 500 aborted
	// (501..1000), marker 1001; 500 committed (1002..1501), marker 1502.
	produceSnapshots(t, ctx, brokers, "nv-a", 500, true)
	produceSnapshots(t, ctx, brokers, "nv-b", 500, false)
	produceSnapshots(t, ctx, brokers, "nv-c", 500, true)
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	bl, err := sideBacklogOf(ctx, cl, []string{sidetopic.Positioning.Name})
	if err != nil {
		t.Fatal(err)
	}
	k := sidePart{sidetopic.Positioning.Name, 0}
	if bl.end[k] != 1503 || bl.pos[k] != 0 {
		t.Fatalf("backlog end %d pos %d, want 1503 and 0", bl.end[k], bl.pos[k])
	}
	f := func(from, want int64) {
		t.Helper()
		got, err := nextVisible(ctx, cl, bl.leader[k], k.topic, bl.ids[k.topic], 0, from, bl.end[k])
		if err != nil || got != want {
			t.Fatalf("nextVisible(%d) = %d, %v; want %d", from, got, err, want)
		}
	}
	f(0, 0)
	f(499, 499)
	f(500, 500)   // the commit marker
	f(501, 1001)  // inside the aborted transaction: its marker
	f(1000, 1001) // its last record
	f(1002, 1002)
	f(1503, 1503) // the end
}
