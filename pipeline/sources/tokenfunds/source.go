package tokenfunds

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/pipeline/sources/ratesfeed"
	"github.com/marketintel/mi/schemas"
)

// Publisher of the supplies.
const Publisher = "fund token contracts (on-chain)"

// Schedule is the hourly snapshot: on the hour, plus 30 s so that the
// latest block is of the new hour.
var Schedule = poll.Schedule{Every: time.Hour, Offset: 30 * time.Second}

// FundEntry overrides or adds a fund of a Config.
type FundEntry struct {
	Symbol string `json:"symbol"`
	Token  string `json:"token,omitempty"`
	Name   string `json:"name,omitempty"`
	Issuer string `json:"issuer,omitempty"`
}

// Config is a "tokenfunds" entry of the sources configuration; the chain's
// RPC endpoint comes from the file's "chains" section:
//
//	{"kind": "tokenfunds"}                                  (Funds on ethereum)
//	{"kind": "tokenfunds", "funds": [{"symbol": "BUIDL"}, {"symbol": "TEST", "token": "0x…"}]}
type Config struct {
	Kind     string      `json:"kind"`
	Name     string      `json:"name,omitempty"`
	Disabled bool        `json:"disabled,omitempty"`
	Chain    string      `json:"chain,omitempty"` // default ethereum
	Funds    []FundEntry `json:"funds,omitempty"`
	// Every, when set, replaces the hourly Schedule (tests, demos).
	Every sources.Duration `json:"every,omitempty"`
}

// ResolveFunds returns the funds a configuration reads on chain.
func ResolveFunds(chain string, cfg []FundEntry) ([]Fund, error) {
	var out []Fund
	if len(cfg) == 0 {
		for _, f := range Funds {
			if f.Chain == chain {
				out = append(out, f)
			}
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("cannot use tokenfunds on %s: no default funds there; list them", chain)
		}
		return out, nil
	}
	seen := map[string]bool{}
	for _, fe := range cfg {
		var f Fund
		for _, d := range Funds {
			if d.Symbol == fe.Symbol && d.Chain == chain {
				f = d
			}
		}
		if f.Symbol == "" {
			f = Fund{Symbol: fe.Symbol, Name: fe.Symbol, Chain: chain, Source: "configuration"}
		}
		if fe.Token != "" {
			if !common.IsHexAddress(fe.Token) {
				return nil, fmt.Errorf("cannot use tokenfunds fund %s: %q is not an address", fe.Symbol, fe.Token)
			}
			f.Token, f.Source = common.HexToAddress(fe.Token), "configuration"
		}
		if fe.Name != "" {
			f.Name = fe.Name
		}
		if fe.Issuer != "" {
			f.Issuer = fe.Issuer
		}
		if f.Symbol == "" || f.Token == (common.Address{}) {
			return nil, fmt.Errorf("cannot use tokenfunds fund %+v: symbol and token are required for a fund not in the defaults", fe)
		}
		if seen[f.Symbol] {
			return nil, fmt.Errorf("cannot use tokenfunds fund %s: listed twice", f.Symbol)
		}
		seen[f.Symbol] = true
		out = append(out, f)
	}
	return out, nil
}

// Source snapshots the funds' supplies into a Feed.
type Source struct {
	chain  string
	funds  []Fund
	reader ratesfeed.ChainReader
	feed   *ratesfeed.Feed
}

// Cycle reads every fund's totalSupply and decimals at the latest block.
// A fund whose calls fail is a fault of its own scope; a chain that cannot
// be read at all, of the chain's; the cycle fails when no fund was read.
func (s *Source) Cycle(ctx context.Context) (time.Time, error) {
	block, blockTime, err := s.reader.Latest(ctx)
	if err != nil {
		err = fmt.Errorf("cannot read the latest block of %s: %w", s.chain, err)
		if ferr := s.feed.Fail(ctx, schemas.FundScope(s.chain, ""), err); ferr != nil {
			return time.Time{}, ferr
		}
		return time.Time{}, err
	}
	s.feed.Recover(schemas.FundScope(s.chain, ""))
	read := 0
	var last error
	for _, f := range s.funds {
		if err := s.read(ctx, f, block, blockTime); err != nil {
			if ctx.Err() != nil {
				return time.Time{}, ctx.Err()
			}
			last = err
			if ferr := s.feed.Fail(ctx, schemas.FundScope(s.chain, f.Symbol), err); ferr != nil {
				return time.Time{}, ferr
			}
			continue
		}
		s.feed.Recover(schemas.FundScope(s.chain, f.Symbol))
		read++
	}
	if read == 0 {
		return time.Time{}, last
	}
	return time.Unix(blockTime, 0), nil
}

func (s *Source) read(ctx context.Context, f Fund, block uint64, blockTime int64) error {
	supplyRet, err := s.reader.Call(ctx, f.Token, TotalSupplyCall, block)
	if err != nil {
		return fmt.Errorf("cannot call totalSupply of %s: %w", f.Symbol, err)
	}
	decRet, err := s.reader.Call(ctx, f.Token, DecimalsCall, block)
	if err != nil {
		return fmt.Errorf("cannot call decimals of %s: %w", f.Symbol, err)
	}
	supply, err := DecodeTotalSupply(supplyRet)
	if err == nil {
		var dec uint8
		if dec, err = DecodeDecimals(decRet); err == nil {
			url := fmt.Sprintf("eth_call %s %s totalSupply() decimals()", s.chain, strings.ToLower(f.Token.Hex()))
			_, err = s.feed.Observe(ctx, url, s.feed.Now(), Supply(f, supply, dec, block, blockTime))
			return err
		}
	}
	if rerr := s.feed.Reject(ctx, append(supplyRet, decRet...), err.Error()); rerr != nil {
		return rerr
	}
	return fmt.Errorf("cannot read %s: %w", f.Symbol, err)
}

// NewSource returns the source snapshotting funds on chain with reader.
func NewSource(name, chain string, funds []Fund, reader ratesfeed.ChainReader, sched poll.Schedule, run ratesfeed.Runner) *ratesfeed.Source {
	s := &Source{chain: chain, funds: funds, reader: reader}
	return ratesfeed.NewSource(name, 64, func(ctx context.Context, emit ratesfeed.EmitFunc) error {
		s.feed = ratesfeed.New(name, Publisher, emit, run.Clock)
		return run.Run(ctx, name, "totalSupply on "+chain, sched, s.Cycle)
	})
}

func init() {
	sources.Register("tokenfunds", func(sc sources.SourceConfig, env sources.Env) (sources.Source, error) {
		var cfg Config
		if err := sc.Decode(&cfg); err != nil {
			return nil, err
		}
		if cfg.Chain == "" {
			cfg.Chain = "ethereum"
		}
		funds, err := ResolveFunds(cfg.Chain, cfg.Funds)
		if err != nil {
			return nil, err
		}
		if cfg.Name == "" {
			cfg.Name = "tokenfunds:" + cfg.Chain
		}
		sched := Schedule
		if cfg.Every > 0 {
			sched = poll.Every(time.Duration(cfg.Every))
		}
		run := ratesfeed.RunnerOf(env)
		reader, err := ratesfeed.ChainReaderOf(env, cfg.Chain)
		if err != nil {
			return nil, fmt.Errorf("cannot use tokenfunds on %s: %w", cfg.Chain, err)
		}
		return NewSource(cfg.Name, cfg.Chain, funds, reader, sched, run), nil
	})
}
