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
