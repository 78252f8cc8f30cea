package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/schemas"
)

// pacing is one way of running the same replay.
type pacing struct {
	name string
	// procs is the mi process's GOMAXPROCS.
	procs int
	// speed is --replay-speed; checkpoint and flush are
	// --checkpoint-interval and --parquet-flush-interval.
	speed, checkpoint, flush string
	// ownBroker runs mi on its embedded broker (killed with it); otherwise
	// on a broker of the test that outlives every kill of mi.
	ownBroker bool
	// compactEvery runs the test broker's log cleaner this often (0: never
	// in the run), fetchJitter delays every fetch of every consumer by a
	// random time up to it.
	compactEvery, fetchJitter time.Duration
	// kills are the times after each start at which mi gets SIGKILL; a
	// last start then runs to the end.
	kills []time.Duration
}

// TestReplayIsDeterministicUnderAnyPacing replays one real capture (Tardis
// Binance futures BTCUSDT, 2 h 06 min, 9,999 trades) through the mi binary
// under deliberately different pacing, and requires every output to be
// byte-identical to the reference run's: candles, the documents taken at
// each minute close, the latest document per symbol and window, every
// document where the broker did not compact, signal changes, alert events,
// dead letters, and the Parquet history (candles, signals, trades, signal
// changes). The pacings differ in GOMAXPROCS (1 and 2), replay speed (max
// and 900× real time), checkpoint interval (100 ms to 2 s), Parquet flush
// interval, consumers delayed at random on every fetch while the broker
// compacts several times a second, and SIGKILLs of mi, once with the
// broker outliving them and once with the embedded broker dying too.
func TestReplayIsDeterministicUnderAnyPacing(t *testing.T) {
	capture := "replay:" + fixtures.Path(t, "trades/tardis_binance-futures_BTCUSDT_trades_2020-02-22.csv")
	jitter := func(d time.Duration) time.Duration { return d/2 + rand.N(d) } // d/2 .. 3d/2
	ref := runPacing(t, capture, pacing{name: "reference", procs: 2, speed: "max", checkpoint: "1s", flush: "1s"})
	if len(ref.candles) < 100 || len(ref.minutes) < 300 || len(ref.changes) < 50 || len(ref.events) < 1 || len(ref.docs) < 5000 {
		t.Fatalf("reference run produced too little to compare: %d candles, %d minute documents, %d documents, %d signal changes, %d events",
			len(ref.candles), len(ref.minutes), len(ref.docs), len(ref.changes), len(ref.events))
	}
	for _, p := range []pacing{
		{name: "one-core-slow-jittered-compacting", procs: 1, speed: "900", checkpoint: "100ms", flush: "300ms",
			compactEvery: 200 * time.Millisecond, fetchJitter: 100 * time.Millisecond},
		{name: "mi-killed", procs: 2, speed: "900", checkpoint: "2s", flush: "1s",
			kills: []time.Duration{jitter(3 * time.Second), jitter(3 * time.Second)}},
		{name: "mi-and-broker-killed", procs: 1, speed: "900", checkpoint: "700ms", flush: "2s", ownBroker: true,
			kills: []time.Duration{jitter(4 * time.Second)}},
	} {
		got := runPacing(t, capture, p)
		same := func(what string, a, b [][]byte, m proto.Message) {
			t.Helper()
			if len(a) != len(b) {
				t.Errorf("%s: %s has %d records, reference %d", p.name, what, len(b), len(a))
			}
			for i := range min(len(a), len(b)) {
				if !bytes.Equal(a[i], b[i]) {
					if m != nil {
						t.Errorf("%s: %s record %d differs:\nreference: %s\n%s: %s", p.name, what, i, textOf(a[i], m), p.name, textOf(b[i], m))
					} else {
						t.Errorf("%s: %s record %d differs:\nreference: %s\n%s: %s", p.name, what, i, a[i], p.name, b[i])
					}
					return
				}
			}
		}
		same("candles", ref.candles, got.candles, &schemas.Candle{})
		same("minute documents", ref.minutes, got.minutes, &schemas.IntelligenceDocument{})
		same("latest documents", ref.latest, got.latest, &schemas.IntelligenceDocument{})
		if p.compactEvery == 0 && !p.ownBroker {
			same("documents", ref.docs, got.docs, &schemas.IntelligenceDocument{})
		}
		same("signal changes", ref.changes, got.changes, &schemas.SignalChange{})
		same("alert events", ref.events, got.events, nil)
		same("dead letters", ref.dlq, got.dlq, &schemas.Trade{})
		for _, ds := range historyDatasets {
			same("Parquet "+ds, ref.parquet[ds], got.parquet[ds], nil)
		}
		t.Logf("%s: identical to the reference (%d records produced twice, identical copies)", p.name, got.copies)
	}
}

// historyDatasets are the Parquet datasets a run writes.
var historyDatasets = []string{"candles", "signals", "trades", "signal_changes"}

// replayOutputs is everything one run left behind, each distinct record
// once, sorted.
type replayOutputs struct {
	runOutputs
	minutes, latest, changes, events [][]byte
	parquet                          map[string][][]byte
}

// runPacing runs mi over capture with pacing p until the operators and the
// Parquet sink have consumed everything, and collects the outputs.
func runPacing(t *testing.T, capture string, p pacing) replayOutputs {
	t.Helper()
	start := time.Now()
	dir := filepath.Join(t.TempDir(), p.name)
	var brokers []string
	port := freePort(t)
	if p.ownBroker {
		brokers = []string{"127.0.0.1:" + strconv.Itoa(port)}
	} else {
		brokers = testBroker(t, p.compactEvery, p.fetchJitter)
	}
	args := []string{"run", "--data-dir", dir, "--http-addr", "127.0.0.1:" + strconv.Itoa(freePort(t)), "--log-format", "json",
		"--source", capture, "--replay-speed", p.speed, "--checkpoint-interval", p.checkpoint, "--parquet-flush-interval", p.flush,
		"--retention", "off"}
	if p.ownBroker {
		args = append(args, "--kafka-listen", brokers[0])
	} else {
		args = append(args, "--kafka-brokers", brokers[0])
	}
	startOne := func() *miProc {
		cmd := exec.Command(miBinary(t), args...)
		cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(p.procs))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatalf("cannot start mi: %v", err)
		}
		return &miProc{cmd: cmd, out: &out}
	}
	for i, after := range p.kills {
		mp := startOne()
		time.Sleep(after)
		mp.kill(t)
		t.Logf("%s: SIGKILL %d after %s", p.name, i+1, after.Round(time.Millisecond))
	}
	mp := startOne()
	defer func() {
		if t.Failed() {
			t.Logf("%s: mi output:\n%s", p.name, mp.out.String())
		}
	}()
	waitDone(t, brokers, 3*time.Minute)
	waitGroup(t, brokers, pipeline.ParquetGroup, 2*time.Minute,
		schemas.TopicCandles, schemas.TopicSignalMinutes, schemas.TopicTrades, schemas.TopicSignalChanges)
	out := collectAll(t, brokers)
	mp.stop(t)
	if code := mp.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("%s: mi exited with %d after SIGTERM", p.name, code)
	}
	out.parquet = readHistory(t, dir)
	t.Logf("%s: %d candles, %d minute documents, %d documents, %d signal changes, %d events, %d Parquet signal rows in %s",
		p.name, len(out.candles), len(out.minutes), len(out.docs), len(out.changes), len(out.events), len(out.parquet["signals"]), time.Since(start).Round(time.Millisecond))
	return out
}

// collectAll reads every output topic of a finished run (each distinct
// record once, sorted): candles, documents (all, as the broker still has
// them), dead letters, minute-close documents, signal changes, alert
// events, and the latest document per key, which compaction keeps.
func collectAll(t *testing.T, brokers []string) replayOutputs {
	t.Helper()
	var out replayOutputs
	out.runOutputs = collect(t, brokers)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out.minutes = distinctValues(t, ctx, brokers, schemas.TopicSignalMinutes, &out.copies, func(v []byte) string {
		var d schemas.IntelligenceDocument
		_ = proto.Unmarshal(v, &d)
		return d.Id
	})
	out.changes = distinctValues(t, ctx, brokers, schemas.TopicSignalChanges, &out.copies, func(v []byte) string {
		var c schemas.SignalChange
		_ = proto.Unmarshal(v, &c)
		return c.Symbol + "|" + c.Window + "|" + c.DocumentId
	})
	out.events = distinctValues(t, ctx, brokers, schemas.TopicEvents, &out.copies, func(v []byte) string {
		i := bytes.Index(v, []byte(`"event"`)) // the id comes first: {"id":"evt_…",
		return string(v[:max(i, 0)])
	})
	latest := map[string][]byte{}
	for _, r := range readAll(ctx, brokers, schemas.TopicSignals) {
		if string(r.Key) == pipeline.SentinelKey {
			continue
		}
		latest[string(r.Key)] = r.Value // read in offset order per partition; a key lives in one partition
	}
	for _, v := range latest {
		out.latest = append(out.latest, v)
	}
	sortBytes(out.latest)
	return out
}

// distinctValues reads a topic and returns each distinct record once,
// sorted; two different records with the same key fail the test (outputs
// produced again after a crash must be identical copies).
func distinctValues(t *testing.T, ctx context.Context, brokers []string, topic string, copies *int, key func([]byte) string) [][]byte {
	t.Helper()
	byKey := map[string][]byte{}
	for _, r := range readAll(ctx, brokers, topic) {
		if string(r.Key) == pipeline.SentinelKey {
			continue // a reader's end marker (pipeline.ReadCommitted), not an output
		}
		k := key(r.Value)
		if prev, ok := byKey[k]; ok {
			if !bytes.Equal(prev, r.Value) {
				t.Errorf("%s: two different records for %s", topic, k)
			}
			*copies++
			continue
		}
		byKey[k] = r.Value
	}
	vs := make([][]byte, 0, len(byKey))
	for _, v := range byKey {
		vs = append(vs, v)
	}
	sortBytes(vs)
	return vs
}

func sortBytes(vs [][]byte) {
	sort.Slice(vs, func(i, j int) bool { return bytes.Compare(vs[i], vs[j]) < 0 })
}

// waitGroup waits until a consumer group has committed every committed
// record of the topics.
func waitGroup(t *testing.T, brokers []string, group string, timeout time.Duration, topics ...string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		lag, err := pipeline.GroupLag(ctx, brokers, group, topics...)
		cancel()
		if err == nil && lag == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("group %s did not catch up within %s: lag %d (%v)", group, timeout, lag, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// testBroker starts a broker for the test that outlives the mi processes
// it serves. Its log cleaner runs every compactEvery (0: not within the
// test), and every fetch is answered after a random delay of up to jitter.
func testBroker(t *testing.T, compactEvery, jitter time.Duration) []string {
	t.Helper()
	if compactEvery == 0 {
		compactEvery = 24 * time.Hour
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.BrokerConfigs(map[string]string{
		"transaction.max.timeout.ms": "900000",
		"message.max.bytes":          strconv.Itoa(pipeline.MaxRecordBytes),
		"log.cleaner.backoff.ms":     strconv.FormatInt(compactEvery.Milliseconds(), 10),
	}))
	if err != nil {
		t.Fatalf("cannot start the test broker: %v", err)
	}
	t.Cleanup(c.Close)
	if jitter > 0 {
		c.ControlKey(int16(kmsg.Fetch), func(kmsg.Request) (kmsg.Response, error, bool) {
			c.KeepControl()
			d := rand.N(jitter)
			c.SleepControl(func() { time.Sleep(d) })
			return nil, nil, false
		})
	}
	return c.ListenAddrs()
}

// readHistory returns the distinct rows of each Parquet dataset under dir
// (day files and staged parts alike), rendered as text and sorted.
func readHistory(t *testing.T, dir string) map[string][][]byte {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out := map[string][][]byte{}
	for _, ds := range historyDatasets {
		var files []string
		for _, root := range []string{filepath.Join(dir, ds), filepath.Join(dir, "staging", ds)} {
			_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && strings.HasSuffix(p, ".parquet") {
					files = append(files, "'"+p+"'")
				}
				return nil
			})
		}
		if len(files) == 0 {
			t.Errorf("no Parquet files of %s under %s", ds, dir)
			continue
		}
		rows, err := db.Query("SELECT DISTINCT * FROM read_parquet([" + strings.Join(files, ",") + "], hive_partitioning = true, union_by_name = true) ORDER BY ALL")
		if err != nil {
			t.Fatalf("cannot read the %s dataset: %v", ds, err)
		}
		cols, _ := rows.Columns()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			for i, v := range vals {
				fmt.Fprintf(&b, "%s=%v ", cols[i], v)
			}
			out[ds] = append(out[ds], []byte(b.String()))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return out
}
