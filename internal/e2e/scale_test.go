package e2e

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline"
)

// TestTwoOperatorInstancesOnExternalBrokers runs the roles the way a
// deployment does: a broker of its own (reached through --kafka-brokers, not
// started by Run), one process ingesting, and two operator instances in the
// consumer group — the second joining mid-stream, so the group rebalances
// and partitions move with their state. The distinct candles, documents,
// signal changes and events must equal those of one instance.
func TestTwoOperatorInstancesOnExternalBrokers(t *testing.T) {
	// 56 symbols, so every partition has work.
	src := "sim:seed=3,start=2026-01-05T00:00:00Z,duration=45m,speed=max"

	one := startPipeline(t, t.TempDir(), src)
	waitDone(t, one.brokers, 2*time.Minute)
	want := collectAll(t, one.brokers)

	emb, err := pipeline.StartEmbedded("127.0.0.1:"+strconv.Itoa(freePort(t)), t.TempDir(), quietLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 3)
	run := func(roles []string, instance string, proc *pipeline.ProcessStats, srcs ...string) {
		go func() {
			done <- pipeline.Run(ctx, pipeline.RunConfig{Brokers: brokers, Sources: srcs, Partitions: 4, InstanceID: instance,
				Roles: roles, Operators: operators.DefaultConfig(), ReplaySpeed: 60, Proc: proc, Logger: quietLogger()})
		}()
	}
	a, b := &pipeline.ProcessStats{}, &pipeline.ProcessStats{}
	run([]string{"ingest"}, "ingest", nil, src)
	run([]string{"process"}, "op-a", a)
	// Join mid-stream: once the first instance is well under way.
	for deadline := time.Now().Add(time.Minute); a.Trades.Load() < 50_000 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	run([]string{"process"}, "op-b", b)
	waitDone(t, brokers, 3*time.Minute)
	t.Logf("instance a consumed %d trades (%d restores), instance b %d (%d restores)", a.Trades.Load(), a.Restores.Load(), b.Trades.Load(), b.Restores.Load())
	if a.Trades.Load() == 0 || b.Trades.Load() == 0 {
		t.Errorf("both instances must take partitions: a consumed %d trades, b %d", a.Trades.Load(), b.Trades.Load())
	}
	got := collectAll(t, brokers)
	t.Logf("two instances: %d records produced twice by the rebalance (identical copies)", got.copies)

	if len(want.candles) < 10 || len(want.minutes) < 100 {
		t.Fatalf("reference run too small: %d candles, %d minute documents", len(want.candles), len(want.minutes))
	}
	equal := func(what string, a, b [][]byte) {
		if len(a) != len(b) {
			t.Errorf("%s: two instances %d, one instance %d", what, len(b), len(a))
			return
		}
		for i := range a {
			if string(a[i]) != string(b[i]) {
				t.Errorf("%s: record %d differs", what, i)
				return
			}
		}
	}
	equal("candles", want.candles, got.candles)
	// Not every document of the compacted mi.signals.v1: its log cleaner
	// (every minute) may run during one run and not the other. The minute
	// closes, the latest document per key, the signal changes and the
	// events hold whenever it runs.
	equal("minute documents", want.minutes, got.minutes)
	equal("latest documents", want.latest, got.latest)
	equal("signal changes", want.changes, got.changes)
	equal("alert events", want.events, got.events)
	equal("dead letters", want.dlq, got.dlq)
}
