package token

import (
	"context"
	"math/big"
	"slices"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/marketintel/mi/pipeline/sources/chain"
	"github.com/marketintel/mi/pipeline/sources/token/assess"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
)

// flowRead is one read of a token's pools and last hour, shared by the
// flow answer and the risk report.
type flowRead struct {
	info  tokenInfo
	head  chain.Header
	pools []*pool
	flow  *assess.Flow
	buys  []buyObs // most recent first
}

// buyObs is a recent buy: the pool sent Out raw tokens to Recipient in Tx.
type buyObs struct {
	Tx        common.Hash
	Pool      common.Address
	Recipient common.Address
	Trader    common.Address
	Out       *big.Int
	Block     uint64
}

// Flow returns the token's last-hour flow on chainName. Reads of one token
// within FlowTTL share one chain read (the first caller's); the answer is
// shared, so callers must not modify it. Errors: IsBadInput for an address
// that holds no token or an unknown chain; chain failures otherwise.
func (r *Reader) Flow(ctx context.Context, chainName string, token common.Address) (*assess.Flow, error) {
	fr, err := r.readFlow(ctx, chainName, token)
	if err != nil {
		return nil, err
	}
	return fr.flow, nil
}

func (r *Reader) readFlow(ctx context.Context, chainName string, token common.Address) (*flowRead, error) {
	return r.flows.Get(ctx, chainName+"|"+token.Hex(), func(ctx context.Context) (*flowRead, error) {
		return r.loadFlow(ctx, chainName, token)
	})
}

func (r *Reader) loadFlow(ctx context.Context, chainName string, token common.Address) (*flowRead, error) {
	s, err := r.open(ctx, chainName, token)
	if err != nil {
		return nil, err
	}
	ti, err := s.inspect(ctx)
	if err != nil {
		return nil, err
	}
	qs, err := s.quotes(ctx)
	if err != nil {
		return nil, err
	}
	pools, err := s.findPools(ctx, token, ti.Decimals, qs)
	if err != nil {
		return nil, err
	}
	end := time.Unix(int64(s.head.Time), 0).UTC()
	fr := &flowRead{info: ti, head: s.head, pools: pools}
	f := &assess.Flow{Token: token.Hex(), Chain: chainName, Symbol: ti.Symbol, WindowStart: end.Add(-Window), WindowEnd: end,
		ToBlock: s.head.Number, Timestamp: end, ReadAt: r.clk.Now().UTC(), Pools: []assess.Pool{}, Notes: []string{}}
	fr.flow = f
	for _, p := range pools {
		f.Pools = append(f.Pools, p.Pool)
	}
	if len(pools) == 0 {
		f.FromBlock = s.head.Number
		assess.Summarize(f, nil, nil)
		return fr, nil
	}
	from, _, err := s.c.BlockAt(ctx, end.Add(-Window))
	if err != nil {
		return nil, err
	}
	f.FromBlock = from
	if from > s.head.Number {
		assess.Summarize(f, nil, nil)
		return fr, nil
	}
	addrs := make([]common.Address, len(pools))
	byAddr := map[common.Address]*pool{}
	for i, p := range pools {
		addrs[i] = p.addr
		byAddr[p.addr] = p
	}
	logs, err := s.c.Logs(ctx, filterQuery(addrs, [][]common.Hash{{topicSwapV2, topicSyncV2, topicSwapV3}}, from, s.head.Number))
	if err != nil {
		return nil, err
	}
	slices.SortFunc(logs, func(a, b types.Log) int {
		if a.BlockNumber != b.BlockNumber {
			return int(int64(a.BlockNumber) - int64(b.BlockNumber))
		}
		return int(a.Index) - int(b.Index)
	})
	trades, buys := decodeTrades(logs, byAddr, ti.Decimals)
	if err := s.traders(ctx, trades, buys); err != nil {
		return nil, err
	}
	fr.buys = buys
	if len(trades) > r.maxTx {
		f.Notes = append(f.Notes, "traders named from the most recent transactions only")
	}
	assess.Summarize(f, trades, nil)
	return fr, nil
}

// decodeTrades turns the pools' Swap (and v2 Sync) logs, in chain order,
// into trades and buys (most recent first). A v2 swap's price is the one
// its pair's Sync, emitted just before it, leaves; a v3 swap's is its
// sqrtPriceX96. Malformed logs are skipped.
func decodeTrades(logs []types.Log, pools map[common.Address]*pool, tokDec uint8) ([]assess.Trade, []buyObs) {
	var trades []assess.Trade
	var buys []buyObs
	lastSync := map[common.Address][2]*big.Int{}
	for i := range logs {
		l := &logs[i]
		p := pools[l.Address]
		if p == nil || len(l.Topics) == 0 {
			continue
		}
		t := assess.Trade{Pool: p.Address, Block: l.BlockNumber, TxHash: l.TxHash.Hex(), LogIndex: l.Index}
		var tokDelta, qDelta *big.Int // pool deltas: positive into the pool
		var recipient common.Address
		switch l.Topics[0] {
		case topicSyncV2:
			if len(l.Data) != 64 {
				continue
			}
			lastSync[l.Address] = [2]*big.Int{new(big.Int).SetBytes(l.Data[:32]), new(big.Int).SetBytes(l.Data[32:])}
			continue
		case topicSwapV2:
			if p.kind != KindV2 || len(l.Data) != 128 || len(l.Topics) != 3 {
				continue
			}
			w := func(i int) *big.Int { return new(big.Int).SetBytes(l.Data[32*i : 32*i+32]) }
			d0 := new(big.Int).Sub(w(0), w(2)) // amount0In - amount0Out
			d1 := new(big.Int).Sub(w(1), w(3))
			tokDelta, qDelta = d1, d0
			if p.tokenIs0 {
				tokDelta, qDelta = d0, d1
			}
			recipient = common.BytesToAddress(l.Topics[2][12:])
			if r, ok := lastSync[l.Address]; ok {
				rt, rq := r[1], r[0]
				if p.tokenIs0 {
					rt, rq = r[0], r[1]
				}
				if tu := units(rt, tokDec); tu > 0 {
					t.PriceUSD = units(rq, p.quote.Decimals) / tu * p.quote.USD
				}
			}
		case topicSwapV3:
			if p.kind != KindV3 {
				continue
			}
			sw, err := uniswap.DecodeSwap(l)
			if err != nil {
				continue
			}
			tokDelta, qDelta = sw.Amount1, sw.Amount0
			if p.tokenIs0 {
				tokDelta, qDelta = sw.Amount0, sw.Amount1
			}
			recipient = sw.Recipient
			t.PriceUSD = v3Price(sw.SqrtPriceX96, p.tokenIs0, tokDec, p.quote.Decimals) * p.quote.USD
		default:
			continue
		}
		if tokDelta.Sign() == 0 {
			continue
		}
		t.Buy = tokDelta.Sign() < 0
		t.Tokens = units(new(big.Int).Abs(tokDelta), tokDec)
		t.USD = units(new(big.Int).Abs(qDelta), p.quote.Decimals) * p.quote.USD
		t.Trader = recipient.Hex() // replaced by the transaction's sender when read
		trades = append(trades, t)
		if t.Buy {
			buys = append(buys, buyObs{Tx: l.TxHash, Pool: l.Address, Recipient: recipient, Out: new(big.Int).Neg(tokDelta), Block: l.BlockNumber})
		}
	}
	slices.Reverse(buys)
	return trades, buys
}

// traders names each trade's trader by its transaction's sender, reading
// the most recent maxTx transactions in batches; older trades keep the
// swap's recipient.
func (s *session) traders(ctx context.Context, trades []assess.Trade, buys []buyObs) error {
	var hashes []common.Hash
	seen := map[string]bool{}
	for i := len(trades) - 1; i >= 0 && len(hashes) < s.r.maxTx; i-- {
		h := trades[i].TxHash
		if !seen[h] {
			seen[h] = true
			hashes = append(hashes, common.HexToHash(h))
		}
	}
	from := map[common.Hash]common.Address{}
	for len(hashes) > 0 {
		k := min(len(hashes), 100)
		type txFrom struct {
			From common.Address `json:"from"`
		}
		res := make([]*txFrom, k)
		elems := make([]rpc.BatchElem, k)
		for i, h := range hashes[:k] {
			elems[i] = rpc.BatchElem{Method: "eth_getTransactionByHash", Args: []any{h}, Result: &res[i]}
		}
		if err := s.c.Batch(ctx, elems); err != nil {
			return err
		}
		for i, h := range hashes[:k] {
			if elems[i].Error == nil && res[i] != nil {
				from[h] = res[i].From
			}
		}
		hashes = hashes[k:]
	}
	for i := range trades {
		if a, ok := from[common.HexToHash(trades[i].TxHash)]; ok {
			trades[i].Trader = a.Hex()
		}
	}
	for i := range buys {
		buys[i].Trader = from[buys[i].Tx]
	}
	return nil
}
