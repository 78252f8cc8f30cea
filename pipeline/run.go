package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"golang.org/x/sync/errgroup"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/replay"
	"github.com/marketintel/mi/pipeline/sources/sim"
	"github.com/marketintel/mi/sinks/views"
)

// RunConfig configures every pipeline role in one process.
type RunConfig struct {
	// DataDir holds the embedded broker's logs and the simulator's ground
	// truth. Created if missing.
	DataDir string
	// Sources are source specs: "sim[:key=value,...]" or "replay:PATH[,PATH...]"
	// (see ParseSourceSpec).
	Sources []string
	// Live are opened live sources (the venue connections of the sources
	// configuration), ingested with the Sources by the "ingest" role; Run
	// closes them. A live source that fails does not stop Run.
	Live []sources.Source
	// ReplaySpeed paces replays: 0 = as fast as possible, N = N times real time.
	ReplaySpeed float64
	// Brokers of an external Kafka cluster; empty starts the embedded broker
	// listening on KafkaListen.
	Brokers     []string
	KafkaListen string
	Partitions  int
	InstanceID  string
	Operators   operators.Config
	// SessionTimeout is the operators' group session timeout
	// (ProcessConfig.SessionTimeout); 0 = its default.
	SessionTimeout time.Duration
	// CheckpointInterval is the operators' checkpoint interval
	// (ProcessConfig.CheckpointInterval); 0 = its default.
	CheckpointInterval time.Duration
	// endRun, set by Run when every source is finite, is "N:key": the
	// number of the run's sources and a key of their specs (IngestConfig.EndRun).
	endRun string
	// Roles to run; all when empty: "ingest", "process", "views", "parquet"
	// (the Parquet sink, when DataDir is set), "news" (the news stage, when
	// News is set), "alerts" (here: the token watches, SideSources and
	// SideEvents; the alert outbox and dispatcher run beside Run), "events"
	// (the positioning event stage, when PositioningEvents is set).
	Roles []string
	Views *views.Views
	// SideViews are the views of side topics this instance serves (built
	// with ViewOf), followed by the "views" role.
	SideViews []SideView
	// ViewsReady, when set, is closed once the views have applied every
	// record their topics held when the views role started (readiness of
	// an API instance).
	ViewsReady chan struct{}
	Stats      *Stats
	Proc       *ProcessStats
	Logger     *slog.Logger
	// Now is the wall clock used only to place a live simulation in time.
	Now func() time.Time
	// Progress, when set, is called by each ingest loop after every commit.
	Progress func(source string, records int64)
	// BrokerReady, when set, receives the broker addresses once topics exist.
	BrokerReady func(brokers []string)
	// Parquet configures the Parquet sink role; Brokers and DataDir are
	// filled in by Run.
	Parquet ParquetSinkConfig
	// News, when set, configures the news stage (RunNews); Brokers is
	// filled in by Run, and DataDir when left empty.
	News *NewsConfig
	// SideEvents, when set, are the detectors of the side-event stage
	// (RunSideEvents, role "alerts"): the token watches' stablecoin_depeg
	// and token_risk_change (TokenDetectors). SideSources are live sources
	// run with them (the token watches, which read their list from the
	// alert store): ingested like Live, but with the alerts role.
	SideEvents  []SideDetector
	SideSources []sources.Source
	// PositioningEvents, when set, configures the positioning event stage
	// (the positioning event stage: funding_extreme, prediction_market_move);
	// Brokers is filled in by Run.
	PositioningEvents *PositioningEventsConfig
}

// Run runs the configured roles until ctx ends or one of them fails. Finite
// sources finishing does not end Run: the operators and views keep serving,
// and a process of the ingest role alone stays up (its probes answer, and
// an orchestrator does not restart a finished replay again and again).
func Run(ctx context.Context, cfg RunConfig) error {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.Partitions == 0 {
		cfg.Partitions = 4
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Stats == nil {
		cfg.Stats = NewStats()
	}
	if cfg.Proc == nil {
		cfg.Proc = &ProcessStats{}
	}
	if has := len(cfg.Roles) == 0 || slices.Contains(cfg.Roles, "process"); has {
		cfg.Stats.AttachOperators(cfg.Proc)
	}
	if cfg.DataDir != "" {
		if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
			return fmt.Errorf("cannot create data directory: %w", err)
		}
	}
	brokers := cfg.Brokers
	// The embedded broker aborts the transactions a crash cut off when it
	// reloads, but writes no abort markers; readers then skip that producer
	// id's later records until an abort marker that never comes. So on the
	// embedded broker every start uses fresh transactional ids (new producer
	// ids); zombie fencing needs none there, as one process owns the broker.
	// A real cluster writes the markers, and keeps stable ids for fencing.
	txnSuffix := ""
	if len(brokers) == 0 {
		txnSuffix = "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
		emb, err := StartEmbedded(cfg.KafkaListen, cfg.DataDir, log)
		if err != nil {
			return err
		}
		defer emb.Close()
		brokers = []string{emb.Addr()}
		log.Info("embedded Kafka broker listening", "addr", emb.Addr(), "data", filepath.Join(cfg.DataDir, "kafka"))
	}
	if err := EnsureTopics(ctx, brokers, cfg.Partitions); err != nil {
		return err
	}
	if cfg.BrokerReady != nil {
		cfg.BrokerReady(brokers)
	}
	has := func(role string) bool {
		if len(cfg.Roles) == 0 {
			return true
		}
		for _, r := range cfg.Roles {
			if r == role {
				return true
			}
		}
		return false
	}
	if !has("ingest") {
		for _, src := range cfg.Live {
			_ = src.Close()
		}
	}
	// A run whose every source is finite ends: each writes end records
	// and the operators close the last minute once all have ended.
	endAfter := 0
	if len(cfg.Live) == 0 {
		for _, spec := range cfg.Sources {
			sp, err := ParseSourceSpec(spec)
			if err != nil || !(sp.Kind == "replay" || sp.Kind == "sim" && !sp.Start.IsZero() && sp.Duration > 0) {
				endAfter = 0
				break
			}
			endAfter++
		}
	}
	if endAfter > 0 {
		specs := slices.Clone(cfg.Sources)
		slices.Sort(specs)
		sum := sha256.Sum256([]byte(strings.Join(specs, "\n")))
		// The run names its number of sources, so an operator instance
		// that reads no source itself (mi process, a second instance)
		// knows when all have ended (ProcessConfig, handleEnd).
		cfg.endRun = strconv.Itoa(endAfter) + ":" + hex.EncodeToString(sum[:8])
	}
	g, gctx := errgroup.WithContext(ctx)
	if has("ingest") {
		for _, spec := range cfg.Sources {
			g.Go(func() error {
				return retryKafka(gctx, log, "source "+spec, func() error { return runSource(gctx, cfg, brokers, spec, txnSuffix, log) })
			})
		}
		for _, src := range cfg.Live {
			g.Go(func() error { runLive(gctx, cfg, brokers, src, txnSuffix, log); return nil })
		}
	}
	if has("process") {
		g.Go(func() error {
			return retryKafka(gctx, log, "operators", func() error {
				return Process(gctx, ProcessConfig{Brokers: brokers, InstanceID: cfg.InstanceID, TxnSuffix: txnSuffix, Operators: cfg.Operators, Stats: cfg.Stats, Logger: log,
					SessionTimeout: cfg.SessionTimeout, CheckpointInterval: cfg.CheckpointInterval}, cfg.Proc)
			})
		})
	}
	if has("views") && cfg.Views != nil {
		g.Go(func() error { return SyncViews(gctx, brokers, cfg.Views, log, cfg.ViewsReady) })
	} else if cfg.ViewsReady != nil {
		close(cfg.ViewsReady)
	}
	if has("views") && len(cfg.SideViews) > 0 {
		g.Go(func() error { return FollowSide(gctx, brokers, cfg.SideViews, log, nil) })
	}
	if has("news") && cfg.News != nil {
		g.Go(func() error {
			nc := *cfg.News
			nc.Brokers = brokers
			if nc.DataDir == "" {
				nc.DataDir = cfg.DataDir
			}
			if nc.Logger == nil {
				nc.Logger = log
			}
			return RunNews(gctx, nc)
		})
	}
	if has("alerts") {
		for _, src := range cfg.SideSources {
			g.Go(func() error { runLive(gctx, cfg, brokers, src, txnSuffix, log); return nil })
		}
	} else {
		for _, src := range cfg.SideSources {
			_ = src.Close()
		}
	}
	if has("alerts") && len(cfg.SideEvents) > 0 {
		g.Go(func() error {
			return RunSideEvents(gctx, SideEventsConfig{Brokers: brokers, Detectors: cfg.SideEvents, InstanceID: cfg.InstanceID, TxnSuffix: txnSuffix, Logger: log})
		})
	}
	if has("events") && cfg.PositioningEvents != nil {
		g.Go(func() error {
			sc := cfg.PositioningEvents.sideEvents(brokers)
			sc.InstanceID, sc.TxnSuffix, sc.Logger = cfg.InstanceID, txnSuffix, log
			return RunSideEvents(gctx, sc)
		})
	}
	if has("parquet") && cfg.DataDir != "" {
		g.Go(func() error {
			pc := cfg.Parquet
			pc.Brokers, pc.DataDir = brokers, cfg.DataDir
			if pc.Logger == nil {
				pc.Logger = log
			}
			return SinkParquet(gctx, pc)
		})
	}
	g.Go(func() error { <-gctx.Done(); return gctx.Err() })
	err := g.Wait()
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// SourceSpec is a parsed --source value: what mi run, mi backfill and mi
// bench open with Open and run with Drive.
type SourceSpec struct {
	Kind  string   // "sim" or "replay"
	Paths []string // replay files
	// Simulator settings (sim only).
	Seed      int64
	Start     time.Time // zero = live: an hour before now (so the 1m and 5m baselines are ready at once), then real time
	Duration  time.Duration
	RateScale float64
	Events    float64 // events per symbol per day; 0 = simulator default
	MaxSpeed  bool    // sim: generate as fast as possible instead of real time
	// Set by the caller, not by ParseSourceSpec (sim only): End, when not
	// zero, ends the simulation instead of Start+Duration; Symbols
	// restricts the universe; GroundTruth is the file the simulator writes
	// its planted events to.
	End         time.Time
	Symbols     []string
	GroundTruth string
}

// Open opens the source the spec describes. A simulation starts at Start,
// which the caller resolves first (a live start, a checkpoint's start, a
// backfill's warm-up); it ends at End, else Start+Duration when Duration is
// set, else never.
func (sp SourceSpec) Open() (sources.Source, error) {
	switch sp.Kind {
	case "replay":
		src, err := replay.OpenAll(sp.Paths)
		if err != nil {
			return nil, fmt.Errorf("cannot open replay: %w", err)
		}
		return src, nil
	case "sim":
		if sp.Start.IsZero() {
			panic("BUG: simulation opened without a start")
		}
		end := sp.End
		if end.IsZero() && sp.Duration > 0 {
			end = sp.Start.Add(sp.Duration)
		}
		src, err := sim.New(sim.Config{Seed: sp.Seed, Start: sp.Start, End: end, RateScale: sp.RateScale,
			EventsPerSymbolPerDay: sp.Events, Symbols: sp.Symbols, GroundTruthPath: sp.GroundTruth})
		if err != nil {
			return nil, fmt.Errorf("cannot start the simulator: %w", err)
		}
		return src, nil
	}
	panic("BUG: source spec of kind " + sp.Kind)
}

// ParseSourceSpec parses "sim", "sim:seed=7,start=2026-01-01T00:00:00Z,duration=6h,rate=0.5,events=4,speed=max"
// or "replay:PATH[,PATH...]". Errors name the accepted forms.
func ParseSourceSpec(s string) (SourceSpec, error) {
	const accepted = `accepted: "sim[:seed=N,start=RFC3339,duration=D,rate=X,events=X,speed=max]" or "replay:PATH[,PATH...]"`
	kind, rest, _ := strings.Cut(s, ":")
	switch kind {
	case "replay":
		if rest == "" {
			return SourceSpec{}, fmt.Errorf("cannot use source %q: replay needs at least one path; %s", s, accepted)
		}
		return SourceSpec{Kind: "replay", Paths: strings.Split(rest, ",")}, nil
	case "sim":
		sp := SourceSpec{Kind: "sim", Seed: 1, RateScale: 1}
		if rest == "" {
			return sp, nil
		}
		for _, kv := range strings.Split(rest, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				return SourceSpec{}, fmt.Errorf("cannot use source %q: %q is not key=value; %s", s, kv, accepted)
			}
			var err error
			switch k {
			case "seed":
				sp.Seed, err = strconv.ParseInt(v, 10, 64)
			case "start":
				sp.Start, err = time.Parse(time.RFC3339, v)
			case "duration":
				sp.Duration, err = time.ParseDuration(v)
			case "rate":
				sp.RateScale, err = strconv.ParseFloat(v, 64)
			case "events":
				sp.Events, err = strconv.ParseFloat(v, 64)
			case "speed":
				if v != "max" {
					err = errors.New("speed must be max (the default is real time)")
				}
				sp.MaxSpeed = true
			default:
				err = fmt.Errorf("unknown key %q", k)
			}
			if err != nil {
				return SourceSpec{}, fmt.Errorf("cannot use source %q: %s: %v; %s", s, kv, err, accepted)
			}
		}
		return sp, nil
	}
	return SourceSpec{}, fmt.Errorf("cannot use source %q: %s", s, accepted)
}

// kafkaRetries is how many Kafka failures in a row, each within
// kafkaQuickFailure of its attempt's start, retryKafka rides out before it
// gives up.
const (
	kafkaRetries      = 5
	kafkaQuickFailure = time.Minute
)

// retryKafka runs a stage (a source's ingest, the operators) and runs it
// again, from its last committed checkpoint, after Kafka failed it. A broker
// failover that outlasts the transaction timeout (TransactionTimeout) has
// the coordinator abort the stage's open transaction and bump its
// producer's epoch, so the next commit fails with PRODUCER_FENCED although
// no other writer exists. The stage started again does what a restarted
// process would: it loads its producer ids (fencing the old epoch), restores
// from its checkpoint and produces again what the aborted transaction held
// — the same records, which readers drop by their "seq" or the operators
// reproduce byte for byte. Errors that are not Kafka's (opening or reading a
// source, bad configuration) end the run as before, and so do kafkaRetries
// quick failures in a row.
func retryKafka(ctx context.Context, log *slog.Logger, stage string, run func() error) error {
	bo := sources.Backoff{Min: time.Second, Max: 30 * time.Second}
	for quick := 0; ; {
		start := time.Now()
		err := run()
		var ke *kerr.Error
		if err == nil || ctx.Err() != nil || !errors.As(err, &ke) {
			return err
		}
		if time.Since(start) > kafkaQuickFailure {
			quick = 0
			bo.Reset()
		}
		if quick++; quick > kafkaRetries {
			return err
		}
		wait := bo.Next()
		log.Warn("stage stopped by a Kafka error; resuming from its last checkpoint", "stage", stage, "err", err, "retry_in", wait.Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// runSource opens one source spec, resumes it from its checkpoint and
// ingests it.
func runSource(ctx context.Context, cfg RunConfig, brokers []string, spec, txnSuffix string, log *slog.Logger) error {
	sp, err := ParseSourceSpec(spec)
	if err != nil {
		return err
	}
	icfg := IngestConfig{Brokers: brokers, Speed: cfg.ReplaySpeed, Stats: cfg.Stats, Logger: log, TxnSuffix: txnSuffix, EndRun: cfg.endRun}
	var src sources.Source
	var resume Checkpoint
	switch sp.Kind {
	case "replay":
		if src, err = sp.Open(); err != nil {
			return err
		}
		if resume, _, err = ReadCheckpoint(ctx, brokers, src.Name()); err != nil {
			src.Close()
			return err
		}
	case "sim":
		name := simName(sp.Seed)
		cp, found, err := ReadCheckpoint(ctx, brokers, name)
		if err != nil {
			return err
		}
		live := sp.Start.IsZero()
		switch {
		case found && cp.StartNs != 0:
			sp.Start = time.Unix(0, cp.StartNs).UTC()
		case live:
			sp.Start = cfg.Now().Add(-LiveSimHistory).Truncate(time.Second).UTC()
		}
		if cfg.DataDir != "" {
			sp.GroundTruth = filepath.Join(cfg.DataDir, "sim-ground-truth.ndjson")
		}
		if src, err = sp.Open(); err != nil {
			return err
		}
		if src.Name() != name {
			panic("BUG: simulator name " + src.Name() + " != " + name)
		}
		resume = cp
		icfg.StartNs = sp.Start.UnixNano()
		icfg.Speed = 0
		icfg.Realtime = !sp.MaxSpeed && live
	}
	defer src.Close()
	if cfg.Progress != nil {
		name := src.Name()
		icfg.Progress = func(n int64) { cfg.Progress(name, n) }
	}
	return Ingest(ctx, icfg, src, resume)
}

// runLive ingests one live source (a venue connection of the sources
// configuration), resuming its record count from its checkpoint. A live
// source that fails is logged and shown failed in /status; it does not stop
// the other roles.
func runLive(ctx context.Context, cfg RunConfig, brokers []string, src sources.Source, txnSuffix string, log *slog.Logger) {
	defer src.Close()
	cp, _, err := ReadCheckpoint(ctx, brokers, src.Name())
	if err == nil {
		err = Ingest(ctx, IngestConfig{Brokers: brokers, Live: true, Stats: cfg.Stats, Logger: log, TxnSuffix: txnSuffix}, src, cp)
	}
	if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
		cfg.Stats.SetState(src.Name(), "failed", err)
		log.Error("live source stopped", "source", src.Name(), "err", err)
	}
}

// LiveSimHistory is how far in the past a live simulation starts: it
// catches up at full speed, so the 1m and 5m baselines (10 windows) are
// ready when it reaches the present.
const LiveSimHistory = time.Hour

func simName(seed int64) string { return "sim:seed=" + strconv.FormatInt(seed, 10) }
