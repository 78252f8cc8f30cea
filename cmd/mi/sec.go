package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/edgar"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/query/sec"
)

// edgarWiring returns the process's EDGAR client: configured by the
// "edgar" section of the sources configuration in use (www.sec.gov and
// data.sec.gov by default; the offline demo's configuration points it at
// its replay server), with its cache under <data>/edgar-cache. It sends
// through env's polite client (poll.ClientOf, the one the news source's
// filings use, so sec.gov's 10 requests/s is one budget; an edgar
// userAgent gives it a client of its own on the process's shared host
// limits) and records every request into env's registry as "sec:edgar"
// (/status, freshness.sources). The SEC routes and the news classifier's
// ticker read use it. It does no I/O.
func edgarWiring(cfg sources.Config, env sources.Env, dataDir string, log *slog.Logger) (*edgar.Client, error) {
	var ec edgar.Config
	if len(cfg.EDGAR) > 0 {
		d := json.NewDecoder(bytes.NewReader(cfg.EDGAR))
		d.DisallowUnknownFields()
		if err := d.Decode(&ec); err != nil {
			return nil, fmt.Errorf("cannot use the edgar section of the sources config: %w", err)
		}
	}
	if ec.UserAgent == "" {
		ec.HTTP = poll.ClientOf(env)
	}
	// The shared per-host limits take the http section's limits here too,
	// so they hold when no news source is configured.
	poll.Shared().Configure(cfg.HTTP)
	if ec.CacheDir == "" {
		ec.CacheDir = filepath.Join(dataDir, "edgar-cache")
	}
	ec.Logger = log
	if env.Registry != nil {
		ec.Health = env.Registry.Register(secHealthName, "filings", cmp.Or(ec.WWW, edgar.DefaultEndpoints.WWW))
	}
	c, err := edgar.New(ec)
	if err != nil {
		return nil, fmt.Errorf("cannot use the edgar section of the sources config: %w", err)
	}
	return c, nil
}

// secWiring builds the service of the fundamentals and insiders routes
// (query/sec; docs/fundamentals.md, docs/insiders.md) over the process's
// EDGAR client c (edgarWiring), with Parquet snapshots of every answer
// under <data> (docs/datasets.md, "SEC snapshots"). insidersAsOf, when
// set, fixes the date the insiders answers are computed as of
// (--sec-insiders-as-of). It does no I/O.
func secWiring(c *edgar.Client, dataDir string, insidersAsOf time.Time, log *slog.Logger) (*sec.Service, error) {
	if !insidersAsOf.IsZero() {
		log.Warn("SEC insiders answers are computed as of a fixed date, not the current time (--sec-insiders-as-of)", "as_of", insidersAsOf.Format(time.RFC3339))
	}
	return sec.New(sec.Config{Client: c, InsidersAsOf: insidersAsOf, Snapshots: &sec.Snapshots{Root: dataDir}, Logger: log})
}

// secHealthName is the SEC routes' EDGAR client in /status.
const secHealthName = "sec:edgar"

// parseAsOf reads --sec-insiders-as-of: empty (the clock), a UTC day
// YYYY-MM-DD (its start; the window holds that whole day) or an RFC 3339
// time.
func parseAsOf(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("cannot use --sec-insiders-as-of %q: accepted values are a day YYYY-MM-DD or an RFC 3339 time", s)
	}
	return t.UTC(), nil
}
