package main

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/token"
	"github.com/marketintel/mi/sinks/alerts"
)

// openTokenReader opens one JSON-RPC client per chain of the sources
// configuration file (the built-in default when path is empty) and the
// token reader over them (docs/token.md). Each chain's freshness is
// recorded in reg as "chain:<name>" (/status). Nothing connects until a
// token route is asked or a token watch runs. The returned func closes the
// clients.
func openTokenReader(path string, reg *sources.Registry, log *slog.Logger) (*token.Reader, []string, func(), error) {
	cfg, err := sources.LoadConfig(path)
	if err != nil {
		return nil, nil, nil, err
	}
	set, err := chain.Open(cfg.Chains, chain.Options{Registry: reg, UserAgent: cfg.HTTP.UserAgentHeader()})
	if err != nil {
		return nil, nil, nil, err
	}
	log.Info("token analysis chains configured", "chains", set.Chains())
	return token.New(set, token.Options{}), set.Chains(), set.Close, nil
}

// tokenWatchSources returns the two token watches as live sources
// (docs/token.md#events): the depeg watch over coins (mi.stablecoins.v1)
// and the risk watch over the tokens of the token_risk_change
// subscriptions in st (mi.token-risk.v1). Their freshness goes to reg as
// "token:depeg" and "token:risk-watch".
//
// Only the coins on a chain the configuration reads (chains) are watched;
// with none, the depeg watch does not run (and says so once).
func tokenWatchSources(r *token.Reader, chains []string, coins []token.Stablecoin, st *alerts.Store, reg *sources.Registry, log *slog.Logger) []sources.Source {
	o := token.WatchOptions{Registry: reg}
	var watched []token.Stablecoin
	for _, c := range coins {
		if slices.Contains(chains, c.Chain) {
			watched = append(watched, c)
		}
	}
	out := []sources.Source{token.NewRiskWatchSource(r, watchedTokens(st, log), o)}
	if len(watched) == 0 {
		log.Info("depeg watch not running: no listed stablecoin is on a configured chain", "chains", chains)
		return out
	}
	return append(out, token.NewDepegSource(r, watched, o))
}

// watchedTokens returns the risk watch's list: the tokens of the
// subscriptions, read from the alert store at each cycle. When the store
// cannot be read the previous list is used (and the failure logged), so a
// database hiccup does not drop the watches.
func watchedTokens(st *alerts.Store, log *slog.Logger) func() []token.WatchedToken {
	var mu sync.Mutex
	var last []token.WatchedToken
	return func() []token.WatchedToken {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ts, err := st.WatchedTokens(ctx)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			log.Warn("cannot read the watched tokens; checking the previous list", "tokens", len(last), "err", err)
			return last
		}
		last = make([]token.WatchedToken, len(ts))
		for i, t := range ts {
			last[i] = token.WatchedToken{Chain: t.Chain, Address: t.Address}
		}
		return last
	}
}
