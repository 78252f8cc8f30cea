// Package soldex derives Solana DEX swaps from transaction metadata: the
// token-balance deltas (meta.preTokenBalances and meta.postTokenBalances) of
// the vault token accounts of known pools. It reads no program's instruction
// layout, so it works for any AMM — Raydium, Orca Whirlpool, Meteora DLMM,
// Phoenix — and for swaps routed through aggregators (Jupiter, OKX): whatever
// the route, a pool's swap leaves one vault richer in one mint and the other
// poorer in the other.
//
// The connector (Source) reads the transactions over Solana JSON-RPC:
// getSignaturesForAddress on each pool account, then getTransaction.
package soldex

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
)

// Pool is one known pool: the account that owns its two vault token
// accounts (the "owner" of the vaults' token balances — the pool account or
// its authority PDA) and the two mints.
type Pool struct {
	// Address is the owner of the vault token accounts.
	Address string `json:"address"`
	// Venue is the venue id of the trades, e.g. "raydium_clmm", "orca_whirlpool".
	Venue string `json:"venue"`
	// Name labels the pool, e.g. "SOL/USDC".
	Name string `json:"name"`
	// BaseMint and QuoteMint are the mints of the traded token and of the
	// quote (a USD stablecoin, or wrapped SOL).
	BaseMint  string `json:"base_mint"`
	QuoteMint string `json:"quote_mint"`
}

// TokenBalance is one entry of pre/postTokenBalances.
type TokenBalance struct {
	AccountIndex  int    `json:"accountIndex"`
	Mint          string `json:"mint"`
	Owner         string `json:"owner"`
	UITokenAmount struct {
		Amount   string `json:"amount"`
		Decimals int    `json:"decimals"`
	} `json:"uiTokenAmount"`
}

// Meta is the part of a transaction's metadata the parser reads.
type Meta struct {
	Err               json.RawMessage `json:"err"`
	PreTokenBalances  []TokenBalance  `json:"preTokenBalances"`
	PostTokenBalances []TokenBalance  `json:"postTokenBalances"`
}

// Swap is one pool's side of a transaction. The deltas are the vaults':
// positive flowed into the pool, negative out of it, in atomic units.
type Swap struct {
	Pool                        *Pool
	BaseDelta, QuoteDelta       *big.Int
	BaseDecimals, QuoteDecimals int
	// Trader is the owner of the token account that received what the pool
	// paid out (the largest such account when a route splits it).
	Trader string
}

// Errors of ParseMeta; the reason of a rejected transaction starts with the
// sentinel's text.
var (
	ErrMalformed = errors.New("malformed transaction metadata")
	ErrFailed    = errors.New("failed transaction")
	ErrNotSwap   = errors.New("not a swap")
)

// ParseMeta decodes transaction metadata JSON and returns the swaps of the
// known pools (keyed by vault owner), in the order of pools. A transaction
// that touches no known vault yields no swap and no error. A known pool whose
// vaults moved the same way (a deposit or withdrawal) is ErrNotSwap.
//
// The scanning decoder (scan.go) reads the common shape of metadata; the
// general decoder, parseMetaGeneral, decodes whatever it declines.
func ParseMeta(raw []byte, pools map[string]*Pool) ([]Swap, error) {
	if swaps, err, ok := scanSwaps(raw, pools, nil); ok {
		return swaps, err
	}
	return parseMetaGeneral(raw, pools, nil)
}

// parseMetaGeneral is the reference decoder: encoding/json into Meta, then
// Swaps. It was goccy/go-json, which panics on some sequences of malformed
// inputs (decoder state carried between calls, goccy/go-json#604; found by
// FuzzParseMeta): outside input must never crash the connector, and the
// scanning decoder now reads the common shape, so the general path is the
// robust one.
func parseMetaGeneral(raw []byte, pools map[string]*Pool, order []string) ([]Swap, error) {
	var m Meta
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return Swaps(&m, pools, order)
}

// Swaps is ParseMeta on decoded metadata; order lists the pool addresses in
// the order swaps are returned (nil: the order of first appearance in the
// balances).
func Swaps(m *Meta, pools map[string]*Pool, order []string) ([]Swap, error) {
	if len(m.Err) > 0 && string(m.Err) != "null" {
		return nil, fmt.Errorf("%w: %s", ErrFailed, truncate(m.Err))
	}
	type acct struct {
		mint, owner string
		dec         int
		pre, post   *big.Int
	}
	accts := map[int]*acct{}
	var seen []int
	read := func(bs []TokenBalance, post bool) error {
		for _, b := range bs {
			v, ok := new(big.Int).SetString(b.UITokenAmount.Amount, 10)
			if !ok || v.Sign() < 0 || b.Mint == "" || b.AccountIndex < 0 || b.UITokenAmount.Decimals < 0 || b.UITokenAmount.Decimals > 30 {
				return fmt.Errorf("%w: bad token balance of account %d", ErrMalformed, b.AccountIndex)
			}
			a := accts[b.AccountIndex]
			if a == nil {
				a = &acct{mint: b.Mint, owner: b.Owner, dec: b.UITokenAmount.Decimals, pre: new(big.Int), post: new(big.Int)}
				accts[b.AccountIndex] = a
				seen = append(seen, b.AccountIndex)
			} else if a.mint != b.Mint {
				return fmt.Errorf("%w: account %d changes mint", ErrMalformed, b.AccountIndex)
			}
			if post {
				a.post = v
			} else {
				a.pre = v
			}
		}
		return nil
	}
	if err := read(m.PreTokenBalances, false); err != nil {
		return nil, err
	}
	if err := read(m.PostTokenBalances, true); err != nil {
		return nil, err
	}
	if order == nil {
		dup := map[string]bool{}
		for _, i := range seen {
			if o := accts[i].owner; pools[o] != nil && !dup[o] {
				dup[o] = true
				order = append(order, o)
			}
		}
	}
	var out []Swap
	for _, addr := range order {
		p := pools[addr]
		if p == nil {
			continue
		}
		s := Swap{Pool: p, BaseDelta: new(big.Int), QuoteDelta: new(big.Int), BaseDecimals: -1, QuoteDecimals: -1}
		for _, i := range seen {
			a := accts[i]
			if a.owner != p.Address {
				continue
			}
			d := new(big.Int).Sub(a.post, a.pre)
			switch a.mint {
			case p.BaseMint:
				s.BaseDelta.Add(s.BaseDelta, d)
				s.BaseDecimals = a.dec
			case p.QuoteMint:
				s.QuoteDelta.Add(s.QuoteDelta, d)
				s.QuoteDecimals = a.dec
			}
		}
		if s.BaseDecimals < 0 || s.QuoteDecimals < 0 || (s.BaseDelta.Sign() == 0 && s.QuoteDelta.Sign() == 0) {
			continue // the pool's vaults are not both in the transaction, or did not move
		}
		if s.BaseDelta.Sign() == s.QuoteDelta.Sign() || s.BaseDelta.Sign() == 0 || s.QuoteDelta.Sign() == 0 {
			return nil, fmt.Errorf("%w: pool %s vaults moved base %s and quote %s", ErrNotSwap, p.Address, s.BaseDelta, s.QuoteDelta)
		}
		// The trader received what the pool paid out.
		outMint := p.BaseMint
		if s.QuoteDelta.Sign() < 0 {
			outMint = p.QuoteMint
		}
		best := new(big.Int)
		for _, i := range seen {
			a := accts[i]
			if a.owner == p.Address || a.mint != outMint {
				continue
			}
			if d := new(big.Int).Sub(a.post, a.pre); d.Cmp(best) > 0 {
				best, s.Trader = d, a.owner
			}
		}
		out = append(out, s)
	}
	return out, nil
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "..."
	}
	return string(b)
}
