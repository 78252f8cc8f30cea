// Command mi runs the Market Intelligence Service: every pipeline role and
// the query API in one process (mi run), benchmarks (mi bench) and operator
// tools. Flags and wiring only; the logic lives in the packages.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/query"
	"github.com/marketintel/mi/query/history"
	"github.com/marketintel/mi/sinks/newsview"
	"github.com/marketintel/mi/sinks/views"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

const usage = `mi — Market Intelligence Service

Usage:
  mi run [flags]          every role in one process: sources, operators, views, API
  mi bench pipeline [flags]  end-to-end throughput through the embedded broker
  mi bench serve [--symbols N]  the API over N synthetic symbols, for wrk
  mi backfill --source sim|replay:PATH --from DATE --to DATE   history day files, in process
  mi export --from DATE --to DATE --dest DIR [--symbols LIST]  copy complete day files
  mi sql [--csv] "SELECT ..."   DuckDB over the day files (views candles, signals, trades, signal_changes)
  mi retention [--now DATE]     roll candle day files up (1m 7 days, 5m 30, 15m 180, then 1h)

  mi credits grant|balance  operator credits: new API key with credit, key balance
  mi version              print the version

Run "mi run -h" or "mi bench pipeline -h" for flags.
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "run":
		err = cmdRun(ctx, os.Args[2:])
	case "bench":
		err = cmdBench(ctx, os.Args[2:])
	case "backfill":
		err = cmdBackfill(ctx, os.Args[2:])
	case "export":
		err = cmdExport(ctx, os.Args[2:])
	case "sql":
		err = cmdSQL(ctx, os.Args[2:])
	case "retention":
		err = cmdRetention(ctx, os.Args[2:])

	case "credits":
		err = cmdCredits(ctx, os.Args[2:])
	case "version", "--version", "-v":
		fmt.Printf("mi %s (%s %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	case "help", "-h", "--help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "mi: unknown command %q\n\n%s", os.Args[1], usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "mi:", err)
		os.Exit(1)
	}
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

func cmdRun(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mi run", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "./data", "data directory (embedded broker logs, ground truth)")
	httpAddr := fs.String("http-addr", ":8080", "address of the HTTP API")
	pay := addPaymentFlags(fs) // payments.go
	duckMemory := fs.String("duckdb-memory", history.DefaultMemoryLimit, "DuckDB memory limit of the history routes (candles, datasets, query, backtest, track record), e.g. 512MB or 2GB; a hard bound (no spilling): the backtest scores symbols in batches sized to it, so more memory only makes long backtests faster")
	var srcs stringList
	fs.Var(&srcs, "source", `trade source, repeatable: "sim[:seed=N,start=RFC3339,duration=D,rate=X,events=X,speed=max]" or "replay:PATH[,PATH...]" (default: the live sources of --sources-config)`)
	sourcesConfig := fs.String("sources-config", "", "live sources configuration (JSON, see docs/venues.md); empty uses the built-in default deploy/sources.default.json when no --source is given")
	demoPublishers := fs.String("demo-publishers", "", "offline demo: serve the real captures of this fixtures directory (../shared/fixtures) at the publishers' paths on a loopback port, with a simulated Polygon for the Aave read, and run the news, SEC, rates and positioning sources against them instead of --sources-config (docs/demo.md)")
	speed := fs.String("replay-speed", "max", "replay pace: max, or a multiple of real time")
	brokers := fs.String("kafka-brokers", "", "comma-separated brokers of an external Kafka cluster; empty starts the embedded broker")
	listen := fs.String("kafka-listen", "127.0.0.1:9092", "listen address of the embedded broker")
	partitions := fs.Int("partitions", 4, "partitions of the partitioned topics (at creation)")
	instance := fs.String("instance-id", "local", "unique id of this instance (transactional ids)")
	latCEX := fs.Duration("lateness-cex", operators.DefaultConfig().LatenessCEX, "allowed lateness of exchange trades")
	latDEX := fs.Duration("lateness-onchain-dex", operators.DefaultConfig().LatenessOnchainDEX, "allowed lateness of EVM DEX trades")
	latSol := fs.Duration("lateness-solana-dex", operators.DefaultConfig().LatenessSolanaDEX, "allowed lateness of Solana DEX trades")
	roles := fs.String("roles", "", "comma-separated roles to run: ingest, process, views, parquet, news (default all); the API always runs")
	newsRetention := fs.Duration("news-retention", newsview.DefaultRetention, "how far back from the newest item the news view keeps items (the day files keep everything); the offline demo, whose captures span years, sets it longer")
	newsMaxAge := fs.Duration("news-alert-max-age", 24*time.Hour, "news and sec_filing alerts only for items read at most this long after publication (docs/news.md); negative: no limit (replays of old captures)")
	logFormat := fs.String("log-format", "text", "log format: text or json")
	if err := fs.Parse(args); err != nil {
		return err
	}
	log, err := newLogger(*logFormat)
	if err != nil {
		return err
	}
	sp, err := parseSpeed(*speed)
	if err != nil {
		return err
	}
	for _, s := range srcs {
		if _, err := pipeline.ParseSourceSpec(s); err != nil {
			return err
		}
	}
	var rl []string
	if *roles != "" {
		for _, r := range strings.Split(*roles, ",") {
			switch r {
			case "ingest", "process", "views", "parquet", "news":
				rl = append(rl, r)
			default:
				return fmt.Errorf("cannot use --roles %q: accepted roles are ingest, process, views, parquet, news", *roles)
			}
		}
	}
	var bl []string
	if *brokers != "" {
		bl = strings.Split(*brokers, ",")
	}
	ocfg := operators.DefaultConfig()
	ocfg.LatenessCEX, ocfg.LatenessOnchainDEX, ocfg.LatenessSolanaDEX = *latCEX, *latDEX, *latSol
	if err := ocfg.Validate(); err != nil {
		return fmt.Errorf("cannot use the lateness flags: %w", err)
	}

	v := views.New()
	stats := pipeline.NewStats()
	proc := &pipeline.ProcessStats{}
	progress := newProgress(os.Stderr, log)
	store, paywall, err := pay.build(ctx, *dataDir, log) // payments.go
	if err != nil {
		return err
	}
	defer store.Close()
	alertsD, err := openAlerts(ctx, store.DB(), store.Dialect(), *dataDir, log) // see cmd/mi/alerts.go
	if err != nil {
		return err
	}
	hs, err := history.Open(history.Config{DataDir: *dataDir, MemoryLimit: *duckMemory})
	if err != nil {
		return err
	}
	defer hs.Close()
	lv := views.NewLiquidity()                                          // follows mi.pool-events.v1 (SideViews below)
	freshness := sources.NewRegistry(log, nil)                          // every polled source and chain reader, for /status
	setup, err := loadLive(srcs, *sourcesConfig, stats, freshness, log) // sources.go
	if *demoPublishers != "" {
		setup, err = startDemoPublishers(*demoPublishers, *sourcesConfig, stats, freshness, log) // demo.go
	}
	if err != nil {
		return err
	}
	defer setup.close()
	_, ratesSide, err := pipeline.RatesView(pay.operatorName, setup.config()) // follows mi.rates.v1 (docs/rates.md)
	if err != nil {
		return err
	}
	srv := query.New(query.Deps{Views: v, Stats: stats, Version: version, Logger: log, Paywall: paywall, Ledger: store, Liquidity: lv, Alerts: alertsD, History: hs, Freshness: freshness})
	var live []sources.Source
	if rl == nil || slices.Contains(rl, "ingest") {
		if live, err = setup.open(log); err != nil {
			return err
		}
	}

	nv, newsStage, err := newsWiring(ctx, setup, *dataDir, *newsRetention, *newsMaxAge, log) // news.go
	if err != nil {
		return err
	}
	if newsStage != nil {
		operators.SetLive(operators.AlertNews, operators.AlertSECFiling)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, 2)
	go func() {
		errc <- pipeline.Run(ctx, pipeline.RunConfig{
			DataDir: *dataDir, Sources: srcs, ReplaySpeed: sp, Brokers: bl, KafkaListen: *listen,
			Partitions: *partitions, InstanceID: *instance, Operators: ocfg, Roles: rl,
			Views: v, SideViews: append([]pipeline.SideView{pipeline.ViewOf(sidetopic.PoolEvents, lv.ApplyRecord), ratesSide}, newsSideViews(nv)...),
			News:  newsStage,
			Stats: stats, Proc: proc, Logger: log, Progress: progress.update,
			Parquet: pipeline.ParquetSinkConfig{Every: hourlyRetention(*dataDir, log)},
			BrokerReady: func(b []string) {
				startLive(ctx, live, len(bl) > 0, stats, log)(b)
				startAlertStages(ctx, b, alertsD, log)
				if rl == nil || slices.Contains(rl, "parquet") {
					startRatesFiles(ctx, b, *dataDir, log)
				}
			},
		})
	}()
	go func() {
		log.Info("HTTP API listening", "addr", *httpAddr)
		errc <- srv.Listen(*httpAddr)
	}()
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	progress.done()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	_ = srv.Shutdown(sctx)
	cancel()
	if err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	log.Info("stopped")
	return nil
}

func cmdBench(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "serve" {
		return cmdBenchServe(ctx, args[1:]) // benchserve.go
	}
	if len(args) == 0 || args[0] != "pipeline" {
		return errors.New(`usage: mi bench pipeline|serve [flags]`)
	}
	fs := flag.NewFlagSet("mi bench pipeline", flag.ContinueOnError)
	trades := fs.Int("trades", 2_000_000, "trades to push through the pipeline")
	partitions := fs.Int("partitions", 4, "partitions of mi.trades.v1")
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
	log, _ := newLogger("text")
	progress := newProgress(os.Stderr, log)
	progress.total = int64(*trades)
	res, err := pipeline.Bench(ctx, pipeline.BenchConfig{Trades: *trades, Partitions: *partitions, Logger: log, Progress: func(n int64) { progress.update("bench", n) }})
	progress.done()
	if err != nil {
		return err
	}
	fmt.Printf("trades: %d\npartitions: %d\ningest: %.0f trades/s\noperators: %d candles, %d documents\nelapsed: %s\ntrades/s: %.0f\n",
		res.Trades, *partitions, res.IngestRate, res.Candles, res.Documents, res.Elapsed.Round(time.Millisecond), res.Rate)
	return nil
}
