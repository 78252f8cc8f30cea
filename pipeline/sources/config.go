package sources

import (
	"bytes"
	"cmp"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
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
//
// Besides the list of sources, the file has sections for the clients that
// sources share (see docs/sources.md): "http" for the polite HTTP client of
// the pollers (pipeline/sources/poll) and "chains" for the EVM JSON-RPC
// readers (pipeline/sources/chain). Both are optional; missing fields take
// the defaults of DefaultConfig. A third optional section, "edgar",
// configures the process's SEC EDGAR client for on-demand reads.
type Config struct {
	Sources []SourceConfig `json:"sources"`
	HTTP    HTTPConfig     `json:"http"`
	Chains  []ChainConfig  `json:"chains,omitempty"`
	// EDGAR is the SEC EDGAR client of the fundamentals and insiders
	// routes: the JSON of edgar.Config ({"www": ..., "data": ..., "ttl":
	// {...}}, docs/edgar.md), decoded (unknown fields refused) by the
	// command that builds the client, since package edgar builds on this
	// one. Missing: www.sec.gov and data.sec.gov with the documented
	// defaults; a local server stands in for EDGAR by setting www and data.
	EDGAR json.RawMessage `json:"edgar,omitempty"`
}

// HTTPConfig configures the HTTP client every poller of the process shares:
//
//	"http": {"user_agent": "MarketIntel/1.0", "contact": "ops@example.com",
//	         "timeout": "30s", "max_body_bytes": 33554432,
//	         "default_limit": {"rate": 1, "burst": 2},
//	         "hosts": {"sec.gov": {"rate": 9, "burst": 1}}}
type HTTPConfig struct {
	// UserAgent names the operator's product, e.g. "MarketIntel/1.0".
	UserAgent string `json:"user_agent,omitempty"`
	// Contact is the operator's e-mail address or URL, sent in the
	// User-Agent as "(+contact)". SEC EDGAR refuses clients without one.
	Contact string `json:"contact,omitempty"`
	// Timeout bounds one request, body included.
	Timeout Duration `json:"timeout,omitempty"`
	// MaxBodyBytes bounds a response body after decompression.
	MaxBodyBytes int64 `json:"max_body_bytes,omitempty"`
	// DefaultLimit is the rate limit of each host not named in Hosts.
	DefaultLimit *Limit `json:"default_limit,omitempty"`
	// Hosts are rate limits by host name. A key matches the host itself
	// and its subdomains ("sec.gov" covers www.sec.gov and data.sec.gov),
	// and every host a key matches shares that key's one bucket; the
	// longest matching key wins.
	Hosts map[string]Limit `json:"hosts,omitempty"`
}

// UserAgentHeader is the User-Agent sent: UserAgent, then " (+Contact)"
// when a contact is set.
func (h HTTPConfig) UserAgentHeader() string {
	ua := cmp.Or(h.UserAgent, "MarketIntel/1.0")
	if h.Contact != "" {
		ua += " (+" + h.Contact + ")"
	}
	return ua
}

// Validate checks the limits and durations.
func (h HTTPConfig) Validate() error {
	if h.Timeout < 0 || h.MaxBodyBytes < 0 {
		return errors.New("cannot use http config: timeout and max_body_bytes must not be negative")
	}
	if h.DefaultLimit != nil {
		if err := h.DefaultLimit.Validate(); err != nil {
			return fmt.Errorf("cannot use http default_limit: %w", err)
		}
	}
	for host, l := range h.Hosts {
		if host == "" || strings.ContainsAny(host, "/: ") {
			return fmt.Errorf("cannot use http hosts key %q: want a host name such as \"sec.gov\"", host)
		}
		if err := l.Validate(); err != nil {
			return fmt.Errorf("cannot use http hosts %q: %w", host, err)
		}
	}
	return nil
}

// ChainConfig says how to reach one EVM chain for on-demand reads:
//
//	{"chain": "base", "rpc": "https://base-rpc.publicnode.com",
//	 "timeout": "10s", "limit": {"rate": 5, "burst": 10}, "max_log_range": 500}
type ChainConfig struct {
	// Chain is the chain's name: ethereum, base, arbitrum, optimism,
	// polygon, or any other name the operator uses.
	Chain string `json:"chain"`
	// RPC is the JSON-RPC endpoint (http, https, ws or wss); a local node
	// stands in for the public one by pointing this at it.
	RPC string `json:"rpc"`
	// Timeout bounds one JSON-RPC request.
	Timeout Duration `json:"timeout,omitempty"`
	// Limit is the chain's rate limit, shared by every reader of the chain
	// in the process (a batch of n calls takes n tokens).
	Limit *Limit `json:"limit,omitempty"`
	// MaxLogRange is the largest block range of one eth_getLogs request;
	// longer ranges are split, and a range the node refuses is halved.
	MaxLogRange uint64 `json:"max_log_range,omitempty"`
	// ChainID, when set, is the chain id the endpoint must answer to
	// eth_chainId before its answers are used (chain.Client.Verify): an
	// endpoint of another chain is refused instead of read.
	ChainID uint64 `json:"chain_id,omitempty"`
	// Disabled keeps the entry without using it.
	Disabled bool `json:"disabled,omitempty"`
}

// Validate checks the entry.
func (c ChainConfig) Validate() error {
	if c.Chain == "" || c.RPC == "" {
		return fmt.Errorf("cannot use chain entry %q: chain and rpc are required", c.Chain)
	}
	u, err := url.Parse(c.RPC)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return fmt.Errorf("cannot use chain %s: rpc %q is not an http(s) or ws(s) URL", c.Chain, Redact(c.RPC))
	}
	if c.Timeout < 0 {
		return fmt.Errorf("cannot use chain %s: timeout must not be negative", c.Chain)
	}
	if c.Limit != nil {
		if err := c.Limit.Validate(); err != nil {
			return fmt.Errorf("cannot use chain %s: %w", c.Chain, err)
		}
	}
	return nil
}

// Duration is a time.Duration written as a Go duration string ("30s",
// "5m") in configuration files.
type Duration time.Duration

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("cannot read duration: want a string like \"30s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("cannot read duration %q: %w", s, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a Go duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

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
	// HTTP and Chains are the file's shared client sections; Config.Open
	// fills them in.
	HTTP   HTTPConfig
	Chains []ChainConfig
	// Registry, when set, records the health of pollers and chain readers
	// for /status; openers register their sources in it (nil: each source
	// keeps its own).
	Registry *Registry
}

// Chain returns the enabled chains entry named name.
func (e Env) Chain(name string) (ChainConfig, bool) {
	for _, c := range e.Chains {
		if c.Chain == name && !c.Disabled {
			return c, true
		}
	}
	return ChainConfig{}, false
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
	if err := c.HTTP.Validate(); err != nil {
		return Config{}, fmt.Errorf("cannot parse sources config: %w", err)
	}
	chains := map[string]bool{}
	for _, ch := range c.Chains {
		if err := ch.Validate(); err != nil {
			return Config{}, fmt.Errorf("cannot parse sources config: %w", err)
		}
		if chains[ch.Chain] {
			return Config{}, fmt.Errorf("cannot parse sources config: chain %q listed twice in chains", ch.Chain)
		}
		chains[ch.Chain] = true
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
	env.HTTP, env.Chains = c.HTTP, c.Chains
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
