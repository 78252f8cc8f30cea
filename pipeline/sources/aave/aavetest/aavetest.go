// Package aavetest deploys TestAavePool (TestAavePool.sol beside this
// file, compiled as TestAavePool.md says): a contract with the real Aave
// v3 Pool's getReserveData(address) and return struct, whose reserves its
// owner sets. The rates tests and the offline demo read it as they read a
// real Pool.
package aavetest

import (
	_ "embed"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/core/vm/runtime"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/marketintel/mi/pipeline/sources/aave"
)

// ABIJSON is TestAavePool's ABI (solc --abi).
//
//go:embed TestAavePool.abi
var ABIJSON string

// BinHex is TestAavePool's creation code in hex (solc --bin).
//
//go:embed TestAavePool.bin
var BinHex string

// ABI is TestAavePool's ABI.
var ABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(ABIJSON))
	if err != nil {
		panic("BUG: TestAavePool.abi: " + err.Error())
	}
	return a
}()

// Bin is TestAavePool's creation code.
var Bin = func() []byte {
	b, err := hex.DecodeString(strings.TrimSpace(BinHex))
	if err != nil {
		panic("BUG: TestAavePool.bin: " + err.Error())
	}
	return b
}()

// reserveStruct mirrors ReserveDataLegacy for abi.Pack.
type reserveStruct struct {
	Configuration               struct{ Data *big.Int }
	LiquidityIndex              *big.Int
	CurrentLiquidityRate        *big.Int
	VariableBorrowIndex         *big.Int
	CurrentVariableBorrowRate   *big.Int
	CurrentStableBorrowRate     *big.Int
	LastUpdateTimestamp         *big.Int
	Id                          uint16
	ATokenAddress               common.Address
	StableDebtTokenAddress      common.Address
	VariableDebtTokenAddress    common.Address
	InterestRateStrategyAddress common.Address
	AccruedToTreasury           *big.Int
	Unbacked                    *big.Int
	IsolationModeTotalDebt      *big.Int
}

// SetReserveData returns the calldata that sets asset's reserve to d.
func SetReserveData(asset common.Address, d aave.ReserveData) []byte {
	s := reserveStruct{
		LiquidityIndex: d.LiquidityIndex, CurrentLiquidityRate: d.CurrentLiquidityRate, VariableBorrowIndex: d.VariableBorrowIndex,
		CurrentVariableBorrowRate: d.CurrentVariableBorrowRate, CurrentStableBorrowRate: d.CurrentStableBorrowRate,
		LastUpdateTimestamp: new(big.Int).SetUint64(d.LastUpdateTimestamp), Id: d.ID,
		ATokenAddress: d.ATokenAddress, StableDebtTokenAddress: d.StableDebtTokenAddress, VariableDebtTokenAddress: d.VariableDebtTokenAddress,
		InterestRateStrategyAddress: d.InterestRateStrategyAddress, AccruedToTreasury: d.AccruedToTreasury, Unbacked: d.Unbacked,
		IsolationModeTotalDebt: d.IsolationModeTotalDebt,
	}
	s.Configuration.Data = d.Configuration
	b, err := ABI.Pack("setReserveData", asset, s)
	if err != nil {
		panic(fmt.Sprintf("BUG: cannot pack setReserveData: %v", err))
	}
	return b
}

// reservesSlot is the storage slot of TestAavePool's reserves mapping
// (owner is immutable: it lives in the code, not in storage).
const reservesSlot = 0

// GenesisAccount returns TestAavePool as a genesis account holding d as
// asset's reserve: its runtime code (the creation code run once in an
// in-memory EVM, owner the zero address, so no one can change it) and the
// storage setReserveData would have written. The offline demo places it at
// the real Pool's address on a simulated chain (chaintest.StartOptions.Alloc),
// so the live client reads the recorded reserve from the address it reads
// on the real chain. TestGenesisAccount checks the storage against a
// deployed pool's.
func GenesisAccount(asset common.Address, d aave.ReserveData) (types.Account, error) {
	code, _, _, err := runtime.Create(Bin, &runtime.Config{GasLimit: 30_000_000})
	if err != nil {
		return types.Account{}, fmt.Errorf("cannot run TestAavePool's creation code: %w", err)
	}
	base := new(big.Int).SetBytes(crypto.Keccak256(common.LeftPadBytes(asset.Bytes(), 32), common.LeftPadBytes(big.NewInt(reservesSlot).Bytes(), 32)))
	pack := func(lo *big.Int, hi ...struct {
		v     *big.Int
		shift uint
	}) *big.Int {
		w := new(big.Int).Set(orZero(lo))
		for _, h := range hi {
			w.Or(w, new(big.Int).Lsh(orZero(h.v), h.shift))
		}
		return w
	}
	type part = struct {
		v     *big.Int
		shift uint
	}
	addr := func(a common.Address) *big.Int { return new(big.Int).SetBytes(a.Bytes()) }
	// ReserveDataLegacy's fields packed into slots as solc lays them out:
	// each uint128 pair shares a slot, lastUpdateTimestamp (uint40) and id
	// (uint16) follow currentStableBorrowRate in its slot.
	words := []*big.Int{
		orZero(d.Configuration),
		pack(d.LiquidityIndex, part{d.CurrentLiquidityRate, 128}),
		pack(d.VariableBorrowIndex, part{d.CurrentVariableBorrowRate, 128}),
		pack(d.CurrentStableBorrowRate, part{new(big.Int).SetUint64(d.LastUpdateTimestamp), 128}, part{big.NewInt(int64(d.ID)), 168}),
		addr(d.ATokenAddress),
		addr(d.StableDebtTokenAddress),
		addr(d.VariableDebtTokenAddress),
		addr(d.InterestRateStrategyAddress),
		pack(d.AccruedToTreasury, part{d.Unbacked, 128}),
		orZero(d.IsolationModeTotalDebt),
	}
	storage := map[common.Hash]common.Hash{}
	for i, w := range words {
		if w.Sign() != 0 {
			storage[common.BigToHash(new(big.Int).Add(base, big.NewInt(int64(i))))] = common.BigToHash(w)
		}
	}
	return types.Account{Code: code, Storage: storage, Balance: new(big.Int)}, nil
}

func orZero(v *big.Int) *big.Int {
	if v == nil {
		return new(big.Int)
	}
	return v
}
