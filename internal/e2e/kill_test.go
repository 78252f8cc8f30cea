package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/schemas"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// miBinary builds cmd/mi once per test run.
func miBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mi-e2e-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "mi")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/marketintel/mi/cmd/mi").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatalf("cannot build mi: %v", buildErr)
	}
	return binPath
}

// miProc is one mi run subprocess.
type miProc struct {
	cmd *exec.Cmd
	out *bytes.Buffer
}

func startMi(t *testing.T, dir string, kafkaPort int, args ...string) *miProc {
	t.Helper()
	all := append([]string{"run", "--data-dir", dir, "--http-addr", "127.0.0.1:" + strconv.Itoa(freePort(t)),
		"--kafka-listen", "127.0.0.1:" + strconv.Itoa(kafkaPort), "--log-format", "json"}, args...)
	cmd := exec.Command(miBinary(t), all...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("cannot start mi: %v", err)
	}
	return &miProc{cmd: cmd, out: &out}
}

func (p *miProc) kill(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	_ = p.cmd.Wait()
}

func (p *miProc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(15 * time.Second):
		p.kill(t)
	}
}

// runOutputs is what a finished run left on its topics: each distinct
// record once, sorted. Outputs are deterministic, so a record the pipeline
// produced twice (after a crash during a commit, see docs/topics.md) is
// byte-identical to its first copy; two different records for the same
// candle or document would be a real divergence and fail the test.
type runOutputs struct {
	candles, docs, dlq [][]byte
	copies             int // records seen more than once
}

func collect(t *testing.T, brokers []string) runOutputs {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out runOutputs
	distinct := func(topic string, key func([]byte) string) [][]byte {
		byKey := map[string][]byte{}
		for _, r := range readAll(ctx, brokers, topic) {
			k := key(r.Value)
			if prev, ok := byKey[k]; ok {
				if !bytes.Equal(prev, r.Value) {
					t.Errorf("%s: two different records for %s", topic, k)
				}
				out.copies++
				continue
			}
			byKey[k] = r.Value
		}
		vs := make([][]byte, 0, len(byKey))
		for _, v := range byKey {
			vs = append(vs, v)
		}
		sort.Slice(vs, func(i, j int) bool { return bytes.Compare(vs[i], vs[j]) < 0 })
		return vs
	}
	out.candles = distinct(schemas.TopicCandles, func(v []byte) string {
		var c schemas.Candle
		_ = proto.Unmarshal(v, &c)
		return fmt.Sprintf("%s|%s|%d|%s|%d", c.Venue, c.Chain, c.VenueKind, c.Symbol, c.StartNs)
	})
	out.docs = distinct(schemas.TopicSignals, func(v []byte) string {
		var d schemas.IntelligenceDocument
		_ = proto.Unmarshal(v, &d)
		return d.Id
	})
	out.dlq = distinct(schemas.TopicTradesDLQ, func(v []byte) string { return string(v) })
	return out
}

// TestKillRestartExactlyOnce runs mi over a replay twice: once without
// interruption, once killed with SIGKILL at several points and restarted on
// the same data directory. Exactly-once effect means both leave exactly the
// same candles, documents (minute closes and the latest per key), signal
// changes, alert events and dead letters.
func TestKillRestartExactlyOnce(t *testing.T) {
	replay := "replay:" + fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz") + "," +
		fixtures.Path(t, "trades/binance_spot_BTCUSDT_ws_raw_2024-08-09.txt.gz") + "," +
		fixtures.Path(t, "trades/binance_spot_ETHUSDT_ws_raw_2024-08-08.txt.gz") + "," +
		fixtures.Path(t, "trades/binance_spot_ETHUSDT_ws_raw_2024-08-09.txt.gz")
	args := []string{"--source", replay, "--replay-speed", "60"}

	run := func(name string, kills []time.Duration) replayOutputs {
		dir := filepath.Join(t.TempDir(), name)
		port := freePort(t)
		brokers := []string{"127.0.0.1:" + strconv.Itoa(port)}
		for i, after := range kills {
			p := startMi(t, dir, port, args...)
			time.Sleep(after)
			p.kill(t)
			t.Logf("%s: killed run %d after %s", name, i+1, after)
		}
		p := startMi(t, dir, port, args...)
		defer p.stop(t)
		func() {
			defer func() {
				if t.Failed() {
					t.Logf("mi output:\n%s", p.out.String())
				}
			}()
			waitDone(t, brokers, 3*time.Minute)
		}()
		return collectAll(t, brokers)
	}
	want := run("uninterrupted", nil)
	got := run("killed", []time.Duration{1500 * time.Millisecond, 2500 * time.Millisecond, 700 * time.Millisecond, 3 * time.Second})
	t.Logf("killed run: %d records produced twice (identical copies)", got.copies)

	if len(want.candles) < 20 || len(want.minutes) < 20 || len(want.latest) < 6 {
		t.Fatalf("reference run produced too little to compare: %d candles, %d minute documents, %d latest documents", len(want.candles), len(want.minutes), len(want.latest))
	}
	same := func(what string, a, b [][]byte, m proto.Message) {
		if len(a) != len(b) {
			t.Errorf("%s: killed run has %d records, uninterrupted %d", what, len(b), len(a))
		}
		for i := range min(len(a), len(b)) {
			if !bytes.Equal(a[i], b[i]) {
				if m == nil {
					t.Errorf("%s: record %d differs:\nuninterrupted: %s\nkilled:        %s", what, i, a[i], b[i])
				} else {
					t.Errorf("%s: record %d differs:\nuninterrupted: %s\nkilled:        %s", what, i, textOf(a[i], m), textOf(b[i], m))
				}
				return
			}
		}
	}
	same("candles", want.candles, got.candles, &schemas.Candle{})
	// Every document is compared where the broker keeps them all; its log
	// cleaner (every minute) may run in one run and not the other, so the
	// comparison that holds whenever it runs is the minute closes and the
	// latest document per key.
	same("minute documents", want.minutes, got.minutes, &schemas.IntelligenceDocument{})
	same("latest documents", want.latest, got.latest, &schemas.IntelligenceDocument{})
	same("signal changes", want.changes, got.changes, &schemas.SignalChange{})
	same("alert events", want.events, got.events, nil)
	same("dead letters", want.dlq, got.dlq, &schemas.Trade{})
}

// textOf renders a record value for a failure message.
func textOf(b []byte, m proto.Message) string {
	m = m.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(b, m); err != nil {
		return fmt.Sprintf("%x", b)
	}
	return prototext.MarshalOptions{}.Format(m)
}
