package main

import (
	"cmp"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"time"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/operators/newsclass"
	"github.com/marketintel/mi/pipeline"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/sources/newsfeed"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/sinks/newsview"
)

// tickersTimeout bounds the read of SEC's ticker file at start; without it
// the news classifier knows the registry's coins but no US issuer names.
const tickersTimeout = 20 * time.Second

// newsWiring returns the news view this instance follows and the news stage
// (docs/news.md) when the sources configuration in use has an enabled
// "news" entry; nil, nil otherwise. The classifier's dictionary is the
// symbol registry's coins and SEC's ticker file, read through ec, the
// process's EDGAR client (edgarWiring), when the news entry's filings read
// the same EDGAR endpoints (cached under <data>/edgar-cache).
func newsWiring(ctx context.Context, setup *liveSetup, ec *edgar.Client, dataDir string, retention, alertMaxAge time.Duration, live *operators.LiveEvents, log *slog.Logger) (*newsview.View, *pipeline.NewsConfig, error) {
	if setup == nil {
		return nil, nil, nil // the live sources are off (see loadLive)
	}
	var nc *newsfeed.Config
	for _, sc := range setup.cfg.Sources {
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
	// The process's EDGAR client when the news entry reads the same EDGAR
	// (one cache, one sec:edgar entry in /status); otherwise one of its
	// own, still through the process's polite client: its User-Agent and
	// its sec.gov bucket, shared with the news source's EDGAR reads.
	var err error
	if ec == nil || !sameEDGAR(ep, ec.Endpoints()) {
		www := cmp.Or(ep.WWW, edgar.DefaultEndpoints.WWW)
		ec, err = edgar.New(edgar.Config{Endpoints: ep, HTTP: poll.ClientOf(setup.env), Health: setup.env.Registry.Register("news:edgar-tickers", "filings", www),
			CacheDir: filepath.Join(dataDir, "edgar-cache"), Logger: log})
	}
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

// sameEDGAR reports whether a and b, defaults filled in, are the same
// EDGAR hosts.
func sameEDGAR(a, b edgar.Endpoints) bool {
	norm := func(e edgar.Endpoints) edgar.Endpoints {
		return edgar.Endpoints{WWW: strings.TrimRight(cmp.Or(e.WWW, edgar.DefaultEndpoints.WWW), "/"), Data: strings.TrimRight(cmp.Or(e.Data, edgar.DefaultEndpoints.Data), "/")}
	}
	return norm(a) == norm(b)
}
