package perps

import (
	"fmt"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/poll"
)

// Source kinds of the sources configuration (pipeline/sources.Config):
//
//	{"kind": "positioning", "name": "poll:binance-usdm", "venue": "binance", "url": "https://fapi.binance.com",
//	 "symbols": ["BTCUSDT", "ETHUSDT"], "interval": "5m", "currentOpenInterest": true}
//	{"kind": "positioning", "name": "poll:bybit-linear", "venue": "bybit", "url": "https://api.bybit.com", "symbols": ["BTCUSDT"]}
//	{"kind": "positioning", "name": "poll:hyperliquid", "venue": "hyperliquid", "url": "https://api.hyperliquid.xyz", "dexes": ["", "xyz"]}
//	{"kind": "prediction-markets", "name": "poll:hyperliquid-outcomes", "venue": "hyperliquid", "url": "https://api.hyperliquid.xyz", "interval": "15m"}
//
// docs/positioning.md lists every field. Both kinds are registered with
// the sources configuration (sources.Register) by this package: `mi run`
// ingests their side records like any live source.
const (
	KindPositioning       = "positioning"
	KindPredictionMarkets = "prediction-markets"
)

// Entry is one configuration entry of either kind. Durations are Go
// duration strings ("5m").
type Entry struct {
	Kind                string   `json:"kind"`
	Name                string   `json:"name"`
	Disabled            bool     `json:"disabled"`
	Venue               string   `json:"venue"`
	URL                 string   `json:"url"`
	Symbols             []string `json:"symbols"`
	Dexes               []string `json:"dexes"`
	Interval            string   `json:"interval"`
	Offset              string   `json:"offset"`
	CurrentOpenInterest bool     `json:"currentOpenInterest"`
	NoBackfill          bool     `json:"noBackfill"`
	MaxMarkets          int      `json:"maxMarkets"`
	MaxBodyBytes        int64    `json:"maxBodyBytes"`
}

// ConfigOf decodes an entry of kind positioning or prediction-markets into a
// poller configuration; unknown fields and bad values are errors naming the
// entry and the field. The HTTP client (timeouts, User-Agent, rate limits per
// host) comes from the configuration's http section: the caller sets
// Config.Client and Config.Health.
func ConfigOf(sc sources.SourceConfig, env sources.Env) (Config, error) {
	var e Entry
	if err := sc.Decode(&e); err != nil {
		return Config{}, err
	}
	if e.Kind != KindPositioning && e.Kind != KindPredictionMarkets {
		return Config{}, fmt.Errorf("cannot use source %q: kind %q is not %s or %s", e.Name, e.Kind, KindPositioning, KindPredictionMarkets)
	}
	cfg := Config{Name: e.Name, Venue: e.Venue, Prediction: e.Kind == KindPredictionMarkets, URL: e.URL, Symbols: e.Symbols,
		Dexes: e.Dexes, CurrentOpenInterest: e.CurrentOpenInterest, NoBackfill: e.NoBackfill, MaxMarkets: e.MaxMarkets,
		MaxBodyBytes: e.MaxBodyBytes, Logger: env.Logger}
	for _, d := range []struct {
		field, v string
		dst      *time.Duration
	}{{"interval", e.Interval, &cfg.Interval}, {"offset", e.Offset, &cfg.Offset}} {
		if d.v == "" {
			continue
		}
		v, err := time.ParseDuration(d.v)
		if err != nil || v <= 0 {
			return Config{}, fmt.Errorf("cannot use source %q: %s %q is not a positive duration such as \"5m\"", e.Name, d.field, d.v)
		}
		*d.dst = v
	}
	if cfg.Interval != 0 && (cfg.Interval < time.Minute || cfg.Interval > 24*time.Hour) {
		return Config{}, fmt.Errorf("cannot use source %q: interval %s is outside 1m..24h", e.Name, cfg.Interval)
	}
	if e.MaxMarkets < 0 || e.MaxBodyBytes < 0 {
		return Config{}, fmt.Errorf("cannot use source %q: maxMarkets and maxBodyBytes must not be negative", e.Name)
	}
	// New checks the rest (venue, URL, symbols, dexes, offset).
	if _, err := New(cfg); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func init() {
	open := func(sc sources.SourceConfig, env sources.Env) (sources.Source, error) {
		cfg, err := ConfigOf(sc, env)
		if err != nil {
			return nil, err
		}
		if cfg.Name == "" {
			cfg.Name = defaultName(cfg.Venue, cfg.Prediction)
		}
		url := cfg.URL
		if url == "" {
			url = defaultURL[cfg.Venue]
		}
		// The process's polite client (its host limits: fapi.binance.com,
		// api.bybit.com, api.hyperliquid.xyz in the default file) and
		// registry (/status).
		cfg.Client = poll.ClientOf(env)
		cfg.Health = env.Registry.Register(cfg.Name, "perps", url)
		p, err := New(cfg)
		if err != nil {
			return nil, err
		}
		return NewSource(p), nil
	}
	sources.Register(KindPositioning, open)
	sources.Register(KindPredictionMarkets, open)
}
