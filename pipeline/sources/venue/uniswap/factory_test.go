package uniswap

import (
	"errors"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// poolCreatedLog is the PoolCreated log of Ethereum's USDC/WETH 0.05% pool
// (the factory's event as Etherscan shows it: token0 USDC, token1 WETH,
// fee 500, tickSpacing 10, pool 0x88e6…5640).
func poolCreatedLog(t testing.TB) *types.Log {
	data, err := FactoryABI.Events["PoolCreated"].Inputs.NonIndexed().Pack(big.NewInt(10), common.HexToAddress("0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640"))
	if err != nil {
		t.Fatal(err)
	}
	return &types.Log{Address: common.HexToAddress("0x1F98431c8aD98523631AE4a59f267346ea31F984"), Topics: []common.Hash{TopicPoolCreated,
		common.BytesToHash(common.HexToAddress("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48").Bytes()),
		common.BytesToHash(common.HexToAddress("0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2").Bytes()),
		common.BigToHash(big.NewInt(500))}, Data: data}
}

func TestDecodePoolCreated(t *testing.T) {
	p, err := DecodePoolCreated(poolCreatedLog(t))
	if err != nil {
		t.Fatal(err)
	}
	want := PoolCreated{Token0: common.HexToAddress("0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"), Token1: common.HexToAddress("0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2"),
		Fee: 500, TickSpacing: 10, Pool: common.HexToAddress("0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640")}
	if p != want {
		t.Fatalf("decoded %+v, want %+v", p, want)
	}
	f := func(name string, mutate func(l *types.Log)) {
		t.Helper()
		l := poolCreatedLog(t)
		mutate(l)
		if _, err := DecodePoolCreated(l); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: error %v, want ErrMalformed", name, err)
		}
	}
	f("swap topic", func(l *types.Log) { l.Topics[0] = TopicSwap })
	f("three topics", func(l *types.Log) { l.Topics = l.Topics[:3] })
	f("fee over 24 bits", func(l *types.Log) { l.Topics[3] = common.BigToHash(big.NewInt(1 << 24)) })
	f("dirty address word", func(l *types.Log) { l.Topics[1][0] = 1 })
	f("short data", func(l *types.Log) { l.Data = l.Data[:40] })
	f("zero tick spacing", func(l *types.Log) { l.Data[31] = 0 })
	f("stray bytes above the pool address", func(l *types.Log) { l.Data[32] = 1 })
	f("trailing data", func(l *types.Log) { l.Data = append(l.Data, 0) })
}

// FuzzDecodePoolCreated: any log decodes to an error or to values that
// encode back to the same log.
func FuzzDecodePoolCreated(f *testing.F) {
	l := poolCreatedLog(f)
	f.Add(l.Topics[1][:], l.Topics[2][:], l.Topics[3][:], l.Data)
	f.Add([]byte{}, []byte{1}, make([]byte, 32), make([]byte, 64))
	f.Fuzz(func(t *testing.T, t1, t2, t3, data []byte) {
		l := &types.Log{Topics: []common.Hash{TopicPoolCreated, common.BytesToHash(t1), common.BytesToHash(t2), common.BytesToHash(t3)}, Data: data}
		p, err := DecodePoolCreated(l)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		back, err := FactoryABI.Events["PoolCreated"].Inputs.NonIndexed().Pack(big.NewInt(int64(p.TickSpacing)), p.Pool)
		if err != nil {
			t.Fatal(err)
		}
		if common.BytesToAddress(l.Topics[1][12:]) != p.Token0 || uint64(p.Fee) != new(big.Int).SetBytes(l.Topics[3][:]).Uint64() || string(back) != string(data) {
			t.Fatalf("%+v does not encode back to %x", p, data)
		}
	})
}
