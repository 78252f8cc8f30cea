package e2e

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/marketintel/mi/schemas"
)

// TestSignalChangeLogIsReproducible replays the same simulated market twice
// through the whole pipeline and requires byte-identical signal-change logs:
// every published change, with its algorithm version and key numbers.
func TestSignalChangeLogIsReproducible(t *testing.T) {
	src := "sim:seed=11,start=2026-03-02T00:00:00Z,duration=75m,rate=0.1,events=12,speed=max"
	logOf := func() [][]byte {
		h := startPipeline(t, t.TempDir(), src)
		waitDone(t, h.brokers, 3*time.Minute)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return sortedValues(readAll(ctx, h.brokers, schemas.TopicSignalChanges))
	}
	a, b := logOf(), logOf()
	if len(a) < 20 {
		t.Fatalf("only %d signal changes in 75 simulated minutes; the test needs a busier market", len(a))
	}
	if len(a) != len(b) {
		t.Fatalf("first replay logged %d signal changes, second %d", len(a), len(b))
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			t.Fatalf("signal change %d differs between replays", i)
		}
	}
	t.Logf("%d signal changes, identical across replays", len(a))
}
