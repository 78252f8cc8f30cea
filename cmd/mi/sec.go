package main

import (
	"bytes"
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

// secWiring builds the service of the fundamentals and insiders routes
// (query/sec; docs/fundamentals.md, docs/insiders.md): an EDGAR client
// configured by the "edgar" section of the sources configuration in use
// (www.sec.gov and data.sec.gov by default; the offline demo's
// configuration points it at its replay server) and the http section's
// User-Agent and per-host rate limits, with its cache under
// <data>/edgar-cache, and Parquet snapshots of every answer under <data>
// (docs/datasets.md, "SEC snapshots"). The client sends through env's
// polite client (poll.ClientOf, the one the news source's filings use, so
// sec.gov's 10 requests/s is one budget) unless the edgar section names
// its own userAgent, and records every request into env's registry as
// "sec:edgar" (/status, freshness.sources). insidersAsOf, when set, fixes
// the date the insiders answers are computed as of (--sec-insiders-as-of).
// It does no I/O.
func secWiring(cfg sources.Config, env sources.Env, dataDir string, insidersAsOf time.Time, log *slog.Logger) (*sec.Service, error) {
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
	// The client sends on the process's shared per-host limits (EDGAR's
	// fair-access 10 requests/s is one budget with the news source's
	// getcurrent polls); they take the http section's limits here too, so
	// they hold when no news source is configured.
	poll.Shared().Configure(cfg.HTTP)
	if ec.CacheDir == "" {
		ec.CacheDir = filepath.Join(dataDir, "edgar-cache")
	}
	ec.Logger = log
	if env.Registry != nil {
		endpoint := ec.WWW
		if endpoint == "" {
			endpoint = edgar.DefaultEndpoints.WWW
		}
		ec.Health = env.Registry.Register(secHealthName, "filings", endpoint)
	}
	c, err := edgar.New(ec)
	if err != nil {
		return nil, fmt.Errorf("cannot use the edgar section of the sources config: %w", err)
	}
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
