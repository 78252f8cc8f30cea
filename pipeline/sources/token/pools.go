package token

import (
	"context"
	"math"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/pipeline/sources/token/assess"
)

// quote is a token a pool may pair the token with, and its USD price.
type quote struct {
	Address  common.Address
	Symbol   string
	Decimals uint8
	USD      float64
}

// pool is a found pool with its state at the session's block.
type pool struct {
	assess.Pool
	addr     common.Address
	kind     string
	quote    quote
	tokenIs0 bool
	// reserves (v2) or balances held (v3), in raw units.
	rToken, rQuote *big.Int
	// sqrtP is a v3 pool's slot0 sqrtPriceX96.
	sqrtP *big.Int
}

// quotes returns WETH and the stables with USD prices: stables at $1,
// WETH from the deepest WETH/stable pool of the chain's venues (0 when no
// such pool: pools quoted in WETH then have no USD value).
func (s *session) quotes(ctx context.Context) ([]quote, error) {
	qs := []quote{{Address: s.cv.WETH, Symbol: "WETH", Decimals: 18}}
	for _, st := range s.cv.Stables {
		qs = append(qs, quote{Address: st.Address, Symbol: st.Symbol, Decimals: st.Decimals, USD: 1})
	}
	wethPools, err := s.findPools(ctx, s.cv.WETH, 18, qs[1:])
	if err != nil {
		return nil, err
	}
	best := 0.0
	for _, p := range wethPools {
		if p.LiquidityUSD > best {
			best, qs[0].USD = p.LiquidityUSD, p.PriceUSD
		}
	}
	return qs, nil
}

// findPools finds the pools of tok against each quote on every venue and
// reads their state; tok is priced in USD from each pool's quote.
func (s *session) findPools(ctx context.Context, tok common.Address, tokDec uint8, qs []quote) ([]*pool, error) {
	type cand struct {
		venue Venue
		q     quote
		fee   uint32
		cl    *call
	}
	var cands []cand
	var calls []*call
	for _, v := range s.cv.Venues {
		for _, q := range qs {
			if q.Address == tok {
				continue
			}
			if v.Kind == KindV2 {
				cl := &call{to: v.Factory, data: pack("getPair", tok, q.Address)}
				cands, calls = append(cands, cand{v, q, 0, cl}), append(calls, cl)
				continue
			}
			for _, fee := range v.FeeTiers {
				cl := &call{to: v.Factory, data: pack("getPool", tok, q.Address, new(big.Int).SetUint64(uint64(fee)))}
				cands, calls = append(cands, cand{v, q, fee, cl}), append(calls, cl)
			}
		}
	}
	if err := s.batch(ctx, calls); err != nil {
		return nil, err
	}
	var pools []*pool
	var state []*call
	for _, c := range cands {
		method := "getPair"
		if c.venue.Kind == KindV3 {
			method = "getPool"
		}
		v, ok := unpack(method, c.cl)
		if !ok {
			continue
		}
		addr := v[0].(common.Address)
		if addr == (common.Address{}) {
			continue
		}
		p := &pool{Pool: assess.Pool{Address: addr.Hex(), Venue: c.venue.Name, Kind: c.venue.Kind, Quote: c.q.Symbol, FeeTier: c.fee},
			addr: addr, kind: c.venue.Kind, quote: c.q, tokenIs0: tokenLess(tok, c.q.Address)}
		pools = append(pools, p)
		if p.kind == KindV2 {
			state = append(state, &call{to: addr, data: pack("getReserves")})
		} else {
			state = append(state, &call{to: tok, data: pack("balanceOf", addr)}, &call{to: c.q.Address, data: pack("balanceOf", addr)}, &call{to: addr, data: pack("slot0")})
		}
	}
	if err := s.batch(ctx, state); err != nil {
		return nil, err
	}
	var out []*pool
	for _, p := range pools {
		if p.kind == KindV2 {
			cl := state[0]
			state = state[1:]
			v, ok := unpack("getReserves", cl)
			if !ok {
				continue
			}
			r0, r1 := v[0].(*big.Int), v[1].(*big.Int)
			p.rToken, p.rQuote = r1, r0
			if p.tokenIs0 {
				p.rToken, p.rQuote = r0, r1
			}
		} else {
			bt, bq, s0 := state[0], state[1], state[2]
			state = state[3:]
			vt, ok1 := unpack("balanceOf", bt)
			vq, ok2 := unpack("balanceOf", bq)
			v0, ok3 := unpack("slot0", s0)
			if !ok1 || !ok2 || !ok3 {
				continue
			}
			p.rToken, p.rQuote = vt[0].(*big.Int), vq[0].(*big.Int)
			p.sqrtP = v0[0].(*big.Int)
		}
		out = append(out, p)
	}
	price(out, tokDec)
	return out, nil
}

// price fills the pools' USD price and liquidity: v2 from the reserves, v3 from slot0's sqrtPriceX96; liquidity
// is twice the quote side held by the pool, in USD.
func price(pools []*pool, tokDec uint8) {
	for _, p := range pools {
		q := units(p.rQuote, p.quote.Decimals)
		t := units(p.rToken, tokDec)
		p.LiquidityUSD = 2 * q * p.quote.USD
		switch {
		case p.kind == KindV3 && p.sqrtP != nil:
			p.PriceUSD = v3Price(p.sqrtP, p.tokenIs0, tokDec, p.quote.Decimals) * p.quote.USD
		case t > 0:
			p.PriceUSD = q / t * p.quote.USD
		}
	}
}

// v3Price is the price of the token in quote units from sqrtPriceX96
// (token1 per token0 in raw units = (sqrtP / 2^96)^2).
func v3Price(sqrtP *big.Int, tokenIs0 bool, tokDec, qDec uint8) float64 {
	f, _ := new(big.Float).SetInt(sqrtP).Float64()
	raw := math.Pow(f/math.Exp2(96), 2) // token1 per token0, raw
	if raw == 0 {
		return 0
	}
	if !tokenIs0 {
		raw = 1 / raw
	}
	return raw * math.Pow10(int(tokDec)) / math.Pow10(int(qDec))
}

// units converts raw token units to whole tokens.
func units(x *big.Int, dec uint8) float64 {
	if x == nil {
		return 0
	}
	f, _ := new(big.Float).Quo(new(big.Float).SetInt(x), new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(dec)), nil))).Float64()
	return f
}

// tokenLess reports whether a sorts before b (Uniswap orders token0 <
// token1 by address).
func tokenLess(a, b common.Address) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func filterQuery(addrs []common.Address, topics [][]common.Hash, from, to uint64) ethereum.FilterQuery {
	return ethereum.FilterQuery{Addresses: addrs, Topics: topics, FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to)}
}
