// Package aave reads Aave v3 reserves on chain: the Pool's
// getReserveData(address) for USDC on five chains (Chains), decoded per the
// Pool's ABI into the rates of a schemas.LendingRate. The rates are in ray
// (1e27 = 100 % APR); operators/rates turns them into APR and APY.
//
// The ABI. Every Aave v3 Pool (v3.0 to v3.4) answers getReserveData(address)
// (selector 0x35ea6a75) with the same 15-word struct: in v3.0 it is the
// Pool's storage struct DataTypes.ReserveData; from v3.1 the storage struct
// changed (virtualUnderlyingBalance, the stable-rate slots reused for the
// deficit, liquidationGracePeriodUntil) and getReserveData returns
// DataTypes.ReserveDataLegacy, which keeps v3.0's layout. The fields this
// service uses — configuration, liquidityIndex, currentLiquidityRate,
// variableBorrowIndex, currentVariableBorrowRate, lastUpdateTimestamp —
// mean the same in every version. currentStableBorrowRate and
// stableDebtTokenAddress are deprecated since v3.2, unbacked since v3.4
// (the Pool returns zero or a legacy value); they are decoded and not used.
// The new layout is only returned by getReserveDataExtended (v3.1+), which
// this package does not call.
package aave

import (
	"errors"
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// GetReserveDataSelector is the 4-byte selector of getReserveData(address).
var GetReserveDataSelector = [4]byte{0x35, 0xea, 0x6a, 0x75}

// EncodeGetReserveData returns the calldata of getReserveData(asset).
func EncodeGetReserveData(asset common.Address) []byte {
	b := make([]byte, 4+32)
	copy(b, GetReserveDataSelector[:])
	copy(b[4+12:], asset[:])
	return b
}

// ReserveData is the struct getReserveData returns (ReserveDataLegacy in
// v3.1+, ReserveData in v3.0), word by word.
type ReserveData struct {
	Configuration               *big.Int // ReserveConfigurationMap, uint256 bit map (see Configuration)
	LiquidityIndex              *big.Int // uint128, ray
	CurrentLiquidityRate        *big.Int // uint128, ray: the supply APR
	VariableBorrowIndex         *big.Int // uint128, ray
	CurrentVariableBorrowRate   *big.Int // uint128, ray: the variable borrow APR
	CurrentStableBorrowRate     *big.Int // uint128, ray; deprecated since v3.2
	LastUpdateTimestamp         uint64   // uint40, Unix seconds
	ID                          uint16   // uint16
	ATokenAddress               common.Address
	StableDebtTokenAddress      common.Address // deprecated since v3.2
	VariableDebtTokenAddress    common.Address
	InterestRateStrategyAddress common.Address
	AccruedToTreasury           *big.Int // uint128, scaled
	Unbacked                    *big.Int // uint128; deprecated since v3.4
	IsolationModeTotalDebt      *big.Int // uint128
}

// ReserveDataWords is the length of getReserveData's return data in words.
const ReserveDataWords = 15

// ErrMalformed is wrapped by DecodeReserveData's errors: return data that
// is not the ABI encoding of the struct ("malformed return data: ...").
var ErrMalformed = errors.New("malformed return data")

// DecodeReserveData decodes getReserveData's return data strictly: exactly
// 15 words, each within its type's width (a uint128 with a bit above 128,
// an address with bytes above 20, ... is an error, as Solidity's decoder
// would revert).
func DecodeReserveData(ret []byte) (ReserveData, error) {
	if len(ret) != ReserveDataWords*32 {
		return ReserveData{}, fmt.Errorf("%w: %d bytes, want %d", ErrMalformed, len(ret), ReserveDataWords*32)
	}
	word := func(i int) []byte { return ret[i*32 : (i+1)*32] }
	fits := func(i, bits int) error {
		w := word(i)
		for _, b := range w[:32-bits/8] {
			if b != 0 {
				return fmt.Errorf("%w: word %d does not fit %d bits", ErrMalformed, i, bits)
			}
		}
		return nil
	}
	widths := [ReserveDataWords]int{256, 128, 128, 128, 128, 128, 40, 16, 160, 160, 160, 160, 128, 128, 128}
	for i, w := range widths {
		if err := fits(i, w); err != nil {
			return ReserveData{}, err
		}
	}
	u := func(i int) *big.Int { return new(big.Int).SetBytes(word(i)) }
	addr := func(i int) common.Address { return common.BytesToAddress(word(i)[12:]) }
	return ReserveData{
		Configuration:               u(0),
		LiquidityIndex:              u(1),
		CurrentLiquidityRate:        u(2),
		VariableBorrowIndex:         u(3),
		CurrentVariableBorrowRate:   u(4),
		CurrentStableBorrowRate:     u(5),
		LastUpdateTimestamp:         u(6).Uint64(),
		ID:                          uint16(u(7).Uint64()),
		ATokenAddress:               addr(8),
		StableDebtTokenAddress:      addr(9),
		VariableDebtTokenAddress:    addr(10),
		InterestRateStrategyAddress: addr(11),
		AccruedToTreasury:           u(12),
		Unbacked:                    u(13),
		IsolationModeTotalDebt:      u(14),
	}, nil
}

// Configuration is the part of a ReserveConfigurationMap this service reports.
type Configuration struct {
	LTV                  uint16 // bits 0-15, basis points
	LiquidationThreshold uint16 // bits 16-31, basis points
	LiquidationBonus     uint16 // bits 32-47, basis points (10500 = 5 % bonus)
	Decimals             uint8  // bits 48-55
	Active               bool   // bit 56
	Frozen               bool   // bit 57
	BorrowingEnabled     bool   // bit 58
	Paused               bool   // bit 60
	ReserveFactor        uint16 // bits 64-79, basis points
}

// DecodeConfiguration reads the reserve configuration bit map (DataTypes.sol:
// ReserveConfigurationMap).
func DecodeConfiguration(m *big.Int) Configuration {
	bits := func(from, n uint) uint64 {
		v := new(big.Int).Rsh(m, from)
		return new(big.Int).And(v, new(big.Int).SetUint64(1<<n-1)).Uint64()
	}
	return Configuration{
		LTV:                  uint16(bits(0, 16)),
		LiquidationThreshold: uint16(bits(16, 16)),
		LiquidationBonus:     uint16(bits(32, 16)),
		Decimals:             uint8(bits(48, 8)),
		Active:               bits(56, 1) == 1,
		Frozen:               bits(57, 1) == 1,
		BorrowingEnabled:     bits(58, 1) == 1,
		Paused:               bits(60, 1) == 1,
		ReserveFactor:        uint16(bits(64, 16)),
	}
}
