package aave

import (
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/schemas"
)

// Protocol is the LendingRate.Protocol of this package's records.
const Protocol = "aave-v3"

// Reserve is one reserve this package reads: a Pool and an asset on a chain.
type Reserve struct {
	Chain   string // "ethereum", "base", "arbitrum", "optimism", "polygon"
	ChainID int64
	Pool    common.Address
	Asset   common.Address
	Symbol  string
}

// Reserves are the USDC reserves of the Aave v3 core markets on the five
// chains, addresses from bgd-labs/aave-address-book (src/AaveV3<Chain>.sol,
// POOL and USDC_UNDERLYING, or USDCn_UNDERLYING — native USDC — where the
// market also lists the bridged USDC.e; commit f61c97628307d387ca93a78578970fe6db885029,
// 2026-05-01). docs/rates.md lists them.
var Reserves = []Reserve{
	{"ethereum", 1, common.HexToAddress("0x87870Bca3F3fD6335C3F4ce8392D69350B4fA4E2"), common.HexToAddress("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"), "USDC"},
	{"base", 8453, common.HexToAddress("0xA238Dd80C259a72e81d7e4664a9801593F98d1c5"), common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"), "USDC"},
	{"arbitrum", 42161, common.HexToAddress("0x794a61358D6845594F94dc1DB02A252b5b4814aD"), common.HexToAddress("0xaf88d065e77c8cC2239327C5EDb3A432268e5831"), "USDC"},
	{"optimism", 10, common.HexToAddress("0x794a61358D6845594F94dc1DB02A252b5b4814aD"), common.HexToAddress("0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85"), "USDC"},
	{"polygon", 137, common.HexToAddress("0x794a61358D6845594F94dc1DB02A252b5b4814aD"), common.HexToAddress("0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359"), "USDC"},
}

// LendingRate returns the record of a reserve's data read at a block.
func LendingRate(r Reserve, d ReserveData, blockNumber uint64, blockTime int64) *schemas.LendingRate {
	c := DecodeConfiguration(d.Configuration)
	return &schemas.LendingRate{
		Protocol:               Protocol,
		Chain:                  r.Chain,
		ChainId:                r.ChainID,
		Pool:                   strings.ToLower(r.Pool.Hex()),
		Asset:                  strings.ToLower(r.Asset.Hex()),
		AssetSymbol:            r.Symbol,
		LiquidityRateRay:       d.CurrentLiquidityRate.String(),
		VariableBorrowRateRay:  d.CurrentVariableBorrowRate.String(),
		LiquidityIndexRay:      d.LiquidityIndex.String(),
		VariableBorrowIndexRay: d.VariableBorrowIndex.String(),
		LastUpdateTime:         int64(d.LastUpdateTimestamp),
		BlockNumber:            blockNumber,
		BlockTime:              blockTime,
		Active:                 c.Active,
		Frozen:                 c.Frozen,
		Paused:                 c.Paused,
		Decimals:               uint32(c.Decimals),
	}
}
