package main

import (
	"log/slog"

	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/pipeline/sources"
	_ "github.com/marketintel/mi/pipeline/sources/cex" // registers the exchange kinds
	"github.com/marketintel/mi/pipeline/sources/evmdex"
	_ "github.com/marketintel/mi/pipeline/sources/newsfeed" // registers the "news" kind
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

// liveSources opens the live sources of the configuration file path (the
// built-in default, deploy/sources.default.json, when path is empty). They
// run when no --source is given, or when --sources-config is given
// explicitly; nothing connects until the ingest loops start. pipeline.Run
// drives them (RunConfig.Live) like the --source specs.
func liveSources(specs []string, path string, stats *pipeline.Stats, log *slog.Logger) ([]sources.Source, error) {
	if len(specs) > 0 && path == "" {
		return nil, nil
	}
	cfg, err := sources.LoadConfig(path)
	if err != nil {
		return nil, err
	}
	srcs, err := cfg.Open(sources.Env{Observer: stats, Logger: log})
	if err != nil {
		return nil, err
	}
	where := path
	if where == "" {
		where = "built-in default (deploy/sources.default.json)"
	}
	log.Info("live sources configured", "config", where, "sources", len(srcs))
	return srcs, nil
}
