// Package fundtest deploys TestFundToken (TestFundToken.sol beside this
// file, compiled as TestFundToken.md says): an ERC-20 with the decimals of
// a fund's token whose supply its owner mints and burns. The rates tests
// and the offline demo read it as they read a real fund token.
package fundtest

import (
	_ "embed"
	"encoding/hex"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
)

// ABIJSON is TestFundToken's ABI (solc --abi).
//
//go:embed TestFundToken.abi
var ABIJSON string

// BinHex is TestFundToken's creation code in hex (solc --bin).
//
//go:embed TestFundToken.bin
var BinHex string

// ABI is TestFundToken's ABI.
var ABI = func() abi.ABI {
	a, err := abi.JSON(strings.NewReader(ABIJSON))
	if err != nil {
		panic("BUG: TestFundToken.abi: " + err.Error())
	}
	return a
}()

// Deploy returns the creation code with the constructor's arguments.
func Deploy(name, symbol string, decimals uint8) []byte {
	b, err := hex.DecodeString(strings.TrimSpace(BinHex))
	if err != nil {
		panic("BUG: TestFundToken.bin: " + err.Error())
	}
	args, err := ABI.Pack("", name, symbol, decimals)
	if err != nil {
		panic(fmt.Sprintf("BUG: cannot pack the constructor: %v", err))
	}
	return append(b, args...)
}

// Mint returns the calldata minting value base units to to.
func Mint(to common.Address, value *big.Int) []byte { return pack("mint", to, value) }

// Burn returns the calldata burning value base units of from.
func Burn(from common.Address, value *big.Int) []byte { return pack("burn", from, value) }

func pack(method string, args ...any) []byte {
	b, err := ABI.Pack(method, args...)
	if err != nil {
		panic(fmt.Sprintf("BUG: cannot pack %s: %v", method, err))
	}
	return b
}
