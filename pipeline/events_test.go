package pipeline

import (
	"context"
	"database/sql"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	_ "modernc.org/sqlite"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/alerts"
)

// TestAlertEventOutbox runs the outbox sink on the embedded broker: events
// on mi.events.v1, as the operators publish them (one produced twice, as
// after a crash), become pending deliveries in the outbox, each once.
func TestAlertEventOutbox(t *testing.T) {
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
	det := operators.NewAlertDetector()
	var events []operators.AlertEvent
	for _, d := range []*schemas.IntelligenceDocument{
		doc("BTCUSD", "5m", 0, operators.EventBreakout, 80, operators.SignalBullish),
		doc("BTCUSD", "5m", 10*time.Minute, operators.EventBreakout, 85, operators.SignalBullish),
		doc("BTCUSD", "5m", 70*time.Minute, operators.EventBreakout, 85, operators.SignalBullish),
	} {
		events = det.Push(d, events)
	}
	events = append(events, syntheticDecisionChange(t0)...)
	if len(events) != 3 {
		t.Fatalf("%d events, want 3", len(events))
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, e := range append(events, events[0]) {
		v, _ := json.Marshal(e)
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: schemas.TopicEvents, Key: []byte(e.Symbol), Value: v}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- SinkEvents(sctx, brokers, st, log) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("outbox sink: %v", err)
		}
	}()
	s, err := st.Get(ctx, sub.ID, secret)
	if err != nil {
		t.Fatal(err)
	}
	for {
		var n int
		if err := db.QueryRow(`SELECT COUNT(*) FROM alert_deliveries WHERE subscription_id = ?`, s.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n >= 3 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("%d deliveries in the outbox, want 3", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	count := map[string]int{}
	rows, err := db.Query(`SELECT e.event, e.symbol FROM alert_deliveries d JOIN alert_events e ON e.id = d.event_id WHERE d.subscription_id = ?`, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var ev, sym string
		if err := rows.Scan(&ev, &sym); err != nil {
			t.Fatal(err)
		}
		count[ev+" "+sym]++
	}
	rows.Close()
	if len(count) != 2 || count["unusual_flow BTCUSD"] != 2 || count["decision_change ETHUSD"] != 1 {
		t.Fatalf("deliveries %v", count)
	}
}

// syntheticDecisionChange returns the one decision_change the hourly
// decision makes of ETHUSD trading on a DEX for two hours from t0: balanced
// flow (hold), then buying with calm prices (buy), decided by a document
// of the third hour.
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
