package main

import (
	"context"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/sources/newsfeed"
	"github.com/marketintel/mi/sinks/newsview"
)

// tickersTimeout bounds the read of SEC's ticker file at start; without it
// the news classifier knows the registry's coins but no US issuer names.
const tickersTimeout = 20 * time.Second

// newsWiring returns the news view this instance follows and the news stage
// (docs/news.md) when the sources configuration in use has an enabled
// "news" entry; nil, nil otherwise. The classifier's dictionary is the
// symbol registry's coins and SEC's ticker file, read through the edgar
// client (cached under <data>/edgar-cache).
func newsWiring(ctx context.Context, specs []string, path, dataDir string, retention, alertMaxAge time.Duration, live *operators.LiveEvents, log *slog.Logger) (*newsview.View, *pipeline.NewsConfig, error) {
	if len(specs) > 0 && path == "" {
		return nil, nil, nil // the live sources are off (see liveSources)
	}
	cfg, err := sources.LoadConfig(path)
	if err != nil {
		return nil, nil, err
	}
	var nc *newsfeed.Config
	for _, sc := range cfg.Sources {
		if sc.Kind == newsfeed.Kind && !sc.Disabled {
			var c newsfeed.Config
			if err := sc.Decode(&c); err != nil {
				return nil, nil, err
			}
			nc = &c
			break
		}
	}
	if nc == nil {
		return nil, nil, nil
	}
	var issuers []newsclass.Issuer
	var ep edgar.Endpoints
	if nc.Filings != nil {
		ep = nc.Filings.EDGAR
	}
	ec, err := edgar.New(edgar.Config{Endpoints: ep, UserAgent: cfg.HTTP.UserAgentHeader(), CacheDir: filepath.Join(dataDir, "edgar-cache"), Logger: log})
	if err == nil {
		tctx, cancel := context.WithTimeout(ctx, tickersTimeout)
		var tk *edgar.Tickers
		tk, err = ec.Tickers(tctx)
		cancel()
		if err == nil {
			issuers = newsfeed.Issuers(tk)
		}
	}
	if err != nil {
		log.Warn("news: SEC's ticker file is not available; US issuers are recognized by filings only until a restart", "err", err)
	}
	dict := newsclass.NewDictionary(newsfeed.Coins(), issuers)
	// The news stage runs the news detector (pipeline/news.go): news from
	// the feeds, sec_filing only when the source reads EDGAR's filings.
	live.Register("news", operators.AlertNews)
	if nc.Filings == nil || !nc.Filings.Disabled {
		live.Register("news", operators.AlertSECFiling)
	}
	return newsview.New(dict, retention), &pipeline.NewsConfig{Dictionary: dict, AlertMaxAge: alertMaxAge, Logger: log}, nil
}

// newsSideViews returns the side view of the news view, none without one.
func newsSideViews(nv *newsview.View) []pipeline.SideView {
	if nv == nil {
		return nil
	}
	return []pipeline.SideView{pipeline.ViewOf(sidetopic.News, nv.Apply)}
}
