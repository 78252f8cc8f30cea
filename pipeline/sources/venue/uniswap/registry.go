package uniswap

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/symbols"
)

// Caller makes one eth_call of data to the contract to at the latest block
// and returns what it returned (chain.Client.Call, an ethclient, ...).
type Caller func(ctx context.Context, to common.Address, data []byte) ([]byte, error)

// Registry resolves Uniswap v3 pools of one chain it has not been told
// about: the first time a pool is asked for, it reads token0, token1, fee
// and tickSpacing from the pool and decimals and symbol from each token
// over its Caller, and keeps the answer (or the error) for the life of the
// Registry, so each pool and each token is read once. It is safe for
// concurrent use.
type Registry struct {
	chain string
	call  Caller

	mu    sync.Mutex
	pools map[common.Address]*resolved
	toks  map[common.Address]*tokenMeta
}

type resolved struct {
	meta *operators.PoolMeta
	err  error
}

type tokenMeta struct {
	ticker   string
	decimals int
	symbol   string
}

// NewRegistry returns a Registry of the pools of chain, read through call.
func NewRegistry(chain string, call Caller) *Registry {
	return &Registry{chain: chain, call: call, pools: map[common.Address]*resolved{}, toks: map[common.Address]*tokenMeta{}}
}

// Chain is the chain the Registry reads.
func (r *Registry) Chain() string { return r.chain }

// Pool returns the description of the pool at addr (a hex address), read
// from the chain the first time. Name is "T0/T1 fee%" from the tokens'
// symbols. A pool whose reads fail keeps its error: it is not read again.
func (r *Registry) Pool(ctx context.Context, addr string) (*operators.PoolMeta, error) {
	if !common.IsHexAddress(addr) {
		return nil, fmt.Errorf("cannot resolve pool %q: not a 20-byte hex address", addr)
	}
	a := common.HexToAddress(addr)
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.pools[a]; ok {
		return p.meta, p.err
	}
	m, err := r.read(ctx, a)
	r.pools[a] = &resolved{m, err}
	return m, err
}

func (r *Registry) read(ctx context.Context, a common.Address) (*operators.PoolMeta, error) {
	var t0, t1 common.Address
	var fee, spacing *big.Int
	for _, c := range []struct {
		m   string
		out any
	}{{"token0", &t0}, {"token1", &t1}, {"fee", &fee}, {"tickSpacing", &spacing}} {
		if err := r.get(ctx, a, PoolABI, c.m, c.out); err != nil {
			return nil, fmt.Errorf("cannot resolve pool %s on %s: %w", strings.ToLower(a.Hex()), r.chain, err)
		}
	}
	if fee.Sign() < 0 || fee.BitLen() > 24 || spacing.BitLen() > 23 {
		return nil, fmt.Errorf("cannot resolve pool %s on %s: fee %s or tickSpacing %s out of range: not a Uniswap v3 pool", strings.ToLower(a.Hex()), r.chain, fee, spacing)
	}
	var tok [2]*tokenMeta
	for i, ta := range []common.Address{t0, t1} {
		t, err := r.token(ctx, ta)
		if err != nil {
			return nil, fmt.Errorf("cannot resolve pool %s on %s: %w", strings.ToLower(a.Hex()), r.chain, err)
		}
		tok[i] = t
	}
	m := &operators.PoolMeta{Chain: r.chain, Address: strings.ToLower(a.Hex()),
		Fee: uint32(fee.Uint64()), TickSpacing: int32(spacing.Int64()),
		Token0: strings.ToLower(t0.Hex()), Token1: strings.ToLower(t1.Hex()),
		Ticker0: tok[0].ticker, Ticker1: tok[1].ticker, Decimals0: tok[0].decimals, Decimals1: tok[1].decimals,
		Symbol0: tok[0].symbol, Symbol1: tok[1].symbol, Resolved: true}
	m.Name = fmt.Sprintf("%s/%s %s%%", m.Ticker0, m.Ticker1, strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", float64(m.Fee)/1e4), "0"), "."))
	return m, nil
}

func (r *Registry) token(ctx context.Context, a common.Address) (*tokenMeta, error) {
	if t, ok := r.toks[a]; ok {
		return t, nil
	}
	var dec uint8
	var sym string
	if err := r.get(ctx, a, ERC20ABI, "decimals", &dec); err != nil {
		return nil, err
	}
	if err := r.get(ctx, a, ERC20ABI, "symbol", &sym); err != nil {
		return nil, err
	}
	t := &tokenMeta{ticker: sym, decimals: int(dec), symbol: TokenSymbol(r.chain, a.Hex(), sym)}
	if reg, ok := symbols.LookupToken(r.chain, a.Hex()); ok && reg.Decimals != t.decimals {
		return nil, fmt.Errorf("cannot use token %s: decimals() = %d, the registry says %d", a.Hex(), t.decimals, reg.Decimals)
	}
	r.toks[a] = t
	return t, nil
}

func (r *Registry) get(ctx context.Context, to common.Address, a abi.ABI, method string, out any) error {
	data, err := a.Pack(method)
	if err != nil {
		panic("BUG: cannot pack " + method + ": " + err.Error())
	}
	res, err := r.call(ctx, to, data)
	if err != nil {
		return fmt.Errorf("cannot call %s() on %s: %w", method, to.Hex(), err)
	}
	if err := a.UnpackIntoInterface(out, method, res); err != nil {
		return fmt.Errorf("cannot decode %s() of %s: %w", method, to.Hex(), err)
	}
	return nil
}

// usdQuotes are the tickers of USD stablecoins, native and bridged, that
// quote a pool in USD when the symbol registry does not list the token.
var usdQuotes = map[string]bool{"USDC": true, "USDT": true, "DAI": true, "USDC.E": true, "USDBC": true, "USDT0": true}

// TokenSymbol is the normalized symbol of the token at address on chain
// whose ERC-20 symbol() is ticker: the symbol registry's when it lists the
// token; else "USD" for a USD stablecoin ticker (USDC, USDT, DAI and the
// bridged USDC.e, USDbC, USDT0, any case), "ETHUSD" for WETH, and the
// ticker as a USD pair ("PEPE" → "PEPEUSD") for any other well-formed
// ticker; "" when the ticker is none.
func TokenSymbol(chain, address, ticker string) string {
	if reg, ok := symbols.LookupToken(chain, address); ok {
		return reg.Symbol
	}
	u := strings.ToUpper(strings.TrimSpace(ticker))
	switch {
	case usdQuotes[u]:
		return symbols.USD
	case u == "WETH":
		return "ETHUSD"
	}
	if s, ok := symbols.Normalize("", u+"/USD"); ok {
		return s
	}
	return ""
}

// ErrNoPool is returned by Find when the factory has no pool of the pair
// and fee.
var ErrNoPool = errors.New("no pool")

// Find discovers the pool of tokens a and b (either order) with fee
// (hundredths of a bip: 100, 500, 3000, 10000) from the factory's
// getPool, and resolves it as Pool does. A pair without a pool is an
// error wrapping ErrNoPool.
func (r *Registry) Find(ctx context.Context, factory, a, b common.Address, fee uint32) (*operators.PoolMeta, error) {
	data, err := FactoryABI.Pack("getPool", a, b, new(big.Int).SetUint64(uint64(fee)))
	if err != nil {
		return nil, fmt.Errorf("cannot find pool: fee %d: %w", fee, err)
	}
	res, err := r.call(ctx, factory, data)
	if err != nil {
		return nil, fmt.Errorf("cannot call getPool() on %s: %w", factory.Hex(), err)
	}
	var pool common.Address
	if err := FactoryABI.UnpackIntoInterface(&pool, "getPool", res); err != nil {
		return nil, fmt.Errorf("cannot decode getPool() of %s: %w", factory.Hex(), err)
	}
	if pool == (common.Address{}) {
		return nil, fmt.Errorf("cannot find pool of %s/%s fee %d on %s: %w", a.Hex(), b.Hex(), fee, r.chain, ErrNoPool)
	}
	return r.Pool(ctx, pool.Hex())
}
