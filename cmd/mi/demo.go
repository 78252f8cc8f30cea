package main

import (
	"errors"
	"log/slog"

	"github.com/marketintel/mi/internal/demopublishers"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/pipeline/sources"
)

// startDemoPublishers starts the offline demo's publishers over the
// fixtures directory dir (internal/demopublishers) and returns the setup
// of the sources reading them; the setup's close stops them.
func startDemoPublishers(dir, sourcesConfig string, stats *pipeline.Stats, reg *sources.Registry, log *slog.Logger) (*liveSetup, error) {
	if sourcesConfig != "" {
		return nil, errors.New("cannot use --demo-publishers with --sources-config: the demo's publishers replace the sources configuration")
	}
	p, err := demopublishers.Start(dir)
	if err != nil {
		return nil, err
	}
	log.Info("demo publishers serving the captures", "fixtures", dir, "url", p.URL, "polygon", p.ChainURL)
	l := newLiveSetup(p.Config, "demo publishers over "+dir, stats, reg, log)
	l.stop = p.Close
	return l, nil
}
