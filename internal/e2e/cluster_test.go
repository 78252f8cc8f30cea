package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/internal/kafkacluster"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/schemas"
)

// clusterCapture is the real capture the cluster suite replays: Binance spot
// BTCUSDT and ETHUSDT, 2024-08-08 23:54 to 2024-08-09 00:05 (34,419 trades
// over UTC midnight, so the first day's Parquet day files are compacted).
func clusterCapture(t *testing.T) string {
	var paths []string
	for _, f := range []string{"binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz", "binance_spot_BTCUSDT_ws_raw_2024-08-09.txt.gz",
		"binance_spot_ETHUSDT_ws_raw_2024-08-08.txt.gz", "binance_spot_ETHUSDT_ws_raw_2024-08-09.txt.gz"} {
		paths = append(paths, fixtures.Path(t, "trades/"+f))
	}
	return "replay:" + strings.Join(paths, ",")
}

// apiQueries are the answers two API instances must agree on: live views
// (documents, summary, rankings) and history (candles and datasets from the
// shared day files).
var apiQueries = []string{
	"/api/v1/intelligence/BTCUSD?window=1m", "/api/v1/intelligence/BTCUSD?window=5m", "/api/v1/intelligence/ETHUSD?window=15m",
	"/api/v1/intelligence/summary?window=5m", "/api/v1/intelligence/top-momentum?window=1m", "/api/v1/intelligence/events",
	"/api/v1/intelligence/candles/BTCUSD?interval=1m&from=2024-08-08T23:50:00Z&to=2024-08-09T00:10:00Z",
	"/api/v1/intelligence/candles/ETHUSD?interval=5m&from=2024-08-08T23:50:00Z&to=2024-08-09T00:10:00Z",
	"/api/v1/datasets",
}

// TestRolesOnKafkaClusterSurviveCrashes runs every role as its own mi
// process on a three-node Apache Kafka cluster — one ingest, two
// processing instances in one consumer group, two API instances, one
// Parquet sink, one alert outbox and dispatcher — over a real capture. While
// the capture plays, a processing instance is killed with SIGKILL (its
// partitions move to the other), the broker leading mi.trades.v1[0] is killed
// with SIGKILL and restarted, and an API instance is killed and started
// again. At the end the candles, documents, signal changes, dead letters and
// Parquet history equal those of an embedded single-process run of the same
// capture (day files byte for byte), both API instances answer exactly as
// the single process does, and the alert outbox holds every event once.
func TestRolesOnKafkaClusterSurviveCrashes(t *testing.T) {
	capture := clusterCapture(t)
	clusterReady := kafkacluster.Begin(t, 3) // the JVMs start while the reference runs
	ref := referenceRun(t, capture)
	t.Logf("reference (embedded, one process): %d candles, %d minute documents, %d latest documents, %d signal changes, %d events",
		len(ref.out.candles), len(ref.out.minutes), len(ref.out.latest), len(ref.out.changes), len(ref.out.events))
	if len(ref.out.candles) < 20 || len(ref.out.minutes) < 60 || len(ref.out.changes) < 1 {
		t.Fatalf("reference run produced too little to compare")
	}

	kc := clusterReady()
	brokers := strings.Join(kc.Brokers, ",")
	pg := postgresSchema(t)
	shared := filepath.Join(t.TempDir(), "history") // the day-file volume: the sink writes, the API instances read
	scratch := t.TempDir()
	role := func(name, cmd string, args ...string) *roleProc {
		return startRole(t, name, cmd, append([]string{"--kafka-brokers", brokers}, args...)...)
	}
	procA := role("process-a", "process", "--instance-id", "process-a", "--group-session-timeout", "6s", "--data-dir", filepath.Join(scratch, "a"))
	procB := role("process-b", "process", "--instance-id", "process-b", "--group-session-timeout", "6s", "--data-dir", filepath.Join(scratch, "b"))
	sink := role("sink", "sink", "--data-dir", shared, "--retention", "off")
	dispatch := role("alerts", "alerts", "--database-url", pg, "--data-dir", filepath.Join(scratch, "alerts"))
	apiArgs := []string{"--data-dir", shared, "--database-url", pg}
	apiA := role("serve-a", "serve", apiArgs...)
	apiB := role("serve-b", "serve", apiArgs...)
	for _, p := range []*roleProc{procA, procB, sink, dispatch, apiA, apiB} {
		p.waitReady(t, 2*time.Minute)
	}
	checkTopicSettings(t, kc.Brokers)
	ingest := role("ingest", "ingest", "--source", capture, "--replay-speed", "15", "--data-dir", filepath.Join(scratch, "ingest"))
	ingest.waitReady(t, time.Minute)

	// Faults, while the capture plays (about 45 s at 15x).
	// The capture has two symbols: whichever instance owns their partitions
	// does the work, and is the one killed.
	const trades = `mi_operator_events_total{kind="trades"}`
	deadline := time.Now().Add(time.Minute)
	for procA.metric(t, trades)+procB.metric(t, trades) < 3000 {
		if time.Now().After(deadline) {
			t.Fatalf("the processing instances consumed %v and %v trades in a minute", procA.metric(t, trades), procB.metric(t, trades))
		}
		time.Sleep(100 * time.Millisecond)
	}
	victim, survivor := procA, procB
	if procB.metric(t, trades) > procA.metric(t, trades) {
		victim, survivor = procB, procA
	}
	victim.kill(t)
	t.Logf("SIGKILL %s after %v trades; its partitions go to %s after the 6 s session timeout", victim.name, victim.lastMetric, survivor.name)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl := kc.Brokers
	leader, err := kc.Leader(ctx, schemas.TopicTrades, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The capture's documents fire no alert event (unusual_flow needs a 5m
	// document with a confidenceScore of 60), so alert events made by the
	// detector from synthetic documents are produced straight onto
	// mi.events.v1 around the broker's crash — one before, the rest while
	// it is down, the first again after its restart — and the outbox must
	// hold each once.
	injected := syntheticAlertEvents(t)
	produceEvents(t, cl, injected[:1])
	time.Sleep(2 * time.Second)
	kc.Kill(leader)
	t.Logf("SIGKILL Kafka node %d (leader of %s[0])", leader, schemas.TopicTrades)
	produceEvents(t, cl, injected[1:])
	time.Sleep(time.Second)
	kc.Restart(leader)
	t.Logf("Kafka node %d restarted", leader)
	produceEvents(t, cl, injected[:1])
	apiA.kill(t)
	apiA = role("serve-a", "serve", apiArgs...)
	apiA.waitReady(t, 2*time.Minute)
	t.Logf("API instance a killed and started again")

	waitDone(t, cl, 5*time.Minute)
	if err := kc.WaitInSync(ctx); err != nil {
		t.Fatalf("after the broker restart: %v", err)
	}
	waitGroup(t, cl, pipeline.ParquetGroup, 2*time.Minute, pipeline.ParquetTopics...)
	waitGroup(t, cl, pipeline.OutboxGroup, 2*time.Minute, schemas.TopicEvents)
	if n := survivor.metric(t, trades); n == 0 {
		t.Errorf("%s consumed no trade: the group never moved %s's partitions", survivor.name, victim.name)
	}
	sink.stop(t) // its last flush: everything consumed is in part files, closed days compacted

	// Topics.
	got := collectAll(t, cl)
	sameRecords(t, "candles", ref.out.candles, got.candles, &schemas.Candle{})
	sameRecords(t, "minute documents", ref.out.minutes, got.minutes, &schemas.IntelligenceDocument{})
	sameRecords(t, "latest documents", ref.out.latest, got.latest, &schemas.IntelligenceDocument{})
	sameRecords(t, "signal changes", ref.out.changes, got.changes, &schemas.SignalChange{})
	sameRecords(t, "dead letters", ref.out.dlq, got.dlq, &schemas.Trade{})
	sameRecords(t, "alert events", ref.out.events, withoutEvents(got.events, injected), nil)
	if n := len(got.events) - len(ref.out.events); n != len(injected) {
		t.Errorf("mi.events.v1 holds %d of the %d synthetic alert events", n, len(injected))
	}
	t.Logf("cluster run: %d records produced twice by the crashes (identical copies)", got.copies)

	// Parquet: day files byte for byte, open days' staged rows as a set.
	refDays, gotDays := dayFiles(t, ref.dir), dayFiles(t, shared)
	if len(refDays) == 0 {
		t.Errorf("the reference run compacted no day file")
	}
	sameDays := 0
	for rel, b := range refDays {
		if g, ok := gotDays[rel]; !ok {
			t.Errorf("day file %s: missing from the cluster run", rel)
		} else if !bytes.Equal(b, g) {
			t.Errorf("day file %s differs: %d bytes in the reference, %d in the cluster run", rel, len(b), len(g))
		} else {
			sameDays++
		}
	}
	for rel := range gotDays {
		if _, ok := refDays[rel]; !ok {
			t.Errorf("day file %s: only in the cluster run", rel)
		}
	}
	refRows, gotRows := readHistory(t, ref.dir), readHistory(t, shared)
	for ds, rows := range refRows {
		sameRecords(t, "Parquet "+ds, rows, gotRows[ds], nil)
	}

	// The API instances: both answer as the single process does.
	for _, q := range apiQueries {
		want := ref.answers[q]
		a, b := apiA.get(t, q), apiB.get(t, q)
		if a != b {
			t.Errorf("GET %s: the two API instances differ: %s", q, firstDiff(a, b))
		}
		if a != want {
			t.Errorf("GET %s: the cluster's answer differs from the single process's: %s", q, firstDiff(a, want))
		}
	}

	// The alert outbox holds each event of mi.events.v1 once.
	db, err := sql.Open("pgx", pg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var stored int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM alert_events`).Scan(&stored); err != nil {
		t.Fatalf("cannot count the outbox's events: %v", err)
	}
	if stored != len(got.events) {
		t.Errorf("alert outbox holds %d events, mi.events.v1 has %d distinct", stored, len(got.events))
	}
	t.Logf("%d candles, %d minute documents, %d signal changes, %d alert events; %d day files identical; %d API answers compared",
		len(got.candles), len(got.minutes), len(got.changes), len(got.events), sameDays, len(apiQueries))
}

// syntheticAlertEvents returns the alert events the detector makes of a
// few synthetic documents (2026, outside the capture): two unusual_flow
// and one decision_change.
func syntheticAlertEvents(t *testing.T) []operators.AlertEvent {
	t.Helper()
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	doc := func(sym, window string, at time.Duration, ev string, conf float64, sig string) *schemas.IntelligenceDocument {
		return &schemas.IntelligenceDocument{Id: sym + window + at.String(), Symbol: sym, Window: window,
			TimestampNs: t0.Add(at).UnixNano(), EventType: ev, ConfidenceScore: conf, Signal: sig}
	}
	det := operators.NewAlertDetector()
	var events []operators.AlertEvent
	for _, d := range []*schemas.IntelligenceDocument{
		doc("BTCUSD", "5m", 0, operators.EventBreakout, 80, operators.SignalBullish),
		doc("BTCUSD", "5m", 70*time.Minute, operators.EventBreakout, 85, operators.SignalBullish),
	} {
		events = det.Push(d, events)
	}
	events = append(events, syntheticDecisionChange(t0)...)
	if len(events) != 3 {
		t.Fatalf("the detector made %d synthetic alert events, want 3", len(events))
	}
	return events
}

// syntheticDecisionChange returns the one decision_change the hourly
// decision makes of ETHUSD trading on a DEX for two hours from t0: balanced
// flow (hold), then buying with calm prices (buy).
func syntheticDecisionChange(t0 time.Time) []operators.AlertEvent {
	var events []operators.AlertEvent
	h := operators.NewHourlyDecision(func(e operators.AlertEvent) { events = append(events, e) })
	for hour, bp := range []float64{50, 70} {
		start := t0.Add(time.Duration(hour) * time.Hour).UnixNano()
		for m := range int64(60) {
			h.PushCandle(&schemas.Candle{Venue: "raydium", VenueKind: schemas.VenueKind_VENUE_KIND_SOLANA_DEX, Symbol: "ETHUSD",
				StartNs: start + m*int64(time.Minute), IntervalNs: int64(time.Minute), Close: 2000 + float64(m%2), VolumeUsd: 1000, TradeCount: 2})
		}
		h.PushDocument(&schemas.IntelligenceDocument{Id: "ETHUSD15m" + strconv.Itoa(hour), Symbol: "ETHUSD", Window: "15m",
			TimestampNs: start + int64(50*time.Minute), BuyPressure: bp, MomentumScore: bp, TradeCount: 40, EventType: operators.EventNormal})
	}
	h.PushDocument(&schemas.IntelligenceDocument{Symbol: "ETHUSD", Window: "1m", TimestampNs: t0.Add(2 * time.Hour).UnixNano()})
	return events
}

// produceEvents produces alert events onto mi.events.v1 with acks from
// every in-sync replica.
func produceEvents(t *testing.T, brokers []string, events []operators.AlertEvent) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, e := range events {
		v, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: schemas.TopicEvents, Key: []byte(e.Symbol), Value: v}).FirstErr(); err != nil {
			t.Fatalf("cannot produce a synthetic alert event: %v", err)
		}
	}
}

// withoutEvents returns the records of got that are none of events.
func withoutEvents(got [][]byte, events []operators.AlertEvent) [][]byte {
	var out [][]byte
next:
	for _, r := range got {
		for _, e := range events {
			if bytes.HasPrefix(r, []byte(`{"id":"`+e.ID+`"`)) {
				continue next
			}
		}
		out = append(out, r)
	}
	return out
}

// checkTopicSettings checks the topics the roles created on the cluster:
// three replicas, min.insync.replicas 2, and the cleanup policy of
// pipeline.Topics (docs/topics.md).
func checkTopicSettings(t *testing.T, brokers []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	var names []string
	for _, s := range pipeline.Topics {
		names = append(names, s.Name)
	}
	details, err := adm.ListTopics(ctx, names...)
	if err != nil {
		t.Fatal(err)
	}
	configs, err := adm.DescribeTopicConfigs(ctx, names...)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range pipeline.Topics {
		d := details[s.Name]
		if d.Err != nil || len(d.Partitions) == 0 {
			t.Errorf("topic %s: %v", s.Name, d.Err)
			continue
		}
		for _, p := range d.Partitions {
			if len(p.Replicas) != 3 {
				t.Errorf("%s[%d] has %d replicas, want 3", s.Name, p.Partition, len(p.Replicas))
			}
		}
		rc, err := configs.On(s.Name, nil)
		if err != nil {
			t.Errorf("configuration of %s: %v", s.Name, err)
			continue
		}
		want := map[string]string{"min.insync.replicas": "2", "cleanup.policy": "delete"}
		if s.Compacted {
			want["cleanup.policy"] = "compact"
		}
		for _, c := range rc.Configs {
			if w, ok := want[c.Key]; ok && c.MaybeValue() != w {
				t.Errorf("%s: %s = %s, want %s", s.Name, c.Key, c.MaybeValue(), w)
			}
		}
	}
}

// reference is what the embedded single-process run left: topic outputs,
// its data directory, and its API's answers.
type reference struct {
	out     replayOutputs
	dir     string
	answers map[string]string
}

// referenceRun replays capture through one mi run on the embedded broker at
// full speed, waits until every role has consumed it, and records the
// outputs; then it starts mi run again on the same data (nothing left to
// do) to take the API's answers over the flushed day files.
func referenceRun(t *testing.T, capture string) reference {
	t.Helper()
	ref := reference{dir: filepath.Join(t.TempDir(), "reference"), answers: map[string]string{}}
	port := freePort(t)
	brokers := []string{"127.0.0.1:" + strconv.Itoa(port)}
	p := startMi(t, ref.dir, port, "--source", capture, "--retention", "off")
	waitDone(t, brokers, 3*time.Minute)
	waitGroup(t, brokers, pipeline.ParquetGroup, 2*time.Minute, pipeline.ParquetTopics...)
	waitGroup(t, brokers, pipeline.OutboxGroup, 2*time.Minute, schemas.TopicEvents)
	ref.out = collectAll(t, brokers)
	p.stop(t)
	httpPort := freePort(t)
	cmd := exec.Command(miBinary(t), "run", "--data-dir", ref.dir, "--http-addr", "127.0.0.1:"+strconv.Itoa(httpPort),
		"--kafka-listen", "127.0.0.1:"+strconv.Itoa(port), "--log-format", "json", "--source", capture, "--retention", "off")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	again := &miProc{cmd: cmd, out: &out}
	defer again.stop(t)
	api := &roleProc{name: "reference", http: "127.0.0.1:" + strconv.Itoa(httpPort)}
	// The views are rebuilt once the documents' answers stop changing.
	deadline := time.Now().Add(time.Minute)
	for {
		prev := api.tryGet(apiQueries[0])
		time.Sleep(time.Second)
		if cur := api.tryGet(apiQueries[0]); cur != "" && cur == prev && !strings.Contains(cur, `"no_data"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the reference API did not serve %s:\n%s", apiQueries[0], out.String())
		}
	}
	for _, q := range apiQueries {
		ref.answers[q] = api.get(t, q)
	}
	return ref
}

// sameRecords fails the test unless the two sorted sets are equal.
func sameRecords(t *testing.T, what string, want, got [][]byte, m proto.Message) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s: cluster run has %d, reference %d", what, len(got), len(want))
	}
	for i := range min(len(want), len(got)) {
		if !bytes.Equal(want[i], got[i]) {
			if m != nil {
				t.Errorf("%s: record %d differs:\nreference: %s\ncluster:   %s", what, i, textOf(want[i], m), textOf(got[i], m))
			} else {
				t.Errorf("%s: record %d differs:\nreference: %s\ncluster:   %s", what, i, want[i], got[i])
			}
			return
		}
	}
}

// roleProc is one mi role process with its operations port.
type roleProc struct {
	name       string
	http, ops  string // the addresses the process logged it listens on; "" until waitReady
	cmd        *exec.Cmd
	exited     chan struct{} // closed when the process has exited (cmd.ProcessState is then set)
	log        string
	lastMetric float64 // the last metric read
}

// startRole starts mi cmd args with its HTTP and operations ports on port
// 0 — the process logs the addresses it was given, which waitReady reads:
// a port picked free by the test and handed over could be taken by
// anything else on a busy machine in between — and its output in a log
// file of the test. The process is in its own process group and dies with
// the test binary (Pdeathsig); it is stopped when the test ends.
func startRole(t *testing.T, name, cmd string, args ...string) *roleProc {
	t.Helper()
	p := &roleProc{name: name, exited: make(chan struct{})}
	p.log = filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	all := append([]string{cmd, "--http-addr", "127.0.0.1:0", "--ops-addr", "127.0.0.1:0", "--log-format", "json"}, args...)
	c := exec.Command(miBinary(t), all...)
	c.Stdout, c.Stderr = f, f
	c.Env = append(os.Environ(), "MI_ALERTS_KEY="+strings.Repeat("ab", 32))
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := c.Start(); err != nil {
		t.Fatalf("cannot start mi %s: %v", cmd, err)
	}
	f.Close()
	p.cmd = c
	go func() { _ = c.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.stop(t)
		if t.Failed() {
			t.Logf("--- %s (mi %s), last lines:\n%s", name, cmd, p.tail(25))
		}
	})
	return p
}

// tail returns the last n lines of the process's output.
func (p *roleProc) tail(n int) string {
	b, _ := os.ReadFile(p.log)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

func (p *roleProc) kill(t *testing.T) {
	t.Helper()
	select {
	case <-p.exited:
	default:
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
}

func (p *roleProc) stop(t *testing.T) {
	t.Helper()
	select {
	case <-p.exited:
		return
	default:
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.exited
	}
}

// listening reads, from the process's log, the addresses its HTTP API and
// its operations port listen on.
func (p *roleProc) listening() {
	b, _ := os.ReadFile(p.log)
	for _, line := range strings.Split(string(b), "\n") {
		var l struct{ Msg, Addr string }
		if json.Unmarshal([]byte(line), &l) != nil {
			continue
		}
		switch {
		case l.Msg == "HTTP API listening":
			p.http = l.Addr
		case strings.HasPrefix(l.Msg, "operations port listening"):
			p.ops = l.Addr
		}
	}
}

// waitReady waits until the process's /readyz answers 200. A process that
// exits or stays unready fails the test with its last lines of output.
func (p *roleProc) waitReady(t *testing.T, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	last := "the operations port is not listening yet"
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			t.Fatalf("%s exited: %v; last lines:\n%s", p.name, p.cmd.ProcessState, p.tail(25))
		default:
		}
		if p.ops == "" {
			p.listening()
		}
		if p.ops != "" {
			resp, err := http.Get("http://" + p.ops + "/readyz")
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					p.listening() // the HTTP API logs before the operations port
					return
				}
				last = string(b)
			} else {
				last = err.Error()
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("%s not ready within %s: %s; last lines:\n%s", p.name, timeout, last, p.tail(25))
}

var metricLine = regexp.MustCompile(`(?m)^(\S+) (\S+)$`)

// metric returns one series of the process's /metrics, 0 when absent.
func (p *roleProc) metric(t *testing.T, series string) float64 {
	t.Helper()
	resp, err := http.Get("http://" + p.ops + "/metrics")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, m := range metricLine.FindAllStringSubmatch(string(b), -1) {
		if m[1] == series {
			v, _ := strconv.ParseFloat(m[2], 64)
			p.lastMetric = v
			return v
		}
	}
	return 0
}

// firstDiff shows where two answers part.
func firstDiff(a, b string) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	from := max(0, i-200)
	return fmt.Sprintf("at byte %d of %d/%d:\n  …%s\n  …%s", i, len(a), len(b), a[from:min(len(a), i+200)], b[from:min(len(b), i+200)])
}

// wallClockFields are the answer fields taken from the wall clock: when
// the answer was made, and the data's age then.
var wallClockFields = regexp.MustCompile(`"(generatedAt|timestamp)":"[^"]*"|"(freshestMs|oldestMs)":\d+`)

// tryGet returns the body of a GET of the API, wall-clock fields blanked,
// or "" when it fails.
func (p *roleProc) tryGet(path string) string {
	if p.http == "" {
		p.listening()
	}
	resp, err := http.Get("http://" + p.http + path)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return ""
	}
	return strconv.Itoa(resp.StatusCode) + " " + wallClockFields.ReplaceAllString(string(b), `"$1$2":"-"`)
}

func (p *roleProc) get(t *testing.T, path string) string {
	t.Helper()
	s := p.tryGet(path)
	if s == "" {
		t.Fatalf("%s: GET %s failed", p.name, path)
	}
	return s
}

// postgresSchema returns the URL of a fresh schema in database
// mi_cluster_test of the local PostgreSQL (scripts/install.d/postgres.sh),
// dropped when the test ends. An unreachable server fails the test.
func postgresSchema(t *testing.T) string {
	t.Helper()
	const server = "postgres://postgres@127.0.0.1:5432/"
	ctx := context.Background()
	admin, err := sql.Open("pgx", server+"postgres?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	if err := admin.PingContext(ctx); err != nil {
		t.Fatalf("PostgreSQL at 127.0.0.1:5432 is required (scripts/install.d/postgres.sh): %v", err)
	}
	var n int
	if err := admin.QueryRowContext(ctx, `SELECT COUNT(*) FROM pg_database WHERE datname = 'mi_cluster_test'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		if _, err := admin.ExecContext(ctx, `CREATE DATABASE mi_cluster_test`); err != nil && !strings.Contains(err.Error(), "already exists") {
			t.Fatal(err)
		}
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "c_" + hex.EncodeToString(b)
	base := server + "mi_cluster_test?sslmode=disable"
	setup, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, _ = setup.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
		setup.Close()
	})
	return base + "&search_path=" + schema
}

// dayFiles returns the bytes of every compacted day file under dir, by
// path relative to dir.
func dayFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, ds := range []string{"candles", "signals", "trades", "signal_changes"} {
		_ = filepath.WalkDir(filepath.Join(dir, ds), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".parquet") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(dir, p)
			out[rel] = b
			return nil
		})
	}
	return out
}
