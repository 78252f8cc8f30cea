package evmdex

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sort"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
)

// Pool snapshots. When the connector first meets a pool it reads the pool's
// whole state at one block — slot0 (price and tick), the in-range
// liquidity, and every initialized tick with its liquidityNet (the tick
// bitmap word by word, then ticks(t) for each set bit) — and yields it as a
// PoolSnapshot record of mi.pool-events.v1, then follows the pool's events
// from the next block. The liquidity view replaces the pool's state with the
// snapshot (ignoring events of its block or older), so an estimate crosses
// every initialized tick, not only those seen since start.

// batcher sends JSON-RPC batches: the chain's reader (chain.Client) in
// production; anything with the same method in tests.
type batcher interface {
	Batch(ctx context.Context, elems []rpc.BatchElem) error
}

// Defaults of the snapshot reads.
const (
	// DefaultSnapshotRate is the rate (eth_call per second, the burst as
	// many) of the snapshot reads of one connector: a pool with tick
	// spacing 10 has 694 bitmap words, one with spacing 1 has 6,933.
	DefaultSnapshotRate = 200
	// snapshotBatch is how many eth_call one JSON-RPC batch carries.
	snapshotBatch = 100
	// snapshotTimeout bounds the snapshot of one pool.
	snapshotTimeout = 2 * time.Minute
)

// newSnapshotReader returns the chain reader the snapshots use.
func newSnapshotReader(cfg Config) (batcher, error) {
	rate := cfg.SnapshotRate
	if rate == 0 {
		rate = DefaultSnapshotRate
	}
	return chain.New(sources.ChainConfig{Chain: cfg.Chain, RPC: cfg.RPC, Limit: &sources.Limit{Rate: rate, Burst: int(rate)}}, chain.Options{})
}

// snapshots reads the snapshot, at the last block read, of every pool that
// has none yet, and yields them. A pool whose read fails is logged once and
// tried again at the next step; its events keep flowing meanwhile.
func (s *Source) snapshots(ctx context.Context, c *rpc.Client) {
	if s.snap == nil || s.next == 0 {
		return
	}
	block := s.next - 1
	var todo []common.Address
	for a, m := range s.pools {
		if !s.snapped[a] && m.Resolved {
			todo = append(todo, a)
		}
	}
	sort.Slice(todo, func(i, j int) bool { return todo[i].Cmp(todo[j]) < 0 })
	for _, a := range todo {
		m := s.pools[a]
		sctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
		ev, err := s.snapshot(sctx, c, a, m, block)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if !s.snapFailed[a] && s.cfg.Logf != nil {
				s.cfg.Logf("%s: cannot read the state of pool %s at block %d: %v; estimates use the ticks seen in its events until a later read succeeds", s.name, m.Address, block, err)
			}
			s.snapFailed[a] = true
			continue
		}
		if !s.send(ctx, sidetopic.PoolEvents.Record(ev.Proto())) {
			return
		}
		s.snapped[a] = true
		s.mu.Lock()
		s.stats.Snapshots++
		s.mu.Unlock()
	}
}

// snapshot reads pool a's state at block.
func (s *Source) snapshot(ctx context.Context, c *rpc.Client, a common.Address, m *operators.PoolMeta, block uint64) (*operators.PoolEvent, error) {
	h, err := s.header(ctx, c, block, true)
	if err != nil {
		return nil, err
	}
	st, err := ReadPoolState(ctx, s.snap, a, m.TickSpacing, block)
	if err != nil {
		return nil, err
	}
	return &operators.PoolEvent{Meta: m, Kind: operators.PoolSnapshot, Block: block, TimeNs: int64(h.Time) * 1e9,
		SqrtPriceX96: st.SqrtPriceX96, Liquidity: st.Liquidity, Tick: st.Tick, Ticks: st.Ticks}, nil
}

// PoolState is a pool's state read from the chain at one block.
type PoolState struct {
	SqrtPriceX96, Liquidity *big.Int
	Tick                    int32
	// Ticks are every initialized tick, ascending, with its liquidityNet.
	Ticks []operators.TickNet
}

// ErrBadState is wrapped by the errors of ReadPoolState for answers that
// are not the state of a Uniswap v3 pool.
var ErrBadState = errors.New("bad pool state")

// ReadPoolState reads, at block, pool a's slot0, its in-range liquidity and
// every initialized tick (tickBitmap over every word that can hold a tick
// of the pool's spacing, then ticks(t) for each set bit) with eth_call in
// JSON-RPC batches.
func ReadPoolState(ctx context.Context, b batcher, a common.Address, spacing int32, block uint64) (PoolState, error) {
	if spacing <= 0 {
		return PoolState{}, fmt.Errorf("%w: tick spacing %d", ErrBadState, spacing)
	}
	var st PoolState
	res, err := calls(ctx, b, a, block, []packed{pack("slot0"), pack("liquidity")})
	if err != nil {
		return st, err
	}
	slot0, err := uniswap.PoolABI.Unpack("slot0", res[0])
	if err != nil || len(slot0) < 2 {
		return st, fmt.Errorf("%w: slot0: %v", ErrBadState, err)
	}
	liq, err := uniswap.PoolABI.Unpack("liquidity", res[1])
	if err != nil || len(liq) != 1 {
		return st, fmt.Errorf("%w: liquidity: %v", ErrBadState, err)
	}
	st.SqrtPriceX96, st.Liquidity = slot0[0].(*big.Int), liq[0].(*big.Int)
	st.Tick = int32(slot0[1].(*big.Int).Int64())
	if st.SqrtPriceX96.Sign() == 0 {
		return st, fmt.Errorf("%w: the pool is not initialized", ErrBadState)
	}
	lo, hi := uniswap.BitmapWords(spacing)
	var words []packed
	for w := lo; w <= hi; w++ {
		words = append(words, pack("tickBitmap", w))
	}
	res, err = calls(ctx, b, a, block, words)
	if err != nil {
		return st, err
	}
	var ticks []int32
	for i, r := range res {
		v, err := uniswap.PoolABI.Unpack("tickBitmap", r)
		if err != nil || len(v) != 1 {
			return st, fmt.Errorf("%w: tickBitmap(%d): %v", ErrBadState, int(lo)+i, err)
		}
		ticks = append(ticks, uniswap.BitmapTicks(lo+int16(i), v[0].(*big.Int), spacing)...)
	}
	reqs := make([]packed, len(ticks))
	for i, t := range ticks {
		reqs[i] = pack("ticks", big.NewInt(int64(t)))
	}
	if res, err = calls(ctx, b, a, block, reqs); err != nil {
		return st, err
	}
	st.Ticks = make([]operators.TickNet, 0, len(ticks))
	for i, r := range res {
		v, err := uniswap.PoolABI.Unpack("ticks", r)
		if err != nil || len(v) != 8 {
			return st, fmt.Errorf("%w: ticks(%d): %v", ErrBadState, ticks[i], err)
		}
		if init, _ := v[7].(bool); !init {
			return st, fmt.Errorf("%w: tick %d is set in the bitmap but not initialized", ErrBadState, ticks[i])
		}
		st.Ticks = append(st.Ticks, operators.TickNet{Tick: ticks[i], Net: v[1].(*big.Int)})
	}
	return st, nil
}

// packed is one method call's data.
type packed struct {
	method string
	data   []byte
}

func pack(method string, args ...any) packed {
	d, err := uniswap.PoolABI.Pack(method, args...)
	if err != nil {
		panic("BUG: cannot pack " + method + ": " + err.Error())
	}
	return packed{method, d}
}

// calls runs eth_call of every request against a at block, in batches of
// snapshotBatch, and returns the answers in order.
func calls(ctx context.Context, b batcher, a common.Address, block uint64, reqs []packed) ([][]byte, error) {
	out := make([][]byte, len(reqs))
	tag := hexutil.EncodeUint64(block)
	for start := 0; start < len(reqs); start += snapshotBatch {
		end := min(start+snapshotBatch, len(reqs))
		elems := make([]rpc.BatchElem, end-start)
		res := make([]hexutil.Bytes, end-start)
		for i, r := range reqs[start:end] {
			elems[i] = rpc.BatchElem{Method: "eth_call", Args: []any{map[string]any{"to": a, "input": hexutil.Bytes(r.data)}, tag}, Result: &res[i]}
		}
		if err := b.Batch(ctx, elems); err != nil {
			return nil, fmt.Errorf("cannot read pool %s at block %d: %w", strings.ToLower(a.Hex()), block, err)
		}
		for i := range elems {
			if elems[i].Error != nil {
				return nil, fmt.Errorf("cannot read %s of pool %s at block %d: %w", reqs[start+i].method, strings.ToLower(a.Hex()), block, elems[i].Error)
			}
			out[start+i] = res[i]
		}
	}
	return out, nil
}
