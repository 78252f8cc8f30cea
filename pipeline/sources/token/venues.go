package token

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// Venue kinds.
const (
	KindV2 = "uniswap_v2"
	KindV3 = "uniswap_v3"
)

// Venue is a DEX whose pools are found through its factory.
type Venue struct {
	Name string `json:"name"`
	// Kind is uniswap_v2 (getPair(a, b), constant-product pairs: Uniswap
	// v2 and its forks) or uniswap_v3 (getPool(a, b, fee)).
	Kind    string         `json:"kind"`
	Factory common.Address `json:"factory"`
	// FeeTiers are the v3 fee tiers tried (hundredths of a basis point).
	FeeTiers []uint32 `json:"fee_tiers,omitempty"`
}

// Stable is a USD stablecoin used as a quote, valued at $1.
type Stable struct {
	Symbol   string         `json:"symbol"`
	Address  common.Address `json:"address"`
	Decimals uint8          `json:"decimals"`
}

// ChainVenues are the venues and quotes of one chain.
type ChainVenues struct {
	Chain   string         `json:"chain"`
	WETH    common.Address `json:"weth"`
	Stables []Stable       `json:"stables"`
	Venues  []Venue        `json:"venues"`
	// Lockers are LP-locker contracts whose LP holdings count as locked.
	Lockers []common.Address `json:"lockers,omitempty"`
}

// VenueFile is the venues configuration: {"chains": [...]}.
type VenueFile struct {
	Chains []ChainVenues `json:"chains"`
}

//go:embed venues.json
var defaultVenues []byte

// DefaultVenues are the venues of the token routes' chains (base,
// arbitrum, optimism): Uniswap v3 and v2 with their factories from
// Uniswap's deployment pages, WETH and the chain's main USD stablecoins.
func DefaultVenues() []ChainVenues {
	v, err := ParseVenues(defaultVenues)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return v
}

// ParseVenues reads and checks a venues file.
func ParseVenues(b []byte) ([]ChainVenues, error) {
	var f VenueFile
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("cannot read the venues: %w", err)
	}
	seen := map[string]bool{}
	for _, c := range f.Chains {
		if c.Chain == "" || seen[c.Chain] {
			return nil, fmt.Errorf("cannot read the venues: chain %q empty or listed twice", c.Chain)
		}
		seen[c.Chain] = true
		if c.WETH == (common.Address{}) {
			return nil, fmt.Errorf("cannot read the venues of %s: weth is required", c.Chain)
		}
		for _, v := range c.Venues {
			if v.Kind != KindV2 && v.Kind != KindV3 {
				return nil, fmt.Errorf("cannot read the venues of %s: venue %s has kind %q, want uniswap_v2 or uniswap_v3", c.Chain, v.Name, v.Kind)
			}
			if v.Kind == KindV3 && len(v.FeeTiers) == 0 {
				return nil, fmt.Errorf("cannot read the venues of %s: v3 venue %s lists no fee tiers", c.Chain, v.Name)
			}
		}
	}
	return f.Chains, nil
}
