package aave

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/pipeline/sources/ratesfeed"
	"github.com/marketintel/mi/schemas"
)

// Publisher of the lending rates.
const Publisher = "Aave v3 Pool (on-chain)"

// DefaultEvery is how often the reserves are read.
const DefaultEvery = 5 * time.Minute

// ReserveEntry overrides or adds a reserve of a Config.
type ReserveEntry struct {
	Chain   string `json:"chain"`
	ChainID int64  `json:"chain_id,omitempty"`
	Pool    string `json:"pool,omitempty"`
	Asset   string `json:"asset,omitempty"`
	Symbol  string `json:"symbol,omitempty"`
}

// Config is an "aave-v3" entry of the sources configuration. The chains'
// RPC endpoints come from the file's "chains" section:
//
//	{"kind": "aave-v3"}                                     (the five Reserves)
//	{"kind": "aave-v3", "reserves": [{"chain": "base"}, {"chain": "polygon", "pool": "0x…", "asset": "0x…"}]}
type Config struct {
	Kind     string `json:"kind"`
	Name     string `json:"name,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	// Reserves are the reserves read: a chain of Reserves takes its pool
	// and asset from there unless given; empty means all of Reserves.
	Reserves []ReserveEntry `json:"reserves,omitempty"`
	// Every is the poll interval (default 5m).
	Every sources.Duration `json:"every,omitempty"`
}

// ResolveReserves returns the reserves a configuration reads.
func ResolveReserves(cfg []ReserveEntry) ([]Reserve, error) {
	if len(cfg) == 0 {
		return append([]Reserve(nil), Reserves...), nil
	}
	var out []Reserve
	seen := map[string]bool{}
	for _, rc := range cfg {
		var r Reserve
		for _, d := range Reserves {
			if d.Chain == rc.Chain {
				r = d
			}
		}
		if r.Chain == "" {
			r = Reserve{Chain: rc.Chain, Symbol: "USDC"}
		}
		if rc.ChainID != 0 {
			r.ChainID = rc.ChainID
		}
		if rc.Symbol != "" {
			r.Symbol = rc.Symbol
		}
		for _, a := range []struct {
			s   string
			dst *common.Address
		}{{rc.Pool, &r.Pool}, {rc.Asset, &r.Asset}} {
			if a.s == "" {
				continue
			}
			if !common.IsHexAddress(a.s) {
				return nil, fmt.Errorf("cannot use aave-v3 reserve on %s: %q is not an address", rc.Chain, a.s)
			}
			*a.dst = common.HexToAddress(a.s)
		}
		if r.Chain == "" || r.Pool == (common.Address{}) || r.Asset == (common.Address{}) {
			return nil, fmt.Errorf("cannot use aave-v3 reserve %+v: chain, pool and asset are required for a chain not in the defaults (ethereum, base, arbitrum, optimism, polygon)", rc)
		}
		if seen[r.Chain+r.Asset.Hex()] {
			return nil, fmt.Errorf("cannot use aave-v3 reserve on %s: listed twice", r.Chain)
		}
		seen[r.Chain+r.Asset.Hex()] = true
		out = append(out, r)
	}
	return out, nil
}

// Source reads the reserves into a Feed.
type Source struct {
	reserves []Reserve
	readers  map[string]ratesfeed.ChainReader // by chain
	feed     *ratesfeed.Feed
}

// Cycle reads every reserve, the chains in parallel, each at its latest
// block. A chain that fails is reported as a fault of its scope (the view
// marks it stale) and the others are still read; the cycle fails only
// when every chain failed.
func (s *Source) Cycle(ctx context.Context) (time.Time, error) {
	type result struct {
		blockTime int64
		err       error
	}
	results := make([]result, len(s.reserves))
	var wg sync.WaitGroup
	for i, r := range s.reserves {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t, err := s.read(ctx, r)
			results[i] = result{t, err}
		}()
	}
	wg.Wait()
	var newest int64
	var errs []error
	for i, res := range results {
		if res.err != nil {
			errs = append(errs, res.err)
			if err := s.feed.Fail(ctx, schemas.LendingScope(Protocol, s.reserves[i].Chain), res.err); err != nil {
				return time.Time{}, err
			}
			continue
		}
		s.feed.Recover(schemas.LendingScope(Protocol, s.reserves[i].Chain))
		newest = max(newest, res.blockTime)
	}
	var t time.Time
	if newest > 0 {
		t = time.Unix(newest, 0)
	}
	if len(errs) == len(s.reserves) {
		return t, errors.Join(errs...)
	}
	return t, nil
}

// read reads one reserve and hands its record to the feed.
func (s *Source) read(ctx context.Context, r Reserve) (int64, error) {
	rd := s.readers[r.Chain]
	block, blockTime, err := rd.Latest(ctx)
	if err != nil {
		return 0, fmt.Errorf("cannot read the latest block of %s: %w", r.Chain, err)
	}
	ret, err := rd.Call(ctx, r.Pool, EncodeGetReserveData(r.Asset), block)
	if err != nil {
		return 0, fmt.Errorf("cannot call getReserveData on %s: %w", r.Chain, err)
	}
	url := fmt.Sprintf("eth_call %s %s getReserveData(%s)", r.Chain, strings.ToLower(r.Pool.Hex()), strings.ToLower(r.Asset.Hex()))
	d, err := DecodeReserveData(ret)
	if err != nil {
		if rerr := s.feed.Reject(ctx, ret, err.Error()); rerr != nil {
			return 0, rerr
		}
		return 0, fmt.Errorf("cannot read getReserveData on %s: %w", r.Chain, err)
	}
	rate := LendingRate(r, d, block, blockTime)
	if _, err := s.feed.Observe(ctx, url, s.feed.Now(), rate); err != nil {
		return 0, err
	}
	return blockTime, nil
}

// NewSource returns the source reading reserves with readers (one per
// chain of the reserves).
func NewSource(name string, reserves []Reserve, readers map[string]ratesfeed.ChainReader, every time.Duration, run ratesfeed.Runner) (*ratesfeed.Source, error) {
	for _, r := range reserves {
		if readers[r.Chain] == nil {
			return nil, fmt.Errorf("cannot use aave-v3 on %s: the chain has no entry in the chains section", r.Chain)
		}
	}
	if every <= 0 {
		every = DefaultEvery
	}
	s := &Source{reserves: reserves, readers: readers}
	chains := make([]string, len(reserves))
	for i, r := range reserves {
		chains[i] = r.Chain
	}
	return ratesfeed.NewSource(name, 64, func(ctx context.Context, emit ratesfeed.EmitFunc) error {
		s.feed = ratesfeed.New(name, Publisher, emit, run.Clock)
		return run.Run(ctx, name, "getReserveData on "+strings.Join(chains, ", "), poll.Every(every), s.Cycle)
	}), nil
}

func init() {
	sources.Register("aave-v3", func(sc sources.SourceConfig, env sources.Env) (sources.Source, error) {
		var cfg Config
		if err := sc.Decode(&cfg); err != nil {
			return nil, err
		}
		reserves, err := ResolveReserves(cfg.Reserves)
		if err != nil {
			return nil, err
		}
		run := ratesfeed.RunnerOf(env)
		readers := map[string]ratesfeed.ChainReader{}
		for _, r := range reserves {
			if readers[r.Chain], err = ratesfeed.ChainReaderOf(env, r.Chain); err != nil {
				return nil, fmt.Errorf("cannot use aave-v3 on %s: %w", r.Chain, err)
			}
		}
		if cfg.Name == "" {
			cfg.Name = "aave-v3"
		}
		return NewSource(cfg.Name, reserves, readers, time.Duration(cfg.Every), run)
	})
}
