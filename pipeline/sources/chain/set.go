package chain

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/marketintel/mi/pipeline/sources"
)

// ErrUnknownChain is wrapped by Set.Get's error for a chain no enabled
// entry configures; the message lists the configured chains (for a 400).
var ErrUnknownChain = errors.New("chain not supported")

// Set is the clients of the configured chains, one per chain.
type Set struct {
	m     map[string]*Client
	names []string
}

// Open returns a client for every enabled entry (sources.Config.Chains),
// registering their freshness in o.Registry. It connects to nothing.
func Open(cfgs []sources.ChainConfig, o Options) (*Set, error) {
	s := &Set{m: map[string]*Client{}}
	for _, cfg := range cfgs {
		if cfg.Disabled {
			continue
		}
		if _, dup := s.m[cfg.Chain]; dup {
			return nil, fmt.Errorf("cannot open chain %s: configured twice", cfg.Chain)
		}
		c, err := New(cfg, o)
		if err != nil {
			return nil, err
		}
		s.m[cfg.Chain] = c
		s.names = append(s.names, cfg.Chain)
	}
	sort.Strings(s.names)
	return s, nil
}

// Get returns the client of chain, or an error wrapping ErrUnknownChain
// that names the configured chains.
func (s *Set) Get(chain string) (*Client, error) {
	if c, ok := s.m[chain]; ok {
		return c, nil
	}
	return nil, fmt.Errorf("%w: %q; supported chains: %s", ErrUnknownChain, chain, strings.Join(s.names, ", "))
}

// Chains returns the configured chains' names, sorted.
func (s *Set) Chains() []string { return append([]string(nil), s.names...) }

// Close closes every client.
func (s *Set) Close() {
	for _, c := range s.m {
		c.Close()
	}
}

// sharedSet is what sources.Env.Shared holds for the chain set.
type sharedSet struct {
	set *Set
	err error
}

// SetOf returns the chain readers of env's process: one Set per
// sources.Config.Env, opened from its chains section with its User-Agent
// and recording freshness in its Registry ("chain:<name>"). Every on-chain
// source opened from a configuration reads through it, so all readers of
// one chain share its one rate limit, request sharing and backoff.
func SetOf(env sources.Env) (*Set, error) {
	s := env.Shared("chain.Set", func() any {
		set, err := Open(env.Chains, Options{Registry: env.Registry, UserAgent: env.HTTP.UserAgentHeader()})
		return sharedSet{set, err}
	}).(sharedSet)
	return s.set, s.err
}
