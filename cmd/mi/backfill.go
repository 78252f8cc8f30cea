package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/marketintel/mi/datasets"
	"github.com/marketintel/mi/internal/datadir"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/replay"
)

// cmdBackfill is "mi backfill": history day files from a simulation or a
// replay, in event time at full speed, without a broker.
func cmdBackfill(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("mi backfill", flag.ContinueOnError)
	source := fs.String("source", "sim", `"sim[:seed=N,rate=X,events=X]" or "replay:PATH[,PATH...]"`)
	from := fs.String("from", "", "first UTC day, YYYY-MM-DD (required)")
	to := fs.String("to", "", "last UTC day, YYYY-MM-DD (default: --from)")
	dataDir := fs.String("data-dir", "./data", "data directory the day files are written under")
	seed := fs.Int64("seed", 1, "simulator seed")
	rate := fs.Float64("rate", 1, "simulator rate scale (1 ≈ 300 trades/s over the default universe)")
	symbols := fs.String("symbols", "", "comma-separated simulated symbols (default: the whole universe)")
	sourcesConfig := fs.String("sources-config", "", "sources configuration whose chains section names the RPC endpoints that resolve Uniswap v3 pools of a replay that are not built in (docs/sources.md)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, t, err := parseDayRange(*from, *to)
	if err != nil {
		return err
	}
	if *rate < 0.001 || *rate > 10000 {
		return fmt.Errorf("cannot use --rate %g: accepted range 0.001 to 10000", *rate)
	}
	var syms []string
	if *symbols != "" {
		syms = strings.Split(*symbols, ",")
	}
	if err := datadir.Check(*dataDir); err != nil {
		return err
	}
	log, _ := newLogger("text")
	if *sourcesConfig != "" {
		cfg, err := sources.LoadConfig(*sourcesConfig)
		if err != nil {
			return err
		}
		set, err := chain.Open(cfg.Chains, chain.Options{UserAgent: cfg.HTTP.UserAgentHeader()})
		if err != nil {
			return err
		}
		defer set.Close()
		if err := replay.UseChains(set); err != nil {
			return err
		}
		log.Info("replay resolves Uniswap v3 pools on", "chains", set.Chains())
	}
	bar := newFracBar(os.Stderr)
	start := time.Now()
	res, err := pipeline.Backfill(ctx, pipeline.BackfillConfig{
		Root: *dataDir, Source: *source, From: f, To: t, Seed: *seed, RateScale: *rate, Symbols: syms, Logger: log,
		Progress: func(done float64, trades int64) { bar.update(done, fmt.Sprintf("%d trades", trades)) },
	})
	bar.done()
	if err != nil {
		return datadir.Diagnose(*dataDir, err)
	}
	log.Info("backfill finished", "days", len(res.Days), "accepted", res.Accepted, "rejected_by_reason", res.Rejected,
		"trades", res.Trades, "candles", res.Candles,
		"signal_rows", res.Signals, "signal_changes", res.SignalChanges, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// parseDayRange parses --from and --to (YYYY-MM-DD, UTC); an empty to is from.
func parseDayRange(from, to string) (time.Time, time.Time, error) {
	if from == "" {
		return time.Time{}, time.Time{}, fmt.Errorf("cannot run without --from: accepted a UTC date YYYY-MM-DD")
	}
	f, err := time.Parse(datasets.DateFormat, from)
	if err != nil {
		return time.Time{}, time.Time{}, fmt.Errorf("cannot use --from %q: accepted a UTC date YYYY-MM-DD", from)
	}
	t := f
	if to != "" {
		if t, err = time.Parse(datasets.DateFormat, to); err != nil {
			return time.Time{}, time.Time{}, fmt.Errorf("cannot use --to %q: accepted a UTC date YYYY-MM-DD", to)
		}
	}
	if t.Before(f) {
		return time.Time{}, time.Time{}, fmt.Errorf("cannot use --to %s before --from %s", to, from)
	}
	return f, t, nil
}

// fracBar is a progress bar over a known fraction: redrawn on a terminal,
// a line every five seconds otherwise.
type fracBar struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	last  time.Time
	drawn bool
}

func newFracBar(w *os.File) *fracBar {
	return &fracBar{w: w, tty: term.IsTerminal(int(w.Fd()))}
}

func (b *fracBar) update(f float64, detail string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	every := 5 * time.Second
	if b.tty {
		every = 200 * time.Millisecond
	}
	now := time.Now()
	if now.Sub(b.last) < every && f < 1 {
		return
	}
	b.last = now
	const width = 30
	fill := int(min(max(f, 0), 1) * width)
	line := fmt.Sprintf("[%s%s] %3.0f%%  %s", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), 100*f, detail)
	if b.tty {
		fmt.Fprintf(b.w, "\r%s\033[K", line)
		b.drawn = true
		return
	}
	fmt.Fprintln(b.w, line)
}

func (b *fracBar) done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.drawn {
		fmt.Fprintln(b.w)
		b.drawn = false
	}
}
