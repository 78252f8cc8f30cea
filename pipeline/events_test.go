package pipeline

import (
	"context"
	"database/sql"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"google.golang.org/protobuf/proto"
	_ "modernc.org/sqlite"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/alerts"
)

// TestAlertEventStages runs the detector stage and the outbox sink on the
// embedded broker: documents on mi.signals.v1 become events on
// mi.events.v1 and pending deliveries in the outbox; a restarted detector
// publishes nothing twice.
func TestAlertEventStages(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	log := slog.New(slog.DiscardHandler)
	emb, err := StartEmbedded("127.0.0.1:0", t.TempDir(), log)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 2); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "l.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := alerts.Open(ctx, db, alerts.DialectSQLite, alerts.Config{Key: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	sub, secret, err := st.Create(ctx, alerts.NewSubscription{URL: "https://example.com/h", Events: []string{"unusual_flow", "decision_change"}})
	if err != nil {
		t.Fatal(err)
	}

	// Documents: BTCUSD breaks out twice within an hour (one event) and
	// again after an hour (a second); ETHUSD's decision goes hold → buy.
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	doc := func(sym, window string, at time.Duration, ev string, conf float64, sig string) *schemas.IntelligenceDocument {
		return &schemas.IntelligenceDocument{Id: sym + window + at.String(), Symbol: sym, Window: window,
			TimestampNs: t0.Add(at).UnixNano(), EventType: ev, ConfidenceScore: conf, Signal: sig}
	}
	docs := []*schemas.IntelligenceDocument{
		doc("BTCUSD", "5m", 0, operators.EventBreakout, 80, operators.SignalBullish),
		doc("BTCUSD", "5m", 10*time.Minute, operators.EventBreakout, 85, operators.SignalBullish),
		doc("BTCUSD", "5m", 70*time.Minute, operators.EventBreakout, 85, operators.SignalBullish),
		doc("ETHUSD", "15m", 10*time.Minute, operators.EventNormal, 80, operators.SignalNeutral),
		doc("ETHUSD", "15m", 70*time.Minute, operators.EventNormal, 80, operators.SignalBullish),
		doc("ETHUSD", "15m", 130*time.Minute, operators.EventNormal, 80, operators.SignalBullish),
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, d := range docs {
		v, _ := proto.Marshal(d)
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: schemas.TopicSignals, Key: []byte(d.Symbol + "|" + d.Window), Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	run := func(f func(context.Context) error) (stop func()) {
		c, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- f(c) }()
		return func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("stage: %v", err)
			}
		}
	}
	stopDetect := run(func(c context.Context) error { return DetectEvents(c, brokers, log) })
	stopSink := run(func(c context.Context) error { return SinkEvents(c, brokers, st, log) })
	defer stopSink()
	waitEvents := func(want int) []alerts.Delivery {
		t.Helper()
		s, err := st.Get(ctx, sub.ID, secret)
		if err != nil {
			t.Fatal(err)
		}
		for {
			var n int
			if err := db.QueryRow(`SELECT COUNT(*) FROM alert_events`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n >= want {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("%d events in the outbox, want %d", n, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
		var out []alerts.Delivery
		rows, _ := db.Query(`SELECT d.id, e.event, e.symbol FROM alert_deliveries d JOIN alert_events e ON e.id = d.event_id WHERE d.subscription_id = ?`, s.ID)
		for rows.Next() {
			var d alerts.Delivery
			rows.Scan(&d.ID, &d.Event.Event, &d.Event.Symbol)
			out = append(out, d)
		}
		rows.Close()
		return out
	}
	got := waitEvents(3)
	count := map[string]int{}
	for _, d := range got {
		count[d.Event.Event+" "+d.Event.Symbol]++
	}
	if len(got) != 3 || count["unusual_flow BTCUSD"] != 2 || count["decision_change ETHUSD"] != 1 {
		t.Fatalf("deliveries %v", count)
	}
	stopDetect()

	// A restarted detector restores its state from mi.events.v1; the same
	// documents produced again (as after an upstream replay) fire nothing
	// twice.
	var before int
	countTopic := func() int {
		n := 0
		if err := ReadCommitted(ctx, brokers, schemas.TopicEvents, nil, func(r *kgo.Record) {
			if string(r.Key) != SentinelKey {
				n++
			}
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before = countTopic()
	if before != 3 {
		t.Fatalf("%d events on %s, want 3", before, schemas.TopicEvents)
	}
	// Replaying the same documents after the restart fires nothing again.
	for _, d := range docs {
		v, _ := proto.Marshal(d)
		cl.ProduceSync(ctx, &kgo.Record{Topic: schemas.TopicSignals, Key: []byte(d.Symbol + "|" + d.Window), Value: v})
	}
	stopDetect = run(func(c context.Context) error { return DetectEvents(c, brokers, log) })
	time.Sleep(2 * time.Second)
	stopDetect()
	if after := countTopic(); after != before {
		t.Fatalf("restarted detector published %d events again", after-before)
	}
}
