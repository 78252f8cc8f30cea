package token

import (
	"context"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/marketintel/mi/pipeline/sources/chain"
)

// balanceSlot is where a token keeps balanceOf[holder]: the mapping's
// slot index, laid out as Solidity (keccak(holder . index)) or Vyper
// (keccak(index . holder)) does. Found is false for tokens whose balance
// is computed (rebasing, reflection) or kept elsewhere.
type balanceSlot struct {
	Index uint64
	Vyper bool
	Found bool
}

// maxSlotIndex bounds the mapping slots tried.
const maxSlotIndex = 32

// slotProbe is the value written by the discovery's overrides.
var slotProbe = new(big.Int).SetBytes(common.FromHex("0x5107d15c0fe4ed00000000000000000000000000000000000000000000abcdef"))

// key returns the storage key of holder's balance.
func (b balanceSlot) key(holder common.Address) common.Hash {
	h := common.LeftPadBytes(holder.Bytes(), 32)
	i := common.LeftPadBytes(new(big.Int).SetUint64(b.Index).Bytes(), 32)
	if b.Vyper {
		return crypto.Keccak256Hash(i, h)
	}
	return crypto.Keccak256Hash(h, i)
}

// balanceSlot discovers token's balance mapping: one batch of eth_calls of
// balanceOf(probe holder), each with a state override writing slotProbe at
// one candidate key (indexes 0–31, Solidity and Vyper layouts); the
// candidate whose call returns slotProbe is the mapping. The answer is
// cached per chain and token for a day.
func (s *session) balanceSlot(ctx context.Context, tok common.Address) (balanceSlot, error) {
	return s.r.slots.Get(ctx, s.c.Name()+"|"+tok.Hex(), func(ctx context.Context) (balanceSlot, error) {
		holder := common.HexToAddress("0x000000000000000000000000000000000051070c")
		var cands []balanceSlot
		for i := range uint64(maxSlotIndex) {
			cands = append(cands, balanceSlot{Index: i, Found: true}, balanceSlot{Index: i, Vyper: true, Found: true})
		}
		outs := make([]hexutil.Bytes, len(cands))
		elems := make([]rpc.BatchElem, len(cands))
		data := hexutil.Bytes(pack("balanceOf", holder))
		for i, c := range cands {
			ov := map[common.Address]ethereum.OverrideAccount{tok: {StateDiff: map[common.Hash]common.Hash{c.key(holder): common.BigToHash(slotProbe)}}}
			elems[i] = rpc.BatchElem{Method: "eth_call", Args: []any{map[string]any{"to": tok, "data": data}, s.block, ov}, Result: &outs[i]}
		}
		if err := s.c.Batch(ctx, elems); err != nil {
			return balanceSlot{}, err
		}
		for i, c := range cands {
			if elems[i].Error == nil && len(outs[i]) == 32 && new(big.Int).SetBytes(outs[i]).Cmp(slotProbe) == 0 {
				return c, nil
			}
		}
		return balanceSlot{}, nil
	})
}

// simResult is TokenSim.Result.
type simResult struct {
	BuyOk        bool
	BuyError     []byte
	BuyExpected  *big.Int
	BuyReceived  *big.Int
	BuyGas       *big.Int
	SellOk       bool
	SellError    []byte
	SellAmount   *big.Int
	SellExpected *big.Int
	SellReceived *big.Int
	SellArrived  *big.Int
	SellGas      *big.Int
}

// simulate runs TokenSim.simulateV2 at buyer's address: its code replaced
// by TokenSim's, its quote balance set to quoteIn (when quoteSlot is
// found) or its token balance to tokenSell (sell only).
func (s *session) simulate(ctx context.Context, p *pool, buyer common.Address, quoteIn *big.Int, quoteSlot balanceSlot, tokenSell *big.Int, tokenSlot balanceSlot) (simResult, error) {
	ov := map[common.Address]ethereum.OverrideAccount{buyer: {Code: simCode}}
	if quoteIn.Sign() > 0 {
		ov[p.quote.Address] = ethereum.OverrideAccount{StateDiff: map[common.Hash]common.Hash{quoteSlot.key(buyer): common.BigToHash(quoteIn)}}
	}
	if tokenSell.Sign() > 0 {
		ov[s.token] = ethereum.OverrideAccount{StateDiff: map[common.Hash]common.Hash{tokenSlot.key(buyer): common.BigToHash(tokenSell)}}
	}
	data, err := simABI.Pack("simulateV2", p.addr, s.token, p.quote.Address, quoteIn, tokenSell)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	out, err := s.c.Call(ctx, ethereum.CallMsg{From: buyer, To: &buyer, Data: data, Gas: 30_000_000}, s.at(), ov)
	if err != nil {
		return simResult{}, err
	}
	vals, err := simABI.Unpack("simulateV2", out)
	if err != nil || len(vals) != 1 {
		return simResult{}, fmt.Errorf("cannot decode the simulation's answer: %v", err)
	}
	var r simResult
	if err := simABI.Methods["simulateV2"].Outputs.Copy(&r, vals); err != nil {
		// Copy wants a struct field per output; the one output is a tuple.
		if err2 := copyTuple(&r, vals[0]); err2 != nil {
			return simResult{}, fmt.Errorf("cannot decode the simulation's answer: %w", err2)
		}
	}
	return r, nil
}

// copyTuple copies the anonymous struct go-ethereum unpacks a tuple into.
func copyTuple(dst *simResult, v any) error {
	b, ok := v.(struct {
		BuyOk        bool     `json:"buyOk"`
		BuyError     []byte   `json:"buyError"`
		BuyExpected  *big.Int `json:"buyExpected"`
		BuyReceived  *big.Int `json:"buyReceived"`
		BuyGas       *big.Int `json:"buyGas"`
		SellOk       bool     `json:"sellOk"`
		SellError    []byte   `json:"sellError"`
		SellAmount   *big.Int `json:"sellAmount"`
		SellExpected *big.Int `json:"sellExpected"`
		SellReceived *big.Int `json:"sellReceived"`
		SellArrived  *big.Int `json:"sellArrived"`
		SellGas      *big.Int `json:"sellGas"`
	})
	if !ok {
		return fmt.Errorf("unexpected tuple type %T", v)
	}
	*dst = simResult(b)
	return nil
}

// revertText is a simulation step's revert reason.
func revertText(data []byte) string {
	return chain.DecodeRevert(data).Error()
}

// tax is 1 - got/want, clamped to [0, 1] (a token paying more than asked
// shows 0).
func tax(got, want *big.Int) float64 {
	if want == nil || want.Sign() <= 0 {
		return 0
	}
	r, _ := new(big.Rat).SetFrac(got, want).Float64()
	return min(max(1-r, 0), 1)
}
