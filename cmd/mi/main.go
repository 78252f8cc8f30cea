// Command mi runs the Market Intelligence Service: every pipeline role and
// the query API in one process (mi run), benchmarks (mi bench) and operator
// tools. Flags and wiring only; the logic lives in the packages.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/marketintel/mi/internal/datadir"
	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/token"
	"github.com/marketintel/mi/query"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/sinks/alerts"
	"github.com/marketintel/mi/sinks/newsview"
	"github.com/marketintel/mi/sinks/views"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const usage = `mi — Market Intelligence Service

Usage:
  mi run [flags]          every role in one process: sources, operators, views, API
  mi ingest|process|sink|alerts|serve --kafka-brokers LIST [flags]
                          one role as its own process against a Kafka cluster (docs/deploy.md)
  mi bench pipeline [flags]  end-to-end throughput through the embedded broker
  mi bench serve [--symbols N]  the API over N synthetic symbols, for wrk
  mi backfill --source sim|replay:PATH --from DATE --to DATE   history day files, in process
  mi export --from DATE --to DATE --dest DIR [--symbols LIST]  copy complete day files
  mi sql [--csv] "SELECT ..."   DuckDB over the day files (views candles, signals, trades, signal_changes)
  mi retention [--now DATE]     roll candle day files up (1m 7 days, 5m 30, 15m 180, then 1h)
  mi symbols [NAME ...]         covered symbols: canonical name, aliases, asset class, venues

  mi credits grant|balance  operator credits: new API key with credit, key balance
  mi version              print the version

Run "mi <command> -h" for a command's flags.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// isHelp reports whether args ask a command with subcommands for help.
func isHelp(args []string) bool {
	return len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help")
}

// run runs one mi command and returns the process exit code: 0, 1 when the
// command failed, 2 for an unknown command. Asking any command for help
// (-h, --help) prints its usage and returns 0.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) < 1 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	switch args[0] {
	case "run":
		err = cmdRun(ctx, "run", nil, args[1:])
	case "ingest", "process", "sink", "alerts", "serve":
		err = cmdRun(ctx, args[0], roleCommands[args[0]], args[1:]) // roles.go
	case "bench":
		err = cmdBench(ctx, args[1:])
	case "backfill":
		err = cmdBackfill(ctx, args[1:])
	case "export":
		err = cmdExport(ctx, args[1:])
	case "sql":
		err = cmdSQL(ctx, args[1:])
	case "retention":
		err = cmdRetention(ctx, args[1:])
	case "symbols":
		err = cmdSymbols(args[1:], stdout)
	case "credits":
		if isHelp(args[1:]) {
			fmt.Fprintln(stdout, creditsUsage)
			return 0
		}
		err = cmdCredits(ctx, args[1:])
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "mi %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
	default:
		fmt.Fprintf(stderr, "mi: unknown command %q\n\n%s", args[0], usage)
		return 2
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0 // the flag set printed the usage
	case err != nil:
		fmt.Fprintln(stderr, "mi:", err)
		return 1
	}
	return 0
}

// listenError names the flag (and the make variable) that moves a listener
// when its address cannot be bound, e.g. because another process uses it.
func listenError(err error, addr, flagName, makeVar string) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("cannot listen on %s: the address is already in use (another mi or another program); choose another with %s ADDR (make run %s=ADDR): %w", addr, flagName, makeVar, err)
	}
	return fmt.Errorf("cannot listen on %s (%s, make %s=ADDR): %w", addr, flagName, makeVar, err)
}

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, " ") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// parseSpeed reads --replay-speed: "max" or a positive real-time multiple.
func parseSpeed(s string) (float64, error) {
	if s == "max" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || !(f > 0) || f > 1e6 {
		return 0, fmt.Errorf("cannot use --replay-speed %q: accepted values are max or a number between 0 and 1000000 (a multiple of real time)", s)
	}
	return f, nil
}

func newLogger(format string) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, nil)), nil
	}
	return nil, fmt.Errorf("cannot use --log-format %q: accepted values are text, json", format)
}

// cmdRun runs mi run (every role, or those of --roles) or, with fixed
// roles, one role command (mi process, ...; see roles.go).
func cmdRun(ctx context.Context, name string, fixed []string, args []string) (err error) {
	fs := flag.NewFlagSet("mi "+name, flag.ContinueOnError)
	dataDir := fs.String("data-dir", "./data", "data directory (embedded broker logs, ground truth)")
	httpAddr := fs.String("http-addr", ":8080", "address of the HTTP API")
	pay := addPaymentFlags(fs)         // payments.go
	card := addCheckoutFlags(fs)       // checkout.go
	devHooks := addDevWebhookFlags(fs) // alerts.go
	duckMemory := fs.String("duckdb-memory", history.DefaultMemoryLimit, "DuckDB memory limit of the history routes (candles, datasets, query, backtest, track record), e.g. 512MB or 2GB; a hard bound (no spilling): the backtest scores symbols in batches sized to it, so more memory only makes long backtests faster")
	var srcs stringList
	fs.Var(&srcs, "source", `trade source, repeatable: "sim[:seed=N,start=RFC3339,duration=D,rate=X,events=X,speed=max]" or "replay:PATH[,PATH...]" (default: the live sources of --sources-config)`)
	devChain := fs.String("dev-chain", "", "start a local simulated EVM chain on this address (e.g. 127.0.0.1:8545) holding the token-analysis suite, and serve the token routes from it as chain base (the offline demo; docs/token.md)")
	demoPublishers := fs.String("demo-publishers", "", "offline demo: serve the real captures of this fixtures directory (../shared/fixtures) at the publishers' paths on a loopback port, with a simulated Polygon for the Aave read, and run the news, SEC, rates and positioning sources against them instead of --sources-config (docs/demo.md)")
	sourcesConfig := fs.String("sources-config", "", "live sources configuration (JSON, see docs/venues.md); empty uses the built-in default deploy/sources.default.json when no --source is given")
	speed := fs.String("replay-speed", "max", "replay pace: max, or a multiple of real time")
	brokers := fs.String("kafka-brokers", "", "comma-separated brokers of an external Kafka cluster; empty starts the embedded broker")
	listen := fs.String("kafka-listen", "127.0.0.1:9092", "listen address of the embedded broker")
	partitions := fs.Int("partitions", 4, "partitions of the partitioned topics (at creation)")
	instance := fs.String("instance-id", "local", "unique id of this instance (transactional ids)")
	latCEX := fs.Duration("lateness-cex", operators.DefaultConfig().LatenessCEX, "allowed lateness of exchange trades")
	latDEX := fs.Duration("lateness-onchain-dex", operators.DefaultConfig().LatenessOnchainDEX, "allowed lateness of EVM DEX trades")
	latSol := fs.Duration("lateness-solana-dex", operators.DefaultConfig().LatenessSolanaDEX, "allowed lateness of Solana DEX trades")
	checkpoint := fs.Duration("checkpoint-interval", time.Second, "how often the operators commit their state, positions and consumer offsets (10ms to 1m); outputs commit every poll either way, and the outputs never depend on it")
	flushEvery := fs.Duration("parquet-flush-interval", 30*time.Second, "how often the Parquet sink writes its buffered rows to part files and commits its offsets (100ms to 1h); the day files never depend on it")
	retention := fs.String("retention", "on", "candle retention: on rolls 1m day files up to 5m after 7 days, 15m after 30, 1h after 180, by the wall clock, hourly; off keeps every 1m candle (use it when replaying old captures for research)")
	session := fs.Duration("group-session-timeout", 45*time.Second, "how long the operators' consumer group waits for a silent instance before moving its partitions to the others (6s to 5m; the brokers' group.min/max.session.timeout.ms bound it too)")
	roles := fs.String("roles", "", "comma-separated roles to run: ingest, process, views, parquet, news, alerts, events (the positioning event stage) (default all); the query API runs with views")
	opsAddr := fs.String("ops-addr", "", "address of the operations port: /healthz, /readyz (caught-up consumption) and /metrics of the process's roles; empty turns it off")
	readyLag := fs.Int64("ready-lag", 10_000, "readiness: the most records a role's consumer group may be behind and still be ready")
	newsRetention := fs.Duration("news-retention", newsview.DefaultRetention, "how far back from the newest item the news view keeps items (the day files keep everything); the offline demo, whose captures span years, sets it longer")
	newsMaxAge := fs.Duration("news-alert-max-age", 24*time.Hour, "news and sec_filing alerts only for items read at most this long after publication (docs/news.md); negative: no limit (replays of old captures)")
	insidersAsOf := fs.String("sec-insiders-as-of", "", "compute the insiders answers as of this day (YYYY-MM-DD) or time (RFC 3339) instead of the current time; a demo setting (the offline demo's Form 4 captures are from 2022), shown in every answer's asOf and methodology")
	logFormat := fs.String("log-format", "text", "log format: text or json")
	if fixed != nil {
		*opsAddr = ":9090"
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	asOf, err := parseAsOf(*insidersAsOf) // sec.go
	if err != nil {
		return err
	}
	log, err := newLogger(*logFormat)
	if err != nil {
		return err
	}
	// Say up front when the data directory cannot be written, and name the
	// directory and the cause of any later failure that comes from it (a
	// full disk shows up as the broker's UNKNOWN_SERVER_ERROR otherwise).
	if err := datadir.Check(*dataDir); err != nil {
		return err
	}
	defer func() {
		if err != nil && !errors.Is(err, context.Canceled) {
			err = datadir.Diagnose(*dataDir, err)
		}
	}()
	sp, err := parseSpeed(*speed)
	if err != nil {
		return err
	}
	for _, s := range srcs {
		if _, err := pipeline.ParseSourceSpec(s); err != nil {
			return err
		}
	}
	if *session < 6*time.Second || *session > 5*time.Minute {
		return fmt.Errorf("cannot use --group-session-timeout %s: accepted range 6s to 5m", *session)
	}
	if *checkpoint < 10*time.Millisecond || *checkpoint > time.Minute {
		return fmt.Errorf("cannot use --checkpoint-interval %s: accepted range 10ms to 1m", *checkpoint)
	}
	if *flushEvery < 100*time.Millisecond || *flushEvery > time.Hour {
		return fmt.Errorf("cannot use --parquet-flush-interval %s: accepted range 100ms to 1h", *flushEvery)
	}
	every, err := retentionHook(*retention, *dataDir, log)
	if err != nil {
		return err
	}
	var rl []string
	if *roles != "" {
		if fixed != nil {
			return fmt.Errorf("cannot use --roles with mi %s: it runs the %s role; use mi run --roles for a mix", name, fixed[0])
		}
		for _, r := range strings.Split(*roles, ",") {
			switch r {
			case "ingest", "process", "views", "parquet", "news", "alerts", "events":
				rl = append(rl, r)
			default:
				return fmt.Errorf("cannot use --roles %q: accepted roles are ingest, process, views, parquet, news, alerts, events", *roles)
			}
		}
	}
	var bl []string
	if *brokers != "" {
		bl = strings.Split(*brokers, ",")
	}
	if fixed != nil {
		if len(bl) == 0 {
			return fmt.Errorf("cannot run mi %s without --kafka-brokers: a role runs on its own only against a Kafka cluster (mi run runs every role on the embedded broker)", name)
		}
		rl = fixed
	}
	has := func(role string) bool { return rl == nil || slices.Contains(rl, role) }
	ocfg := operators.DefaultConfig()
	ocfg.LatenessCEX, ocfg.LatenessOnchainDEX, ocfg.LatenessSolanaDEX = *latCEX, *latDEX, *latSol
	if err := ocfg.Validate(); err != nil {
		return fmt.Errorf("cannot use the lateness flags: %w", err)
	}

	v := views.New()
	stats := pipeline.NewStats()
	proc := &pipeline.ProcessStats{}
	progress := newProgress(os.Stderr, log)
	// The query API runs with the views; the ledger and the alert outbox
	// with the API and the alert dispatcher.
	api, alerting := has("views"), has("alerts")
	var alertsD *alerts.Dispatcher
	var srv *query.Server
	var viewsReady chan struct{}
	freshness := sources.NewRegistry(log, nil) // every polled source, chain reader and token watch, for /status
	var sideEvents []pipeline.SideDetector     // the token watches' detectors (alerts role)
	var sideSources []sources.Source           // the token watches (alerts role)
	safety, hookTLS, err := devHooks.config(pay, log)
	if err != nil {
		return err
	}
	// freshness (above) also holds every polled source, for /status
	setup, err := loadLive(srcs, *sourcesConfig, stats, freshness, log) // sources.go
	if *demoPublishers != "" {
		setup, err = startDemoPublishers(*demoPublishers, *sourcesConfig, stats, freshness, log) // demo.go
	}
	if err != nil {
		return err
	}
	defer setup.close()
	// The alert events whose detector runs: each stage that runs one
	// registers its events as it is wired (docs/alerts.md, "Live events").
	// In a split deployment (--roles, mi serve) an API instance sells the
	// events the deployment's processing and sink roles detect with the same
	// sources file (docs/deploy.md).
	liveEvents := operators.NewLiveEvents()
	if has("process") || api {
		liveEvents.Register("signals", operators.SignalAlertEvents...) // pipeline/process.go
	}
	newsEvents := liveEvents
	if !has("news") && !api {
		newsEvents = operators.NewLiveEvents() // the news stage runs elsewhere
	}
	// The process's one EDGAR client (the SEC routes, the news
	// classifier's ticker read) reads EDGAR as the setup's configuration says (the
	// demo's points at its publishers), through the setup's shared
	// clients; without live sources, as the built-in default says.
	secSetup := setup
	if secSetup == nil {
		if secSetup, err = loadLive(nil, *sourcesConfig, stats, freshness, log); err != nil {
			return err
		}
	}
	edgarC, err := edgarWiring(secSetup.cfg, secSetup.env, *dataDir, log) // sec.go
	if err != nil {
		return err
	}
	nv, newsStage, err := newsWiring(ctx, setup, edgarC, *dataDir, *newsRetention, *newsMaxAge, newsEvents, log) // news.go
	if err != nil {
		return err
	}
	// The positioning event stage (role events) runs funding_extreme and
	// prediction_market_move when their sources are configured.
	posEvents := positioningEvents(setup) // positioning.go
	if posEvents != nil && (has("events") || api) {
		liveEvents.Register("positioning", posEvents.Events()...) // pipeline/positioningevents.go
	}
	secSvc, err := secWiring(edgarC, *dataDir, asOf, log) // sec.go
	if err != nil {
		return err
	}
	lv := views.NewLiquidity()                                                 // follows mi.pool-events.v1 (SideViews below)
	pv := views.NewPositioning()                                               // follows mi.positioning.v1 (docs/positioning.md)
	rv, ratesSide, err := pipeline.RatesView(pay.operatorName, setup.config()) // follows mi.rates.v1 (docs/rates.md)
	if err != nil {
		return err
	}
	if api || alerting {
		store, paywall, err := pay.build(ctx, *dataDir, log) // payments.go
		if err != nil {
			return err
		}
		defer store.Close()
		if alertsD, err = openAlerts(ctx, store.DB(), store.Dialect(), *dataDir, safety, hookTLS, log); err != nil { // see cmd/mi/alerts.go
			return err
		}
		// The token reader serves the token routes (views) and the token
		// watches (alerts: docs/token.md, "How the watches run").
		tokens, tokenChains, closeChains, err := openTokenReader(*sourcesConfig, freshness, log) // cmd/mi/token.go
		coins := token.DefaultStablecoins()
		if *devChain != "" {
			tokens, coins, closeChains, err = startDevChain(*devChain, freshness, log) // cmd/mi/devchain.go
			tokenChains = []string{"base"}
		}
		if err != nil {
			return err
		}
		defer closeChains()
		// The alerts role runs the token watches' detectors; an API
		// instance sells what the deployment's alerts role detects.
		sideEvents = pipeline.TokenDetectors()
		liveEvents.Register("token-watches", pipeline.SideEventNames(sideEvents)...)
		if alerting {
			sideSources = tokenWatchSources(tokens, tokenChains, coins, alertsD.Store(), freshness, log) // token.go
		}
		if api {
			hs, err := history.Open(history.Config{DataDir: *dataDir, MemoryLimit: *duckMemory})
			if err != nil {
				return err
			}
			defer hs.Close()
			cardCheckout, err := card.build(store, pay.publicURL, log) // checkout.go
			if err != nil {
				return err
			}
			srv = query.New(query.Deps{Views: v, Stats: stats, Version: version, Logger: log, Paywall: paywall, Ledger: store, Liquidity: lv,
				Alerts: alertsD, Events: liveEvents, History: hs, Token: tokens, SEC: secSvc, News: nv, Checkout: cardCheckout,
				Freshness: freshness, Rates: rv, Positioning: pv})
			viewsReady = make(chan struct{})
		}
	}
	var live []sources.Source
	if has("ingest") {
		if live, err = setup.open(log); err != nil {
			return err
		}
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 3)
	ops := newOps(*opsAddr, *readyLag, rl, stats, proc, viewsReady, newsStage != nil, log) // roles.go
	go func() {
		errc <- pipeline.Run(ctx, pipeline.RunConfig{
			DataDir: *dataDir, Sources: srcs, ReplaySpeed: sp, Brokers: bl, KafkaListen: *listen,
			Partitions: *partitions, InstanceID: *instance, Operators: ocfg, Roles: rl, SessionTimeout: *session, CheckpointInterval: *checkpoint,
			Views: v, SideViews: append([]pipeline.SideView{pipeline.ViewOf(sidetopic.PoolEvents, lv.ApplyRecord), ratesSide,
				pipeline.ViewOf(sidetopic.Positioning, pv.Apply)}, newsSideViews(nv)...),
			ViewsReady: viewsReady,
			News:       newsStage, SideEvents: sideEvents, SideSources: sideSources, PositioningEvents: posEvents,
			Stats: stats, Proc: proc, Logger: log, Progress: progress.update,
			Parquet: pipeline.ParquetSinkConfig{Every: every, FlushInterval: *flushEvery, InstanceID: *instance},
			Live:    live,
			BrokerReady: func(b []string) {
				if alerting {
					startAlertStages(ctx, b, alertsD, log)
				}
				if has("parquet") {
					startRatesFiles(ctx, b, *dataDir, log)
				}
				ops.start(ctx, b, errc)
			},
		})
	}()
	if srv != nil {
		// Listen before serving, so the log names the address a port 0
		// was given (the cluster suite starts its roles on port 0).
		ln, err := net.Listen("tcp", *httpAddr)
		if err != nil {
			return listenError(err, *httpAddr, "--http-addr", "HTTP_ADDR")
		}
		log.Info("HTTP API listening", "addr", ln.Addr().String())
		go func() { errc <- srv.Serve(ln) }()
	}
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	progress.done()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	if srv != nil {
		_ = srv.Shutdown(sctx)
	}
	ops.shutdown(sctx)
	cancel()
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	log.Info("stopped")
	return nil
}

const benchUsage = `usage: mi bench pipeline [flags]   end-to-end throughput through the embedded broker
       mi bench serve [flags]      the API over synthetic symbols, for wrk
("mi bench pipeline -h", "mi bench serve -h" list the flags)`

func cmdBench(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "serve" {
		return cmdBenchServe(ctx, args[1:]) // benchserve.go
	}
	if isHelp(args) {
		fmt.Fprintln(os.Stderr, benchUsage)
		return flag.ErrHelp
	}
	if len(args) == 0 || args[0] != "pipeline" {
		return errors.New(benchUsage)
	}
	fs := flag.NewFlagSet("mi bench pipeline", flag.ContinueOnError)
	trades := fs.Int("trades", 2_000_000, "trades to push through the pipeline")
	partitions := fs.Int("partitions", 4, "partitions of mi.trades.v1")
	brokers := fs.String("kafka-brokers", "", "comma-separated brokers of a fresh Kafka cluster to bench on; empty uses an in-memory embedded broker")
	instances := fs.Int("instances", 1, "operator instances in the consumer group (1 to the partition count)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile to this file")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return fmt.Errorf("cannot create the CPU profile: %w", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cannot start the CPU profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	if *trades < 1000 || *trades > 1_000_000_000 {
		return fmt.Errorf("cannot use --trades %d: accepted range 1000 to 1000000000", *trades)
	}
	if *instances < 1 || *instances > *partitions {
		return fmt.Errorf("cannot use --instances %d: accepted range 1 to --partitions (%d)", *instances, *partitions)
	}
	var bl []string
	if *brokers != "" {
		bl = strings.Split(*brokers, ",")
	}
	log, _ := newLogger("text")
	progress := newProgress(os.Stderr, log)
	progress.total = int64(*trades)
	res, err := pipeline.Bench(ctx, pipeline.BenchConfig{Trades: *trades, Partitions: *partitions, Brokers: bl, Instances: *instances,
		Logger: log, Progress: func(n int64) { progress.update("bench", n) }})
	progress.done()
	if err != nil {
		return err
	}
	fmt.Printf("broker: %s\ninstances: %d\n", cmp.Or(*brokers, "embedded"), *instances)
	fmt.Printf("trades: %d\npartitions: %d\ningest: %.0f trades/s\noperators: %d candles, %d documents\nelapsed: %s\ntrades/s: %.0f\n",
		res.Trades, *partitions, res.IngestRate, res.Candles, res.Documents, res.Elapsed.Round(time.Millisecond), res.Rate)
	return nil
}
