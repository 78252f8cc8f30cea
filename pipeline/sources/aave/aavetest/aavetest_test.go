package aavetest

import (
	"bytes"
	"context"
	"encoding/json"
	"math/big"
	"os"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/marketintel/mi/internal/fixtures"
	"github.com/marketintel/mi/pipeline/sources/aave"
	"github.com/marketintel/mi/pipeline/sources/chain/chaintest"
)

// The recorded Polygon WETH reserve: getReserveData's answer of
// aave_v3_polygon_Pool_getReserveData_WETH_eth_call_response_2023-02-12.json.
func recorded(t *testing.T) ([]byte, aave.ReserveData) {
	t.Helper()
	b, err := os.ReadFile(fixtures.Path(t, "defi/aave_v3_polygon_Pool_getReserveData_WETH_eth_call_response_2023-02-12.json"))
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Result hexutil.Bytes `json:"result"`
	}
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatal(err)
	}
	d, err := aave.DecodeReserveData(resp.Result)
	if err != nil {
		t.Fatal(err)
	}
	return resp.Result, d
}

// GenesisAccount's storage is what setReserveData writes on a deployed
// pool, and a chain whose genesis holds the account at the real Pool's
// address answers getReserveData byte for byte as the real Pool did, at
// the genesis time given.
func TestGenesisAccount(t *testing.T) {
	raw, d := recorded(t)
	weth := common.HexToAddress("0x7ceb23fd6bc0add59e62ac25578270cff1b9f619")
	acc, err := GenesisAccount(weth, d)
	if err != nil {
		t.Fatal(err)
	}

	c := chaintest.New(t)
	art, err := chaintest.LoadArtifact("TestAavePool", ABIJSON, BinHex)
	if err != nil {
		t.Fatal(err)
	}
	pool := c.Deploy(t, c.Accounts[0], art)
	c.Transact(t, c.Accounts[0], &pool, SetReserveData(weth, d))
	ctx := context.Background()
	cl := c.Backend.Client()
	if len(acc.Storage) < 8 {
		t.Fatalf("%d storage slots", len(acc.Storage))
	}
	for slot, want := range acc.Storage {
		got, err := cl.StorageAt(ctx, pool, slot, nil)
		if err != nil {
			t.Fatal(err)
		}
		if common.BytesToHash(got) != want {
			t.Fatalf("slot %s: deployed %x, genesis %s", slot, got, want)
		}
	}
	// Beyond the ten slots of the struct, nothing.
	base := new(big.Int).SetBytes(firstSlot(acc).Bytes())
	if got, _ := cl.StorageAt(ctx, pool, common.BigToHash(new(big.Int).Add(base, big.NewInt(10))), nil); new(big.Int).SetBytes(got).Sign() != 0 {
		t.Fatalf("slot 10 of the struct holds %x", got)
	}

	at := time.Unix(int64(d.LastUpdateTimestamp), 0)
	real := aave.Reserves[4].Pool // polygon
	g, err := chaintest.Start(chaintest.StartOptions{Alloc: types.GenesisAlloc{real: acc}, GenesisTime: at})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	gc := g.Backend.Client()
	head, err := gc.HeaderByNumber(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if head.Number.Sign() != 0 || head.Time != uint64(at.Unix()) {
		t.Fatalf("head %d at %d, want block 0 at %d", head.Number, head.Time, at.Unix())
	}
	out, err := gc.CallContract(ctx, ethereum.CallMsg{To: &real, Data: aave.EncodeGetReserveData(weth)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, raw) {
		t.Fatalf("getReserveData answers\n%x\nrecorded\n%x", out, raw)
	}
}

// firstSlot is the struct's first slot: the lowest key of the storage.
func firstSlot(acc types.Account) common.Hash {
	var low *big.Int
	for k := range acc.Storage {
		if v := new(big.Int).SetBytes(k.Bytes()); low == nil || v.Cmp(low) < 0 {
			low = v
		}
	}
	return common.BigToHash(low)
}
