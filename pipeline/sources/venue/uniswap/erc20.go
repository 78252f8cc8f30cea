package uniswap

import (
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

const erc20ABI = `[
{"type":"function","name":"decimals","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint8"}]},
{"type":"function","name":"symbol","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"string"}]}
]`

// ERC20ABI is the subset of the ERC-20 ABI a pool's tokens are read with.
var ERC20ABI abi.ABI

func init() {
	var err error
	if ERC20ABI, err = abi.JSON(strings.NewReader(erc20ABI)); err != nil {
		panic("BUG: cannot parse the ERC-20 ABI: " + err.Error())
	}
}
