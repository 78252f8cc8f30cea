package ratesfeed

import (
	"errors"
	"strings"
	"testing"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/poll"
)

// The sources opened from one configuration share one polite client and
// one reader per chain (so aave-v3 and tokenfunds on Ethereum share
// Ethereum's one rate limit), recorded in one registry; another
// configuration's environment shares nothing with it.
func TestSourcesOfOneConfigShareClients(t *testing.T) {
	cfg, err := sources.ParseConfig([]byte(`{"chains": [
	  {"chain": "ethereum", "rpc": "http://127.0.0.1:1", "limit": {"rate": 5, "burst": 10}},
	  {"chain": "base", "rpc": "http://127.0.0.1:2"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	reg := sources.NewRegistry(nil, nil)
	env := cfg.Env(sources.Env{Registry: reg})
	a, b := RunnerOf(env), RunnerOf(env)
	if a.Client == nil || a.Client != b.Client || a.Client != poll.ClientOf(env) || a.Registry != reg {
		t.Fatalf("runners do not share the client and registry: %p %p %p", a.Client, b.Client, a.Registry)
	}
	r1, err := ChainReaderOf(env, "ethereum")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := ChainReaderOf(env, "ethereum")
	if err != nil {
		t.Fatal(err)
	}
	if r1.(ClientReader).C != r2.(ClientReader).C {
		t.Fatal("two readers of ethereum have their own clients (and rate limits)")
	}
	if r3, _ := ChainReaderOf(env, "base"); r3.(ClientReader).C == r1.(ClientReader).C {
		t.Fatal("base and ethereum share a client")
	}
	names := map[string]bool{}
	for _, f := range reg.Snapshot() {
		names[f.Name] = true
	}
	if !names["chain:ethereum"] || !names["chain:base"] {
		t.Fatalf("the chains are not in the registry: %v", names)
	}
	_, err = ChainReaderOf(env, "polygon")
	if !errors.Is(err, chain.ErrUnknownChain) || !strings.Contains(err.Error(), "base, ethereum") {
		t.Fatalf("unknown chain: %v", err)
	}

	other := cfg.Env(sources.Env{})
	if poll.ClientOf(other) == a.Client {
		t.Fatal("two configurations' environments share a client")
	}
	if o, _ := ChainReaderOf(other, "ethereum"); o.(ClientReader).C == r1.(ClientReader).C {
		t.Fatal("two configurations' environments share a chain client")
	}
}
