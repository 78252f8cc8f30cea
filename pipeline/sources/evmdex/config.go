package evmdex

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// PoolConfig names one Uniswap v3-style pool to follow.
type PoolConfig struct {
	// Chain is the chain name as the pipeline spells it: "ethereum", "base",
	// "arbitrum", "optimism".
	Chain string `json:"chain"`
	// Address is the pool contract address.
	Address string `json:"address"`
	// Name is a label for logs and the liquidity block, e.g. "USDC/WETH 0.05%".
	Name string `json:"name"`
}

// ChainConfig says how to reach one chain.
type ChainConfig struct {
	// Chain is the chain name.
	Chain string `json:"chain"`
	// RPC is the JSON-RPC endpoint: ws:// or wss:// (new heads are then
	// followed with eth_subscribe) or http:// or https:// (polling).
	RPC string `json:"rpc"`
	// Confirmations is how many blocks a block must have on top of it before
	// its logs are emitted (0 emits at the head; reorgs are then repaired by
	// retraction).
	Confirmations uint64 `json:"confirmations"`
	// PollInterval is how often the head is polled when no subscription is
	// available (and the longest wait between checks with one), e.g. "2s".
	PollInterval Duration `json:"poll_interval"`
	// MaxRange is the largest block range of one eth_getLogs call.
	MaxRange uint64 `json:"max_range"`
}

// Duration is a time.Duration that reads "2s"-style strings from JSON.
type Duration time.Duration

// UnmarshalJSON reads a Go duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("cannot read duration: want a string like \"2s\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("cannot read duration %q: %w", s, err)
	}
	*d = Duration(v)
	return nil
}

// File is the pools configuration file (deploy/pools.default.json).
type File struct {
	Chains []ChainConfig `json:"chains"`
	Pools  []PoolConfig  `json:"pools"`
}

// LoadFile reads and validates a pools configuration file.
func LoadFile(path string) (File, error) {
	var f File
	b, err := os.ReadFile(path)
	if err != nil {
		return f, fmt.Errorf("cannot read pools file: %w", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, fmt.Errorf("cannot decode pools file %s: %w", path, err)
	}
	return f, f.Validate()
}

// Validate checks that every pool's chain is configured and every address
// is a 20-byte hex address.
func (f File) Validate() error {
	chains := map[string]bool{}
	for _, c := range f.Chains {
		if c.Chain == "" || c.RPC == "" {
			return fmt.Errorf("cannot use chain entry %+v: chain and rpc are required", c)
		}
		if chains[c.Chain] {
			return fmt.Errorf("cannot use chain %s twice", c.Chain)
		}
		chains[c.Chain] = true
	}
	for _, p := range f.Pools {
		if !chains[p.Chain] {
			return fmt.Errorf("cannot follow pool %s: chain %q has no entry in chains", p.Address, p.Chain)
		}
		if !common.IsHexAddress(p.Address) {
			return fmt.Errorf("cannot follow pool %q: not a 20-byte hex address", p.Address)
		}
	}
	return nil
}

// Configs returns one connector configuration per chain that has pools.
func (f File) Configs() []Config {
	var out []Config
	for _, c := range f.Chains {
		cfg := Config{ChainConfig: c}
		for _, p := range f.Pools {
			if p.Chain == c.Chain {
				cfg.Pools = append(cfg.Pools, p)
			}
		}
		if len(cfg.Pools) > 0 {
			out = append(out, cfg)
		}
	}
	return out
}
