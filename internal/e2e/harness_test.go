package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/views"
)

// harness runs every pipeline role in process on an embedded broker.
type harness struct {
	brokers []string
	stats   *pipeline.Stats
	proc    *pipeline.ProcessStats
	views   *views.Views
	cancel  context.CancelFunc
	done    chan error
}

func quietLogger() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return slog.New(slog.DiscardHandler)
}

// startPipeline starts pipeline.Run over the given source specs with its
// data under dir and waits for the broker.
func startPipeline(t *testing.T, dir string, srcs ...string) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{stats: pipeline.NewStats(), proc: &pipeline.ProcessStats{}, views: views.New(), cancel: cancel, done: make(chan error, 1)}
	ready := make(chan []string, 1)
	go func() {
		h.done <- pipeline.Run(ctx, pipeline.RunConfig{
			DataDir: dir, Sources: srcs, KafkaListen: "127.0.0.1:" + strconv.Itoa(freePort(t)), Partitions: 4,
			Operators: operators.DefaultConfig(), Views: h.views, Stats: h.stats, Proc: h.proc, Logger: quietLogger(),
			BrokerReady: func(b []string) { ready <- b },
		})
	}()
	select {
	case h.brokers = <-ready:
	case err := <-h.done:
		t.Fatalf("pipeline stopped before the broker was ready: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("broker not ready after 30s")
	}
	t.Cleanup(h.stop)
	return h
}

func (h *harness) stop() {
	h.cancel()
	select {
	case <-h.done:
	case <-time.After(10 * time.Second):
	}
}

// waitDone waits until every source has finished and the operators have
// committed every trade.
func waitDone(t *testing.T, brokers []string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var (
		fin        bool
		lag        int64
		ferr, lerr error
	)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		fin, ferr = sourcesFinished(ctx, brokers)
		lag, lerr = pipeline.Lag(ctx, brokers, "")
		cancel()
		if fin && lerr == nil && lag == 0 {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, iso := range []string{"read_committed", "read_uncommitted"} {
		out, _ := exec.Command("kcat", "-b", brokers[0], "-C", "-t", schemas.TopicSourceOffsets, "-o", "-12", "-e", "-q",
			"-X", "isolation.level="+iso, "-f", "%o %k %s\n").CombinedOutput()
		t.Logf("tail of %s (%s, kcat):\n%s", schemas.TopicSourceOffsets, iso, out)
	}
	t.Fatalf("pipeline did not finish within %s: sources finished %v (%v), operator lag %d (%v)", timeout, fin, ferr, lag, lerr)
}

// sourcesFinished reports whether at least one source checkpoint exists and
// every source's latest checkpoint says it finished.
func sourcesFinished(ctx context.Context, brokers []string) (bool, error) {
	last := map[string]pipeline.Checkpoint{}
	recs, err := readTopic(ctx, brokers, schemas.TopicSourceOffsets)
	if err != nil {
		return false, err
	}
	for _, r := range recs {
		if strings.HasPrefix(string(r.Key), pipeline.SentinelKey) {
			continue
		}
		var cp pipeline.Checkpoint
		if err := json.Unmarshal(r.Value, &cp); err != nil {
			return false, err
		}
		last[string(r.Key)] = cp
	}
	if len(last) == 0 {
		return false, nil
	}
	for name, cp := range last {
		if !cp.Finished {
			return false, fmt.Errorf("source %s: %d records committed, not finished (read %d checkpoint records)", name, cp.Records, len(recs))
		}
	}
	return true, nil
}

// readAll returns every committed record of a topic, up to its last stable
// offset as of the call (pipeline.ReadStable: exact, with no timer).
func readAll(ctx context.Context, brokers []string, topic string) []*kgo.Record {
	out, err := readTopic(ctx, brokers, topic)
	if err != nil {
		panic("cannot read " + topic + ": " + err.Error())
	}
	return out
}

func readTopic(ctx context.Context, brokers []string, topic string) ([]*kgo.Record, error) {
	var out []*kgo.Record
	_, err := pipeline.ReadStable(ctx, brokers, topic, nil, func(r *kgo.Record) { out = append(out, r) })
	return out, err
}

// sortedValues returns the record values sorted, for multiset comparison.
func sortedValues(rs []*kgo.Record) [][]byte {
	vs := make([][]byte, len(rs))
	for i, r := range rs {
		vs[i] = r.Value
	}
	sort.Slice(vs, func(i, j int) bool { return bytes.Compare(vs[i], vs[j]) < 0 })
	return vs
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("cannot find a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
