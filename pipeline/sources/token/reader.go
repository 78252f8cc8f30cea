// Package token reads a token's DEX flow and risk facts from an EVM chain
// on demand (spec §4.5, docs/token.md): pools found through the listed
// venues' factories, the last hour of Swap logs, a buy and a sell
// simulated by eth_call as a recent real buyer, owner and proxy reads and
// a scan of the code. It reads through pipeline/sources/chain (one client
// per chain, request sharing) and shares results through chain.Cache:
// flows for 45 seconds, risk reports for 120 seconds. The rules that turn
// the facts into answers live in the assess subpackage.
package token

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/clock"
	"github.com/marketintel/mi/pipeline/sources/token/assess"
)

// Cache windows (spec §8).
const (
	FlowTTL = 45 * time.Second
	RiskTTL = 120 * time.Second
	// Window is the flow's window before the head block.
	Window = time.Hour
)

// Bad-input sentinels: the address holds no ERC-20 token. Their messages
// are fit for a 400.
var (
	ErrNotContract    = errors.New("no contract at this address (an externally owned account or an unused address)")
	ErrSelfDestructed = errors.New("the contract at this address self-destructed (it has no code now but emitted logs before)")
	ErrNotERC20       = errors.New("the contract at this address is not an ERC-20 token (decimals, totalSupply or balanceOf does not answer as ERC-20 requires)")
	ErrNoVenues       = errors.New("no venues configured for this chain")
)

// Chains gives the client of a chain (chain.Set implements it).
type Chains interface {
	Get(chain string) (*chain.Client, error)
}

// Options configure a Reader.
type Options struct {
	// Venues replace DefaultVenues (tests and the demo's local chain).
	Venues []ChainVenues
	// Clock stamps ReadAt and runs the caches; nil: system.
	Clock clock.Clock
	// MaxTraderReads bounds the transactions whose sender is read to name
	// the traders of one flow (the most recent first); default 500.
	MaxTraderReads int
	// SelfDestructLookback is how many blocks back logs of an address
	// without code are looked for; default 50,000.
	SelfDestructLookback uint64
}

// Reader answers token flows and risk reports. It is safe for concurrent
// use; one per process.
type Reader struct {
	chains   Chains
	venues   map[string]ChainVenues
	clk      clock.Clock
	flows    *chain.Cache[*flowRead]
	risks    *chain.Cache[*assess.Report]
	slots    *chain.Cache[balanceSlot]
	maxTx    int
	lookback uint64
}

// New returns a reader over chains.
func New(chains Chains, o Options) *Reader {
	v := o.Venues
	if v == nil {
		v = DefaultVenues()
	}
	m := map[string]ChainVenues{}
	for _, c := range v {
		m[c.Chain] = c
	}
	clk := clock.Or(o.Clock)
	r := &Reader{chains: chains, venues: m, clk: clk,
		flows: chain.NewCache[*flowRead](FlowTTL, 0, clk),
		risks: chain.NewCache[*assess.Report](RiskTTL, 0, clk),
		slots: chain.NewCache[balanceSlot](24*time.Hour, 0, clk),
		maxTx: o.MaxTraderReads, lookback: o.SelfDestructLookback}
	if r.maxTx <= 0 {
		r.maxTx = 500
	}
	if r.lookback == 0 {
		r.lookback = 50_000
	}
	return r
}

// Chains lists the chains the reader has venues for, sorted.
func (r *Reader) Chains() []string {
	out := make([]string, 0, len(r.venues))
	for c := range r.venues {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// FlowStats and RiskStats are the caches' counters.
func (r *Reader) FlowStats() chain.CacheStats { return r.flows.Stats() }

// RiskStats is the risk cache's counters.
func (r *Reader) RiskStats() chain.CacheStats { return r.risks.Stats() }

// session is one read of one token: the chain's client, its venues and
// the head block every call of the read is pinned to.
type session struct {
	r     *Reader
	c     *chain.Client
	cv    ChainVenues
	token common.Address
	head  chain.Header
	block string // hex of head.Number
}

func (r *Reader) open(ctx context.Context, chainName string, token common.Address) (*session, error) {
	cv, ok := r.venues[chainName]
	if !ok {
		return nil, fmt.Errorf("%w: %q; supported chains: %s", ErrNoVenues, chainName, strings.Join(r.Chains(), ", "))
	}
	c, err := r.chains.Get(chainName)
	if err != nil {
		return nil, err
	}
	if err := c.Verify(ctx); err != nil {
		return nil, err
	}
	head, err := c.Header(ctx, nil)
	if err != nil {
		return nil, err
	}
	return &session{r: r, c: c, cv: cv, token: token, head: head, block: hexutil.EncodeUint64(head.Number)}, nil
}

// call is one eth_call of a batch.
type call struct {
	to   common.Address
	data []byte
	out  hexutil.Bytes
	err  error
}

// batch runs the calls as one JSON-RPC batch (100 per request) at the
// session's block. The request's error is returned; each call's own error
// (a revert) is in its err.
func (s *session) batch(ctx context.Context, calls []*call) error {
	for len(calls) > 0 {
		k := min(len(calls), 100)
		elems := make([]rpc.BatchElem, k)
		for i, cl := range calls[:k] {
			elems[i] = rpc.BatchElem{Method: "eth_call", Args: []any{map[string]any{"to": cl.to, "data": hexutil.Bytes(cl.data)}, s.block}, Result: &cl.out}
		}
		if err := s.c.Batch(ctx, elems); err != nil {
			return err
		}
		for i, cl := range calls[:k] {
			cl.err = elems[i].Error
		}
		calls = calls[k:]
	}
	return nil
}

func unpack(method string, cl *call) ([]any, bool) {
	if cl.err != nil || len(cl.out) == 0 {
		return nil, false
	}
	v, err := reads.Unpack(method, cl.out)
	if err != nil {
		return nil, false
	}
	return v, true
}

// tokenInfo is what the reads need of the token.
type tokenInfo struct {
	Code     []byte
	Name     string
	Symbol   string
	Decimals uint8
	Supply   *big.Int
}

// inspect reads the token's code and ERC-20 metadata, and classifies an
// address that is not a token (ErrNotContract, ErrSelfDestructed,
// ErrNotERC20).
func (s *session) inspect(ctx context.Context) (tokenInfo, error) {
	var ti tokenInfo
	code, err := s.c.Code(ctx, s.token, s.at())
	if err != nil {
		return ti, err
	}
	if len(code) == 0 {
		from := uint64(0)
		if s.head.Number > s.r.lookback {
			from = s.head.Number - s.r.lookback
		}
		logs, err := s.c.Logs(ctx, filterQuery([]common.Address{s.token}, nil, from, s.head.Number))
		if err != nil {
			return ti, err
		}
		if len(logs) > 0 {
			return ti, fmt.Errorf("%s: %w (%d logs, the last in block %d)", s.token.Hex(), ErrSelfDestructed, len(logs), logs[len(logs)-1].BlockNumber)
		}
		return ti, fmt.Errorf("%s: %w", s.token.Hex(), ErrNotContract)
	}
	ti.Code = code
	calls := []*call{
		{to: s.token, data: pack("decimals")},
		{to: s.token, data: pack("totalSupply")},
		{to: s.token, data: pack("balanceOf", deadAddress)},
		{to: s.token, data: pack("symbol")},
		{to: s.token, data: pack("name")},
	}
	if err := s.batch(ctx, calls); err != nil {
		return ti, err
	}
	d, ok1 := unpack("decimals", calls[0])
	sup, ok2 := unpack("totalSupply", calls[1])
	_, ok3 := unpack("balanceOf", calls[2])
	if !ok1 || !ok2 || !ok3 {
		return ti, fmt.Errorf("%s: %w", s.token.Hex(), ErrNotERC20)
	}
	ti.Decimals = d[0].(uint8)
	ti.Supply = sup[0].(*big.Int)
	if v, ok := unpack("symbol", calls[3]); ok {
		ti.Symbol = clean(v[0].(string))
	}
	if v, ok := unpack("name", calls[4]); ok {
		ti.Name = clean(v[0].(string))
	}
	return ti, nil
}

// clean keeps a token's self-declared name printable and short.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if len(s) > 64 {
		s = s[:64]
	}
	return s
}

// IsBadInput reports whether err says the address holds no ERC-20 token or
// the chain is not served: the caller's mistake, a 400.
func IsBadInput(err error) bool {
	return errors.Is(err, ErrNotContract) || errors.Is(err, ErrSelfDestructed) || errors.Is(err, ErrNotERC20) ||
		errors.Is(err, ErrNoVenues) || errors.Is(err, chain.ErrUnknownChain)
}

// at is the session's block as a number.
func (s *session) at() *big.Int { return new(big.Int).SetUint64(s.head.Number) }
