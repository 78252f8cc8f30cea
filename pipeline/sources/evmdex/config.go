package evmdex

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
)

// PoolConfig names one Uniswap v3-style pool to follow: by its address,
// or by its pair and fee, which the chain's factory resolves (getPool)
// when the connector connects.
type PoolConfig struct {
	// Chain is the chain name as the pipeline spells it: "ethereum", "base",
	// "arbitrum", "optimism", "polygon".
	Chain string `json:"chain"`
	// Address is the pool contract address; empty when Token0, Token1 and
	// Fee name the pool.
	Address string `json:"address,omitempty"`
	// Token0 and Token1 (either order) and Fee (hundredths of a bip: 100,
	// 500, 3000, 10000) name the pool by its pair; the chain entry's
	// factory must be set. A pair the factory has no pool of is logged and
	// skipped.
	Token0 string `json:"token0,omitempty"`
	Token1 string `json:"token1,omitempty"`
	Fee    uint32 `json:"fee,omitempty"`
	// Name is a label for logs and the liquidity block, e.g. "USDC/WETH 0.05%".
	Name string `json:"name"`
}

// byPair reports whether the pool is named by its pair rather than its
// address.
func (p PoolConfig) byPair() bool { return p.Address == "" }

// label names the pool in errors and logs.
func (p PoolConfig) label() string {
	if p.byPair() {
		return fmt.Sprintf("%s/%s fee %d", p.Token0, p.Token1, p.Fee)
	}
	return p.Address
}

// Discover makes a connector follow the pools its chain's factory created
// between listed tokens: those whose PoolCreated logs from FromBlock are
// found when it connects, and those created while it runs.
type Discover struct {
	// FromBlock is the first block whose PoolCreated logs are read when the
	// connector connects (the factory's deployment block finds every pool;
	// a later block reads fewer logs).
	FromBlock uint64 `json:"from_block"`
	// Tokens are token addresses: a pool is followed when both its tokens
	// are listed. At least two.
	Tokens []string `json:"tokens"`
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
	// Factory is the chain's Uniswap v3 factory (e.g. 0x1F98431c8aD98523631AE4a59f267346ea31F984
	// on Ethereum, Arbitrum, Optimism and Polygon): pools named by pair and
	// Discover read it.
	Factory string `json:"factory,omitempty"`
	// Discover, when set, follows the pools the factory created between
	// listed tokens.
	Discover *Discover `json:"discover,omitempty"`
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
		if err := c.validateFactory(); err != nil {
			return err
		}
		chains[c.Chain] = true
	}
	factory := map[string]bool{}
	for _, c := range f.Chains {
		factory[c.Chain] = c.Factory != ""
	}
	for _, p := range f.Pools {
		if !chains[p.Chain] {
			return fmt.Errorf("cannot follow pool %s: chain %q has no entry in chains", p.label(), p.Chain)
		}
		if err := p.validate(factory[p.Chain]); err != nil {
			return err
		}
	}
	return nil
}

// validateFactory checks the factory address and the discovery settings.
func (c ChainConfig) validateFactory() error {
	if c.Factory != "" && !common.IsHexAddress(c.Factory) {
		return fmt.Errorf("cannot use chain %s: factory %q is not a 20-byte hex address", c.Chain, c.Factory)
	}
	if c.Discover == nil {
		return nil
	}
	if c.Factory == "" {
		return fmt.Errorf("cannot use chain %s: discover needs the chain's factory (\"factory\": \"0x...\")", c.Chain)
	}
	if len(c.Discover.Tokens) < 2 {
		return fmt.Errorf("cannot use chain %s: discover.tokens lists %d tokens; a pool needs two", c.Chain, len(c.Discover.Tokens))
	}
	for _, t := range c.Discover.Tokens {
		if !common.IsHexAddress(t) {
			return fmt.Errorf("cannot use chain %s: discover.tokens: %q is not a 20-byte hex address", c.Chain, t)
		}
	}
	return nil
}

// validate checks that the pool is named by an address, or by two tokens
// and a fee on a chain with a factory.
func (p PoolConfig) validate(hasFactory bool) error {
	if !p.byPair() {
		if p.Token0 != "" || p.Token1 != "" || p.Fee != 0 {
			return fmt.Errorf("cannot follow pool %s: give address, or token0, token1 and fee, not both", p.Address)
		}
		if !common.IsHexAddress(p.Address) {
			return fmt.Errorf("cannot follow pool %q: not a 20-byte hex address", p.Address)
		}
		return nil
	}
	if !common.IsHexAddress(p.Token0) || !common.IsHexAddress(p.Token1) {
		return fmt.Errorf("cannot follow pool %s: give address, or token0 and token1 as 20-byte hex addresses and fee", p.label())
	}
	if common.HexToAddress(p.Token0) == common.HexToAddress(p.Token1) {
		return fmt.Errorf("cannot follow pool %s: token0 and token1 are the same token", p.label())
	}
	if p.Fee == 0 || p.Fee >= 1_000_000 {
		return fmt.Errorf("cannot follow pool %s: fee %d out of range: hundredths of a bip, 1 to 999999 (100, 500, 3000 and 10000 on Uniswap v3)", p.label(), p.Fee)
	}
	if !hasFactory {
		return fmt.Errorf("cannot follow pool %s on %s: a pool named by its pair needs the chain's factory (\"factory\": \"0x...\")", p.label(), p.Chain)
	}
	return nil
}

// Configs returns one connector configuration per chain that has pools or
// discovers them.
func (f File) Configs() []Config {
	var out []Config
	for _, c := range f.Chains {
		cfg := Config{ChainConfig: c}
		for _, p := range f.Pools {
			if p.Chain == c.Chain {
				cfg.Pools = append(cfg.Pools, p)
			}
		}
		if len(cfg.Pools) > 0 || c.Discover != nil {
			out = append(out, cfg)
		}
	}
	return out
}
