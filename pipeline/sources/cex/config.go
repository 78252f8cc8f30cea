package cex

import (
	"fmt"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/poll"
)

// entry is a configuration entry of an exchange connector (see
// sources.Config). Durations are Go duration strings ("20s").
type entry struct {
	Kind            string   `json:"kind"`
	Name            string   `json:"name"`
	Disabled        bool     `json:"disabled"`
	URL             string   `json:"url"`
	Venue           string   `json:"venue"`
	Markets         []string `json:"markets"`
	MaxMessageBytes int64    `json:"maxMessageBytes"`
	PingInterval    string   `json:"pingInterval"`
	IdleTimeout     string   `json:"idleTimeout"`
	BackoffMin      string   `json:"backoffMin"`
	BackoffMax      string   `json:"backoffMax"`
	InstrumentsURL  string   `json:"instrumentsUrl"`
}

// Kinds are the source kinds this package registers, one per protocol.
var Kinds = []string{"binance", "bybit", "coinbase", "hyperliquid", "kraken", "okx"}

func init() {
	for _, k := range Kinds {
		sources.Register(k, open)
	}
}

func open(sc sources.SourceConfig, env sources.Env) (sources.Source, error) {
	var e entry
	if err := sc.Decode(&e); err != nil {
		return nil, err
	}
	cfg := Config{Name: e.Name, Protocol: e.Kind, Venue: e.Venue, URL: e.URL, Markets: e.Markets,
		MaxMessageBytes: e.MaxMessageBytes, InstrumentsURL: e.InstrumentsURL, Observer: env.Observer, Logger: env.Logger}
	if e.Kind == "okx" {
		cfg.HTTP = poll.ClientOf(env)
	}
	for _, d := range []struct {
		field, v string
		dst      *time.Duration
	}{{"pingInterval", e.PingInterval, &cfg.PingInterval}, {"idleTimeout", e.IdleTimeout, &cfg.IdleTimeout},
		{"backoffMin", e.BackoffMin, &cfg.BackoffMin}, {"backoffMax", e.BackoffMax, &cfg.BackoffMax}} {
		if d.v == "" {
			continue
		}
		v, err := time.ParseDuration(d.v)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("cannot use source %q: %s %q is not a positive duration such as \"20s\"", e.Name, d.field, d.v)
		}
		*d.dst = v
	}
	c, err := New(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot use source %q: %w", e.Name, err)
	}
	return c, nil
}
