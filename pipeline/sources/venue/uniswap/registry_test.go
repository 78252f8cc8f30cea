package uniswap

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

func TestTokenSymbol(t *testing.T) {
	f := func(chain, addr, ticker, want string) {
		t.Helper()
		if got := TokenSymbol(chain, addr, ticker); got != want {
			t.Fatalf("TokenSymbol(%s, %s, %q) = %q, want %q", chain, addr, ticker, got, want)
		}
	}
	fresh := "0x1111111111111111111111111111111111111111"
	f("polygon", fresh, "USDC.e", "USD")
	f("base", fresh, "USDbC", "USD")
	f("polygon", fresh, "usdc", "USD")
	f("polygon", fresh, "USDT", "USD")
	f("polygon", fresh, "DAI", "USD")
	f("polygon", fresh, "WETH", "ETHUSD")
	f("polygon", fresh, "PTT", "PTTUSD")
	f("polygon", fresh, "", "")
	f("polygon", fresh, "a/b/c", "")
	// The registry wins over the ticker: Ethereum's USDC.
	f("ethereum", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "ANYTHING", "USD")
}

// fakeChain answers the registry's eth_calls from a table of contracts.
type fakeChain struct {
	calls  int
	tokens map[common.Address][2]any // decimals, symbol
	pool   [4]any                    // token0, token1, fee, tickSpacing
	fail   bool
}

func (c *fakeChain) call(_ context.Context, to common.Address, data []byte) ([]byte, error) {
	c.calls++
	if c.fail {
		return nil, errors.New("connection refused")
	}
	pack := func(a abi.ABI, m string, v any) ([]byte, error) { return a.Methods[m].Outputs.Pack(v) }
	if tok, ok := c.tokens[to]; ok {
		switch {
		case string(data) == string(ERC20ABI.Methods["decimals"].ID):
			return pack(ERC20ABI, "decimals", tok[0])
		case string(data) == string(ERC20ABI.Methods["symbol"].ID):
			return pack(ERC20ABI, "symbol", tok[1])
		}
	}
	for i, m := range []string{"token0", "token1", "fee", "tickSpacing"} {
		if string(data) == string(PoolABI.Methods[m].ID) {
			return pack(PoolABI, m, c.pool[i])
		}
	}
	return nil, errors.New("execution reverted")
}

func TestRegistry(t *testing.T) {
	t0, t1 := common.HexToAddress("0x01"), common.HexToAddress("0x02")
	c := &fakeChain{tokens: map[common.Address][2]any{t0: {uint8(18), "PTT"}, t1: {uint8(6), "USDC.e"}},
		pool: [4]any{t0, t1, big.NewInt(500), big.NewInt(10)}}
	r := NewRegistry("polygon", c.call)
	m, err := r.Pool(context.Background(), "0x00000000000000000000000000000000000000AA")
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "PTT/USDC.e 0.05%" || m.Decimals0 != 18 || m.Decimals1 != 6 || m.Symbol0 != "PTTUSD" || m.Symbol1 != "USD" ||
		m.Fee != 500 || m.TickSpacing != 10 || m.Chain != "polygon" || m.Address != "0x00000000000000000000000000000000000000aa" || !m.Resolved {
		t.Fatalf("meta %+v", m)
	}
	if b0, ok := m.BaseIsToken0(); !b0 || !ok {
		t.Fatal("PTT is not the base")
	}
	n := c.calls
	if again, _ := r.Pool(context.Background(), "0x00000000000000000000000000000000000000aa"); again != m || c.calls != n {
		t.Fatalf("second lookup read the chain again (%d calls, was %d)", c.calls, n)
	}
	// A failure is kept: the pool is not read again, the error names it.
	bad := &fakeChain{fail: true}
	r = NewRegistry("polygon", bad.call)
	for range 3 {
		if _, err := r.Pool(context.Background(), "0x00000000000000000000000000000000000000bb"); err == nil || !strings.Contains(err.Error(), "cannot resolve pool 0x00000000000000000000000000000000000000bb on polygon") {
			t.Fatalf("failing chain: %v", err)
		}
	}
	if bad.calls != 1 {
		t.Fatalf("%d calls for a failing pool, want 1", bad.calls)
	}
	if _, err := r.Pool(context.Background(), "0xnope"); err == nil {
		t.Fatal("a malformed address resolved")
	}
}

// FuzzRegistry feeds the registry arbitrary eth_call answers: it returns a
// pool description or an error, never panics.
func FuzzRegistry(f *testing.F) {
	word := func(b byte) []byte { w := make([]byte, 32); w[31] = b; return w }
	sym, _ := ERC20ABI.Methods["symbol"].Outputs.Pack("USDC.e")
	f.Add(word(1), word(2), word(6), sym)
	f.Add([]byte{}, []byte{0xff}, word(0xff), []byte("not abi"))
	f.Fuzz(func(t *testing.T, addrAns, feeAns, decAns, symAns []byte) {
		r := NewRegistry("polygon", func(_ context.Context, _ common.Address, data []byte) ([]byte, error) {
			switch string(data[:4]) {
			case string(PoolABI.Methods["token0"].ID), string(PoolABI.Methods["token1"].ID):
				return addrAns, nil
			case string(PoolABI.Methods["fee"].ID), string(PoolABI.Methods["tickSpacing"].ID):
				return feeAns, nil
			case string(ERC20ABI.Methods["decimals"].ID):
				return decAns, nil
			}
			return symAns, nil
		})
		m, err := r.Pool(context.Background(), "0x00000000000000000000000000000000000000aa")
		if (m == nil) == (err == nil) {
			t.Fatalf("meta %v and error %v", m, err)
		}
	})
}
