package main

import (
	"log/slog"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/token"
)

// openTokenReader opens one JSON-RPC client per chain of the sources
// configuration file (the built-in default when path is empty) and the
// token reader over them (docs/token.md). Nothing connects until a token
// route is asked. The returned func closes the clients.
func openTokenReader(path string, log *slog.Logger) (*token.Reader, func(), error) {
	cfg, err := sources.LoadConfig(path)
	if err != nil {
		return nil, nil, err
	}
	set, err := chain.Open(cfg.Chains, chain.Options{UserAgent: cfg.HTTP.UserAgentHeader()})
	if err != nil {
		return nil, nil, err
	}
	log.Info("token analysis chains configured", "chains", set.Chains())
	return token.New(set, token.Options{}), set.Close, nil
}
