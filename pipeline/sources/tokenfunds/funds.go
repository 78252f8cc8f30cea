// Package tokenfunds reads the total supply of tokenized treasury funds:
// ERC-20 totalSupply() and decimals() by eth_call, snapshotted hourly into
// schemas.FundSupply records. Funds lists the five funds read on Ethereum
// with the source of each address.
package tokenfunds

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/schemas"
)

// Fund is one tokenized fund's token on a chain.
type Fund struct {
	Symbol string
	Name   string
	Issuer string
	Chain  string
	Token  common.Address
	// Source says where the address comes from.
	Source string
}

// Funds are the five tokenized treasury funds read on Ethereum, the chain
// where all five have a token. Addresses as compiled in
// ../shared/fixtures/defi/tokenized_treasury_token_addresses_COMPILED.csv,
// each with its source (TestFundsMatchFixture keeps the two in step).
// Franklin Templeton's BENJI is not one: no authoritative Ethereum address
// was found. Ondo's second USDY contract (USDYc) is not read.
var Funds = []Fund{
	{"BUIDL", "BlackRock USD Institutional Digital Liquidity Fund", "BlackRock / Securitize", "ethereum",
		common.HexToAddress("0x7712c34205737192402172409a8f7ccef8aa2aec"), "pinax-network/substreams-abis abi/tokens/erc20/README.md @ 1ed34145b054b351ad8e37a575a4b518ce12255c"},
	{"OUSG", "Ondo Short-Term US Government Treasuries", "Ondo Finance", "ethereum",
		common.HexToAddress("0x1B19C19393e2d034D8Ff31ff34c81252FcBbee92"), "DefiLlama/dimension-adapters fees/ondo.ts @ 8aff7d979bd82a8694f0984b8bf48d8d09bcc04d; issuer docs docs.ondo.finance/addresses"},
	{"USDY", "Ondo US Dollar Yield", "Ondo Finance", "ethereum",
		common.HexToAddress("0x96F6eF951840721AdBF46Ac996b59E0235CB985C"), "DefiLlama/dimension-adapters fees/ondo.ts @ 8aff7d979bd82a8694f0984b8bf48d8d09bcc04d"},
	{"USTB", "Superstate Short Duration US Government Securities Fund", "Superstate", "ethereum",
		common.HexToAddress("0x43415eB6ff9DB7E26A15b704e7A3eDCe97d31C4e"), "issuer docs docs.superstate.com/introduction-to-superstate/smart-contracts (USTB Token Proxy)"},
	{"USYC", "Hashnote International Short Duration Yield Fund", "Hashnote (Circle)", "ethereum",
		common.HexToAddress("0x136471a34f6ef19fE571EFFC1CA711fdb8E49f2b"), "DefiLlama/DefiLlama-Adapters projects/hashnote/index.js @ 137bf7fbae08472a0f98870e5696c93c508ce994"},
}

// Calldata of the two ERC-20 views read.
var (
	TotalSupplyCall = []byte{0x18, 0x16, 0x0d, 0xdd} // totalSupply()
	DecimalsCall    = []byte{0x31, 0x3c, 0xe5, 0x67} // decimals()
)

// ErrMalformed is wrapped by the decoders' errors ("malformed return
// data: ...").
var ErrMalformed = errors.New("malformed return data")

// DecodeTotalSupply decodes totalSupply()'s return data: one uint256 word.
func DecodeTotalSupply(ret []byte) (*big.Int, error) {
	if len(ret) != 32 {
		return nil, fmt.Errorf("%w: totalSupply returned %d bytes, want 32", ErrMalformed, len(ret))
	}
	return new(big.Int).SetBytes(ret), nil
}

// DecodeDecimals decodes decimals()'s return data: one word holding a
// uint8. More than 36 decimals is refused as no real token has them.
func DecodeDecimals(ret []byte) (uint8, error) {
	if len(ret) != 32 {
		return 0, fmt.Errorf("%w: decimals returned %d bytes, want 32", ErrMalformed, len(ret))
	}
	v := new(big.Int).SetBytes(ret)
	if !v.IsUint64() || v.Uint64() > 36 {
		return 0, fmt.Errorf("%w: decimals %s", ErrMalformed, v)
	}
	return uint8(v.Uint64()), nil
}

// SnapshotTime is the hour a snapshot read at a block of time blockTime
// (Unix seconds) stands for: the start of the UTC hour the block is in.
func SnapshotTime(blockTime int64) int64 { return blockTime - ((blockTime%3600)+3600)%3600 }

// Supply returns the record of a fund's supply read at a block.
func Supply(f Fund, totalSupply *big.Int, decimals uint8, blockNumber uint64, blockTime int64) *schemas.FundSupply {
	return &schemas.FundSupply{
		Symbol:         f.Symbol,
		Chain:          f.Chain,
		Token:          strings.ToLower(f.Token.Hex()),
		TotalSupplyRaw: totalSupply.String(),
		Decimals:       uint32(decimals),
		BlockNumber:    blockNumber,
		BlockTime:      blockTime,
		SnapshotTime:   SnapshotTime(blockTime),
	}
}
