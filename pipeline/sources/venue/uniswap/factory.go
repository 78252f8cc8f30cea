package uniswap

import (
	"bytes"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// TopicPoolCreated is the signature (topic0) of the Uniswap v3 factory's
// PoolCreated(address indexed token0, address indexed token1, uint24
// indexed fee, int24 tickSpacing, address pool) event.
var TopicPoolCreated = common.HexToHash("0x783cca1c0412dd0d695e784568c96da2e9c22ff989357a2e8b1d9b2b4e6b7118")

// FactoryABI is the subset of the Uniswap v3 factory's ABI the connectors
// use: getPool and the PoolCreated event.
var FactoryABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(`[
{"type":"function","name":"getPool","stateMutability":"view","inputs":[{"name":"tokenA","type":"address"},{"name":"tokenB","type":"address"},{"name":"fee","type":"uint24"}],"outputs":[{"name":"pool","type":"address"}]},
{"anonymous":false,"type":"event","name":"PoolCreated","inputs":[
 {"indexed":true,"name":"token0","type":"address"},
 {"indexed":true,"name":"token1","type":"address"},
 {"indexed":true,"name":"fee","type":"uint24"},
 {"indexed":false,"name":"tickSpacing","type":"int24"},
 {"indexed":false,"name":"pool","type":"address"}]}]`))
	if err != nil {
		panic("BUG: cannot parse the factory ABI: " + err.Error())
	}
	if a.Events["PoolCreated"].ID != TopicPoolCreated {
		panic("BUG: PoolCreated topic mismatch")
	}
	return a
}()

// PoolCreated is a decoded PoolCreated log of a factory.
type PoolCreated struct {
	Token0, Token1 common.Address
	Fee            uint32
	TickSpacing    int32
	Pool           common.Address
}

// DecodePoolCreated decodes a factory's PoolCreated log. A log that is not
// one wraps ErrMalformed.
func DecodePoolCreated(l *types.Log) (PoolCreated, error) {
	var p PoolCreated
	if len(l.Topics) != 4 || l.Topics[0] != TopicPoolCreated {
		return p, fmt.Errorf("cannot decode PoolCreated: topics are not PoolCreated's: %w", ErrMalformed)
	}
	fee := new(big.Int).SetBytes(l.Topics[3][:])
	if fee.BitLen() > 24 || [12]byte(l.Topics[1][:12]) != [12]byte{} || [12]byte(l.Topics[2][:12]) != [12]byte{} {
		return p, fmt.Errorf("cannot decode PoolCreated: indexed fields out of range: %w", ErrMalformed)
	}
	var body struct {
		TickSpacing *big.Int
		Pool        common.Address
	}
	if err := FactoryABI.UnpackIntoInterface(&body, "PoolCreated", l.Data); err != nil {
		return p, fmt.Errorf("cannot decode PoolCreated: %v: %w", err, ErrMalformed)
	}
	if !body.TickSpacing.IsInt64() || body.TickSpacing.Int64() <= 0 || body.TickSpacing.Int64() >= 1<<23 {
		return p, fmt.Errorf("cannot decode PoolCreated: tickSpacing %s out of range: %w", body.TickSpacing, ErrMalformed)
	}
	// A factory's log is ABI-encoded exactly: words with stray high bytes
	// (which the ABI decoder ignores) are not one.
	back, err := FactoryABI.Events["PoolCreated"].Inputs.NonIndexed().Pack(body.TickSpacing, body.Pool)
	if err != nil || !bytes.Equal(back, l.Data) {
		return p, fmt.Errorf("cannot decode PoolCreated: data is not the canonical encoding of (int24, address): %w", ErrMalformed)
	}
	p.Token0, p.Token1 = common.BytesToAddress(l.Topics[1][12:]), common.BytesToAddress(l.Topics[2][12:])
	p.Fee, p.TickSpacing, p.Pool = uint32(fee.Uint64()), int32(body.TickSpacing.Int64()), body.Pool
	return p, nil
}
