package main

import (
	"log/slog"

	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/pipeline/sources"
	_ "github.com/marketintel/mi/pipeline/sources/cex" // registers the exchange kinds
	"github.com/marketintel/mi/pipeline/sources/evmdex"
	_ "github.com/marketintel/mi/pipeline/sources/newsfeed" // registers the "news" kind
	_ "github.com/marketintel/mi/pipeline/sources/perps"    // registers positioning, prediction-markets
	"github.com/marketintel/mi/pipeline/sources/soldex"
)

// The on-chain kinds of the sources configuration (docs/venues.md).
func init() {
	sources.Register("evmdex", func(sc sources.SourceConfig, env sources.Env) (sources.Source, error) {
		return evmdex.FromEntry(sc.Raw, env.Observer, env.Logger)
	})
	sources.Register("soldex", func(sc sources.SourceConfig, env sources.Env) (sources.Source, error) {
		return soldex.FromEntry(sc.Raw, env.Logger)
	})
}

// liveSetup is the sources configuration this process runs and the
// environment every reader of the publishers shares (sources.Config.Env):
// one health registry for /status, one polite HTTP client, one reader per
// chain. The sources, the news stage's EDGAR client and the demo's
// publishers all take their clients from env.
type liveSetup struct {
	cfg   sources.Config
	env   sources.Env
	where string
	// stop, when set, stops what the setup started (the demo's
	// publishers).
	stop func() error
}

// close stops what the setup started; a nil setup has nothing.
func (l *liveSetup) close() {
	if l != nil && l.stop != nil {
		_ = l.stop()
	}
}

// loadLive reads the configuration file path (the built-in default,
// deploy/sources.default.json, when path is empty) into a setup whose
// environment records into reg. It returns nil when the live sources are
// off: --source given without --sources-config.
func loadLive(specs []string, path string, stats *pipeline.Stats, reg *sources.Registry, log *slog.Logger) (*liveSetup, error) {
	if len(specs) > 0 && path == "" {
		return nil, nil
	}
	cfg, err := sources.LoadConfig(path)
	if err != nil {
		return nil, err
	}
	where := path
	if where == "" {
		where = "built-in default (deploy/sources.default.json)"
	}
	return newLiveSetup(cfg, where, stats, reg, log), nil
}

// newLiveSetup returns the setup of cfg.
func newLiveSetup(cfg sources.Config, where string, stats *pipeline.Stats, reg *sources.Registry, log *slog.Logger) *liveSetup {
	return &liveSetup{cfg: cfg, where: where, env: cfg.Env(sources.Env{Observer: stats, Logger: log, Registry: reg})}
}

// config is the setup's configuration; nil for a nil setup.
func (l *liveSetup) config() *sources.Config {
	if l == nil {
		return nil
	}
	return &l.cfg
}

// open opens the setup's live sources; nothing connects until the ingest
// loops start. A nil setup has none.
func (l *liveSetup) open(log *slog.Logger) ([]sources.Source, error) {
	if l == nil {
		return nil, nil
	}
	srcs, err := l.cfg.Open(l.env)
	if err != nil {
		return nil, err
	}
	log.Info("live sources configured", "config", l.where, "sources", len(srcs))
	return srcs, nil
}
