package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/query"
	"github.com/marketintel/mi/schemas"
)

// TestSignalChangeLogIsReproducible replays the same simulated market three
// times through the whole pipeline — the second time on one core, the third
// stopped half way and restarted on the same data — and requires
// byte-identical signal-change logs (every published change, with its
// algorithm version and key numbers), alert events, candles and minute-close
// documents (each distinct record once: a restart emits identical copies of
// what followed the last checkpoint). TestReplayIsDeterministicUnderAnyPacing
// varies far more on a real capture; this one runs in process, on a market
// busy enough to fire events, so the alert detectors' state goes through a
// checkpoint and a restore.
func TestSignalChangeLogIsReproducible(t *testing.T) {
	src := "sim:seed=11,start=2026-03-02T00:00:00Z,duration=190m,rate=0.03,events=12,speed=max"
	type outputs struct{ changes, events, candles, minutes [][]byte }
	run := func(procs int, restart bool) outputs {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		dir := t.TempDir()
		h := startPipeline(t, dir, src)
		if restart {
			for h.proc.Trades.Load() < 50_000 {
				time.Sleep(10 * time.Millisecond)
			}
			h.stop()
			h = startPipeline(t, dir, src)
		}
		waitDone(t, h.brokers, 3*time.Minute)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		read := func(topic string) [][]byte {
			return slices.CompactFunc(sortedValues(readAll(ctx, h.brokers, topic)), bytes.Equal)
		}
		return outputs{
			changes: read(schemas.TopicSignalChanges),
			events:  read(schemas.TopicEvents),
			candles: read(schemas.TopicCandles),
			minutes: read(schemas.TopicSignalMinutes),
		}
	}
	a, b, c := run(runtime.GOMAXPROCS(0), false), run(1, false), run(runtime.GOMAXPROCS(0), true)
	if len(a.changes) < 20 || len(a.events) < 20 {
		t.Fatalf("only %d signal changes and %d events in 190 simulated minutes; the test needs a busier market", len(a.changes), len(a.events))
	}
	decisions := 0
	for _, e := range a.events {
		if bytes.Contains(e, []byte(`"event":"`+operators.AlertDecisionChange+`"`)) {
			decisions++
		}
	}
	if decisions == 0 {
		t.Fatal("no decision_change in 190 simulated minutes: the hourly decisions' state is not tested across the restart")
	}
	for _, c := range []struct {
		what string
		a, b [][]byte
	}{
		{"signal changes", a.changes, b.changes}, {"alert events", a.events, b.events}, {"candles", a.candles, b.candles}, {"minute documents", a.minutes, b.minutes},
		{"signal changes (restarted)", a.changes, c.changes}, {"alert events (restarted)", a.events, c.events}, {"candles (restarted)", a.candles, c.candles}, {"minute documents (restarted)", a.minutes, c.minutes},
	} {
		if len(c.a) != len(c.b) {
			t.Fatalf("first replay logged %d %s, second %d", len(c.a), c.what, len(c.b))
		}
		for i := range c.a {
			if !bytes.Equal(c.a[i], c.b[i]) {
				t.Fatalf("%s %d differs between replays", c.what, i)
			}
		}
	}
	t.Logf("%d signal changes, %d events (%d decision_change), %d candles, %d minute documents, identical across replays", len(a.changes), len(a.events), decisions, len(a.candles), len(a.minutes))
}

// TestPreviewFromCandleTopic runs a simulated market through the whole
// pipeline and checks GET /api/v1/preview against the committed candles of
// mi.candles.v1, aggregated here independently: six 5m bars of BTCUSD
// ending at or before the newest candle end minus 15 minutes, with every
// venue's USD volume and trades.
func TestPreviewFromCandleTopic(t *testing.T) {
	h := startPipeline(t, t.TempDir(), "sim:seed=5,start=2026-03-02T00:00:00Z,duration=50m,rate=0.05,speed=max")
	waitDone(t, h.brokers, 3*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var clock int64
	type agg struct {
		volume float64
		trades int64
	}
	byStart := map[int64]*agg{} // 1m candle start → BTCUSD over venues
	for _, r := range readAll(ctx, h.brokers, schemas.TopicCandles) {
		c := &schemas.Candle{}
		if err := proto.Unmarshal(r.Value, c); err != nil {
			t.Fatal(err)
		}
		clock = max(clock, c.StartNs+c.IntervalNs)
		if c.Symbol == "BTCUSD" {
			a := byStart[c.StartNs]
			if a == nil {
				a = &agg{}
				byStart[c.StartNs] = a
			}
			a.volume += c.VolumeUsd
			a.trades += int64(c.TradeCount)
		}
	}
	// The views follow the topic's partitions at their own pace: poll the
	// preview until it agrees with the topic (or time runs out).
	srv := query.New(query.Deps{Views: h.views})
	check := func() string {
		resp, err := srv.App().Test(httptest.NewRequest(http.MethodGet, "/api/v1/preview?symbol=BTCUSD", nil))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p struct {
			AsOf    time.Time
			Candles []struct {
				Start, End time.Time
				Close      *float64
				VolumeUsd  float64
				TradeCount int64
			}
		}
		if err := json.NewDecoder(resp.Body).Decode(&p); err != nil || resp.StatusCode != 200 {
			return fmt.Sprintf("preview: %d %v", resp.StatusCode, err)
		}
		if want := time.Unix(0, clock-int64(15*time.Minute)).UTC(); !p.AsOf.Equal(want) || len(p.Candles) != 6 {
			return fmt.Sprintf("as of %v (want %v), %d candles", p.AsOf, want, len(p.Candles))
		}
		if end := p.Candles[5].End; end.After(p.AsOf) || p.AsOf.Sub(end) >= 5*time.Minute {
			return fmt.Sprintf("last candle ends %v, as of %v", end, p.AsOf)
		}
		for _, c := range p.Candles {
			var want agg
			for m := c.Start; m.Before(c.End); m = m.Add(time.Minute) {
				if a := byStart[m.UnixNano()]; a != nil {
					want.volume += a.volume
					want.trades += a.trades
				}
			}
			if c.TradeCount != want.trades || math.Abs(c.VolumeUsd-want.volume) > 1e-6*want.volume || want.trades == 0 || c.Close == nil {
				return fmt.Sprintf("candle %v: %d trades $%v, topic has %d trades $%v", c.Start, c.TradeCount, c.VolumeUsd, want.trades, want.volume)
			}
		}
		return ""
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		msg := check()
		if msg == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
