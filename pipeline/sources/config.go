package sources

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
)

// Observer receives a live source's operational events; *pipeline.Stats
// implements it. Methods must be safe for concurrent use.
type Observer interface {
	// SetState records the source's state ("connecting", "running",
	// "reconnecting", "unreachable", ...) and its last error, if any.
	SetState(name, state string, err error)
	// Reconnect counts one reconnection attempt.
	Reconnect(name string)
	// Gap records a stretch of time (Unix ns) the source could not deliver.
	Gap(name string, fromNs, toNs int64, reason string)
}

// Config is a sources configuration file (JSON):
//
//	{"sources": [
//	  {"kind": "coinbase", "markets": ["BTC-USD", "ETH-USD"]},
//	  {"kind": "binance", "name": "binance:spot", "url": "wss://...", "markets": ["BTCUSDT"]},
//	  {"kind": "...", "disabled": true, ...}
//	]}
//
// Every entry has a kind, which selects the opener registered for it (see
// Register), an optional name (default: chosen by the kind) and an optional
// disabled flag; every other field belongs to the kind and is decoded by its
// opener, so new kinds extend the format without changing it. Unknown kinds
// and fields a kind does not know are errors.
type Config struct {
	Sources []SourceConfig `json:"sources"`
}

// SourceConfig is one entry of Config.
type SourceConfig struct {
	Kind     string `json:"kind"`
	Name     string `json:"name,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	// Raw is the whole entry, for the kind's own fields.
	Raw json.RawMessage `json:"-"`
}

// UnmarshalJSON keeps the raw entry for the kind's opener.
func (s *SourceConfig) UnmarshalJSON(b []byte) error {
	type plain SourceConfig
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = SourceConfig(p)
	s.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// Decode decodes the entry's fields into v (a struct that also declares
// kind, name and disabled, or embeds SourceConfig's JSON fields), rejecting
// fields v does not know.
func (s SourceConfig) Decode(v any) error {
	d := json.NewDecoder(bytes.NewReader(s.Raw))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return fmt.Errorf("cannot use source %q (kind %s): %w", s.Name, s.Kind, err)
	}
	return nil
}

// Env is what openers get besides their entry.
type Env struct {
	Observer Observer
	Logger   *slog.Logger
}

// Opener opens the source an entry describes. It must not do I/O that can
// block: live sources connect on their first Next.
type Opener func(sc SourceConfig, env Env) (Source, error)

var (
	kindsMu sync.Mutex
	kinds   = map[string]Opener{}
)

// Register makes kind usable in configuration files. Packages of live
// sources call it from init; a second registration of a kind panics.
func Register(kind string, open Opener) {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	if _, dup := kinds[kind]; dup {
		panic("BUG: source kind " + kind + " registered twice")
	}
	kinds[kind] = open
}

// Kinds returns the registered kinds, sorted.
func Kinds() []string {
	kindsMu.Lock()
	defer kindsMu.Unlock()
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ErrUnknownKind is wrapped by Open's error for an entry whose kind no
// package registered.
var ErrUnknownKind = errors.New("unknown source kind")

//go:embed config_default.json
var defaultConfig []byte

// DefaultConfig returns the built-in configuration `mi run` uses when no
// file is given: the BTC and ETH markets of the five exchanges (and the
// on-chain pools of the kinds registered by the DEX connectors). It is the
// same as deploy/sources.default.json.
func DefaultConfig() []byte { return append([]byte(nil), defaultConfig...) }

// LoadConfig reads a configuration file; an empty path means DefaultConfig.
func LoadConfig(path string) (Config, error) {
	b := defaultConfig
	if path != "" {
		var err error
		if b, err = os.ReadFile(path); err != nil {
			return Config{}, fmt.Errorf("cannot read sources config: %w", err)
		}
	}
	return ParseConfig(b)
}

// ParseConfig parses a configuration; the error names the offending entry.
func ParseConfig(b []byte) (Config, error) {
	var c Config
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		return Config{}, fmt.Errorf("cannot parse sources config: %w", err)
	}
	for i, s := range c.Sources {
		if s.Kind == "" {
			return Config{}, fmt.Errorf("cannot parse sources config: entry %d has no kind", i)
		}
	}
	return c, nil
}

// Open opens every enabled entry. Entries whose kind is not registered fail
// with ErrUnknownKind naming the registered kinds; on any error the sources
// opened so far are closed. Names must be unique.
func (c Config) Open(env Env) ([]Source, error) {
	var out []Source
	fail := func(err error) ([]Source, error) {
		for _, s := range out {
			_ = s.Close()
		}
		return nil, err
	}
	names := map[string]bool{}
	for i, sc := range c.Sources {
		if sc.Disabled {
			continue
		}
		kindsMu.Lock()
		open := kinds[sc.Kind]
		kindsMu.Unlock()
		if open == nil {
			return fail(fmt.Errorf("cannot open source %d (kind %q): %w; accepted kinds: %s", i, sc.Kind, ErrUnknownKind, strings.Join(Kinds(), ", ")))
		}
		s, err := open(sc, env)
		if err != nil {
			return fail(err)
		}
		if names[s.Name()] {
			_ = s.Close()
			return fail(fmt.Errorf("cannot open source %d: name %q used twice", i, s.Name()))
		}
		names[s.Name()] = true
		out = append(out, s)
	}
	return out, nil
}
