package token

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/schemas"
)

// Stablecoin is a listed USD stablecoin watched for depegs on one chain.
type Stablecoin struct {
	Symbol   string         `json:"symbol"`
	Chain    string         `json:"chain"`
	Address  common.Address `json:"address"`
	Decimals uint8          `json:"decimals"`
	// Feed is a Chainlink <symbol>/USD aggregator, if any.
	Feed common.Address `json:"feed,omitempty"`
}

//go:embed stablecoins.json
var defaultStablecoins []byte

// DefaultStablecoins are the eleven listed USD stablecoins on Ethereum
// (addresses from Uniswap's default token list, feeds from Aave v3's
// deployment: see docs/token.md and TestDefaultStablecoinsMatchFixtures).
func DefaultStablecoins() []Stablecoin {
	var f struct {
		Stablecoins []Stablecoin `json:"stablecoins"`
	}
	dec := json.NewDecoder(bytes.NewReader(defaultStablecoins))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		panic("BUG: " + err.Error())
	}
	return f.Stablecoins
}

// chainlinkABI is what the depeg watch reads of a feed.
var chainlinkABI = mustABI(`[
{"type":"function","name":"decimals","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint8"}]},
{"type":"function","name":"latestRoundData","stateMutability":"view","inputs":[],"outputs":[{"name":"roundId","type":"uint80"},{"name":"answer","type":"int256"},{"name":"startedAt","type":"uint256"},{"name":"updatedAt","type":"uint256"},{"name":"answeredInRound","type":"uint80"}]}
]`)

// StablecoinQuote reads sc's price from its deepest pool against another
// listed stablecoin of the chain (valued at $1: the reading measures sc
// against it), the pool's depth, and the Chainlink feed's latest answer
// when sc has one. It is not cached: the depeg watch reads every 5
// minutes.
func (r *Reader) StablecoinQuote(ctx context.Context, sc Stablecoin) (*schemas.StablecoinQuote, error) {
	s, err := r.open(ctx, sc.Chain, sc.Address)
	if err != nil {
		return nil, err
	}
	var qs []quote
	for _, st := range s.cv.Stables {
		if st.Address != sc.Address {
			qs = append(qs, quote{Address: st.Address, Symbol: st.Symbol, Decimals: st.Decimals, USD: 1})
		}
	}
	pools, err := s.findPools(ctx, sc.Address, sc.Decimals, qs)
	if err != nil {
		return nil, err
	}
	var best *pool
	for _, p := range pools {
		if best == nil || p.LiquidityUSD > best.LiquidityUSD {
			best = p
		}
	}
	if best == nil {
		return nil, fmt.Errorf("cannot price %s on %s: no pool against another listed stablecoin", sc.Symbol, sc.Chain)
	}
	q := &schemas.StablecoinQuote{Symbol: sc.Symbol, Chain: sc.Chain, Pool: best.addr.Hex(), Venue: best.Venue,
		ObservedNs: time.Unix(int64(s.head.Time), 0).UnixNano(), ReadNs: r.clk.Now().UnixNano(), Block: s.head.Number,
		DexPrice: best.PriceUSD}
	// Depth: the USD value the pool holds of both tokens (the quote side
	// at $1, the stablecoin at its pool price).
	q.DepthUsd = best.LiquidityUSD/2 + units(best.rToken, sc.Decimals)*best.PriceUSD
	if sc.Feed != (common.Address{}) {
		dec, err1 := chainlinkABI.Pack("decimals")
		lrd, err2 := chainlinkABI.Pack("latestRoundData")
		if err1 != nil || err2 != nil {
			panic("BUG: cannot pack the feed calls")
		}
		calls := []*call{{to: sc.Feed, data: dec}, {to: sc.Feed, data: lrd}}
		if err := s.batch(ctx, calls); err != nil {
			return nil, err
		}
		if calls[0].err == nil && calls[1].err == nil {
			d, e1 := chainlinkABI.Unpack("decimals", calls[0].out)
			v, e2 := chainlinkABI.Unpack("latestRoundData", calls[1].out)
			if e1 == nil && e2 == nil {
				ans, upd := v[1].(*big.Int), v[3].(*big.Int)
				f, _ := new(big.Float).SetInt(ans).Float64()
				q.HasOracle = true
				q.OraclePrice = f / math.Pow10(int(d[0].(uint8)))
				q.OracleUpdatedNs = time.Unix(upd.Int64(), 0).UnixNano()
			}
		}
	}
	return q, nil
}
