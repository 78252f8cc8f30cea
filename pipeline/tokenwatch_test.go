package pipeline

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"encoding/json"
	"io"
	"log/slog"
	"math/big"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	_ "modernc.org/sqlite"

	"github.com/marketintel/mi/internal/tokentest"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/token"
	"github.com/marketintel/mi/schemas"
	"github.com/marketintel/mi/sinks/alerts"
)

// TestTokenWatchesEndToEnd follows both token watches from the chain to a
// signed webhook: the suite's tokens and stablecoins on go-ethereum's
// simulated chain, the depeg watch and the risk watch (its list read from
// the subscriptions) as live sources on a fake clock, mi.stablecoins.v1 and
// mi.token-risk.v1 on the embedded broker, the side-event stage's
// detectors, the alert outbox and the dispatcher. The first checks are
// baselines (no event); then the owner blacklists the blacklist token's
// recent buyer and 12,000 USDT are dumped into the USDT/USDC pool, and at
// the next checks token_risk_change and stablecoin_depeg (DEPEG) reach the
// subscriptions that asked for them, each once, signed; the subscription
// watching the plain token receives nothing.
func TestTokenWatchesEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	ch := chaintest.New(t)
	s := tokentest.Deploy(t, ch)
	cfg := ch.Config("base")
	cfg.Limit = &sources.Limit{}
	cfg.ChainID = chaintest.ChainID
	set, err := chain.Open([]sources.ChainConfig{cfg}, chain.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	fc := clock.NewFake(time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	reader := token.New(set, token.Options{Clock: fc, Venues: []token.ChainVenues{{Chain: "base", WETH: s.V2.WETH,
		Stables: []token.Stable{{Symbol: "USDC", Address: s.USDC, Decimals: 6}, {Symbol: "USDT", Address: s.USDT, Decimals: 6}},
		Venues:  []token.Venue{{Name: "uniswap_v2", Kind: token.KindV2, Factory: s.V2.Factory}}}}})

	// The outbox and three subscriptions to a local HTTPS receiver.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "l.db")+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, err := alerts.Open(ctx, db, alerts.DialectSQLite, alerts.Config{Key: make([]byte, 32)})
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		body       alerts.Body
		raw        []byte
		ts, sig    string
		subscriber string
	}
	var mu sync.Mutex
	var deliveries []got
	rcv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		g := got{raw: raw, ts: r.Header.Get("X-MI-Timestamp"), sig: r.Header.Get("X-MI-Signature"), subscriber: r.Header.Get("X-MI-Subscription")}
		_ = json.Unmarshal(raw, &g.body)
		mu.Lock()
		deliveries = append(deliveries, g)
		mu.Unlock()
	}))
	defer rcv.Close()
	lower := func(a interface{ Hex() string }) string { return strings.ToLower(a.Hex()) }
	riskSub, riskSecret, err := st.Create(ctx, alerts.NewSubscription{URL: rcv.URL + "/risk", Events: []string{operators.AlertTokenRiskChange},
		Filters: alerts.Filters{Tokens: []alerts.Token{{Address: lower(s.Blacklist), Chain: "base"}}}})
	if err != nil {
		t.Fatal(err)
	}
	plainSub, _, err := st.Create(ctx, alerts.NewSubscription{URL: rcv.URL + "/plain", Events: []string{operators.AlertTokenRiskChange},
		Filters: alerts.Filters{Tokens: []alerts.Token{{Address: lower(s.Plain), Chain: "base"}}}})
	if err != nil {
		t.Fatal(err)
	}
	depegSub, depegSecret, err := st.Create(ctx, alerts.NewSubscription{URL: rcv.URL + "/depeg", Events: []string{operators.AlertStablecoinDepeg},
		Filters: alerts.Filters{Symbols: []string{"USDT"}}})
	if err != nil {
		t.Fatal(err)
	}

	emb, err := StartEmbedded("127.0.0.1:0", t.TempDir(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 2); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	watchList := func() []token.WatchedToken {
		ts, err := st.WatchedTokens(ctx)
		if err != nil {
			t.Error(err)
		}
		var out []token.WatchedToken
		for _, x := range ts {
			out = append(out, token.WatchedToken{Chain: x.Chain, Address: x.Address})
		}
		return out
	}
	wo := token.WatchOptions{Clock: fc}
	stats := &SideEventsStats{}
	for _, src := range []sources.Source{
		token.NewDepegSource(reader, []token.Stablecoin{{Symbol: "USDT", Chain: "base", Address: s.USDT, Decimals: 6, Feed: s.USDTFeed}}, wo),
		token.NewRiskWatchSource(reader, watchList, wo),
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer src.Close()
			_ = Ingest(ctx, IngestConfig{Brokers: brokers, Live: true, Logger: quiet}, src, Checkpoint{})
		}()
	}
	wg.Add(2)
	go func() {
		defer wg.Done()
		if err := RunSideEvents(ctx, SideEventsConfig{Brokers: brokers, Detectors: TokenDetectors(), Stats: stats, Logger: quiet}); err != nil {
			t.Errorf("side-event stage: %v", err)
		}
	}()
	go func() {
		defer wg.Done()
		_ = SinkEvents(ctx, brokers, st, quiet)
	}()

	// The baselines: one reading of USDT, one check of each watched token.
	waitUntil(t, ctx, "the first checks", func() bool { return stats.Records.Load() >= 3 && stats.Transactions.Load() > 0 })
	if n := stats.Events.Load(); n != 0 {
		t.Fatalf("%d events from the baselines", n)
	}

	// The blacklist token's recent buyer is blacklisted; USDT is dumped.
	ch.Send(t, s.Owner, s.Blacklist, tokentest.Blacklist.ABI, "setBlacklist", s.Traders[2].Address, true)
	s.V2.Swap(t, s.Owner, new(big.Int).Mul(big.NewInt(12_000), big.NewInt(1e6)), s.USDT, s.USDC)
	ch.Backend.Commit()
	if err := fc.BlockUntil(ctx, 2); err != nil { // both watches wait for their next slot
		t.Fatal(err)
	}
	fc.Advance(30 * time.Minute)

	pool := x509.NewCertPool()
	pool.AddCert(rcv.Certificate())
	d := alerts.NewDispatcher(st, alerts.DispatcherConfig{Safety: alerts.Safety{AllowLoopback: true}, TLS: &tls.Config{RootCAs: pool}})
	count := func(sub string) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, g := range deliveries {
			if g.subscriber == sub {
				n++
			}
		}
		return n
	}
	waitUntil(t, ctx, "the signed deliveries", func() bool {
		if _, err := d.RunOnce(ctx); err != nil {
			t.Fatal(err)
		}
		return count(riskSub.ID) >= 1 && count(depegSub.ID) >= 1
	})
	// Let anything extra arrive before counting.
	time.Sleep(500 * time.Millisecond)
	if _, err := d.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if n, m := count(riskSub.ID), count(depegSub.ID); n != 1 || m != 1 {
		t.Errorf("%d token_risk_change and %d stablecoin_depeg deliveries, want 1 and 1", n, m)
	}
	mu.Lock()
	defer mu.Unlock()
	secrets := map[string]string{riskSub.ID: riskSecret, depegSub.ID: depegSecret}
	for _, g := range deliveries {
		switch g.subscriber {
		case riskSub.ID:
			var data operators.TokenRiskChangeData
			_ = json.Unmarshal(g.body.Data, &data)
			if g.body.Event != operators.AlertTokenRiskChange || data.Token != s.Blacklist.Hex() || data.Chain != "base" ||
				data.SellSimulation != "FAIL" || data.PreviousSellSimulation != "PASS" || !strings.Contains(data.SellDetail, "Blacklist: address is blacklisted") {
				t.Errorf("token_risk_change delivery %s", g.raw)
			}
		case depegSub.ID:
			var data operators.StablecoinDepegData
			_ = json.Unmarshal(g.body.Data, &data)
			if g.body.Event != operators.AlertStablecoinDepeg || g.body.Symbol != "USDT" || data.Level != operators.DepegLevel ||
				data.Previous != operators.DepegNormal || data.ConfirmedBy != "depth" || data.DeviationBps > -100 {
				t.Errorf("stablecoin_depeg delivery %s", g.raw)
			}
		default:
			t.Errorf("delivery to %s (plain token watch %s): %s", g.subscriber, plainSub.ID, g.raw)
			continue
		}
		if !alerts.Verify(secrets[g.subscriber], g.ts, g.raw, g.sig, time.Now(), 5*time.Minute) {
			t.Errorf("delivery %s: bad signature", g.body.ID)
		}
	}
}

// TestSideEventsRestore: the side-event stage's state survives a restart.
// A first stage instance sees a token's baseline and stops; a second,
// restored from mi.side-state.v1 at the committed offsets, fires
// token_risk_change on the next check — once, with the first verdict as
// previous — and dead-letters an invalid record with its reason.
func TestSideEventsRestore(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	emb, err := StartEmbedded("127.0.0.1:0", t.TempDir(), quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer emb.Close()
	brokers := []string{emb.Addr()}
	if err := EnsureTopics(ctx, brokers, 2); err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	produce := func(o *schemas.TokenRiskObservation) {
		t.Helper()
		r := sidetopic.TokenRisk.Record(o)
		if err := cl.ProduceSync(ctx, &kgo.Record{Topic: r.Side.Topic, Key: r.Side.Key, Value: r.Side.Value}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	obs := func(at time.Duration, verdict, sell string) *schemas.TokenRiskObservation {
		return &schemas.TokenRiskObservation{Chain: "base", Token: "0x00000000000000000000000000000000000000aA", Verdict: verdict, SellSimulation: sell,
			ObservedNs: t0.Add(at).UnixNano(), ReadNs: t0.Add(at).UnixNano(), SafetyScore: 90}
	}
	run := func(stats *SideEventsStats, until func() bool) {
		t.Helper()
		sctx, stop := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			done <- RunSideEvents(sctx, SideEventsConfig{Brokers: brokers, Detectors: TokenDetectors(), Stats: stats, Logger: quiet})
		}()
		waitUntil(t, ctx, "the stage", until)
		stop()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	produce(obs(0, "LOW_RISK", "PASS"))
	first := &SideEventsStats{}
	run(first, func() bool { return first.Transactions.Load() >= 1 })
	if first.Events.Load() != 0 {
		t.Fatalf("%d events from a baseline", first.Events.Load())
	}
	produce(obs(30*time.Minute, "HIGH_RISK", "FAIL"))
	produce(obs(45*time.Minute, "", "PASS")) // no verdict: invalid
	second := &SideEventsStats{}
	run(second, func() bool { return second.Records.Load() >= 2 && second.Transactions.Load() >= 1 })
	if second.Records.Load() != 2 || second.Events.Load() != 1 || second.Rejected.Load() != 1 || second.Restores.Load() == 0 {
		t.Fatalf("second run: %d records, %d events, %d rejected, %d restores", second.Records.Load(), second.Events.Load(), second.Rejected.Load(), second.Restores.Load())
	}
	var events []operators.AlertEvent
	var dlq []string
	if err := ReadCommitted(ctx, brokers, schemas.TopicEvents, nil, func(r *kgo.Record) {
		var e operators.AlertEvent
		if json.Unmarshal(r.Value, &e) == nil && e.ID != "" {
			events = append(events, e)
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := ReadCommitted(ctx, brokers, sidetopic.TokenRisk.DLQ(), nil, func(r *kgo.Record) {
		for _, h := range r.Headers {
			if h.Key == "reason" {
				dlq = append(dlq, string(h.Value))
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	var data operators.TokenRiskChangeData
	if len(events) != 1 || json.Unmarshal(events[0].Data, &data) != nil || data.PreviousVerdict != "LOW_RISK" || data.Verdict != "HIGH_RISK" ||
		data.PreviousSellSimulation != "PASS" || data.SellSimulation != "FAIL" {
		t.Fatalf("events %+v", events)
	}
	if len(dlq) != 1 || !strings.Contains(dlq[0], "missing verdict") {
		t.Fatalf("dead letters %q", dlq)
	}
}
