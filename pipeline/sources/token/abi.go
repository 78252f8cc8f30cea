package token

import (
	_ "embed"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// readsABI holds every function the readers call: ERC-20 metadata and
// balances, owner reads, the factories' pool lookups and the pools' state.
const readsABI = `[
{"type":"function","name":"name","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"string"}]},
{"type":"function","name":"symbol","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"string"}]},
{"type":"function","name":"decimals","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint8"}]},
{"type":"function","name":"totalSupply","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"uint256"}]},
{"type":"function","name":"balanceOf","stateMutability":"view","inputs":[{"name":"a","type":"address"}],"outputs":[{"name":"","type":"uint256"}]},
{"type":"function","name":"owner","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"address"}]},
{"type":"function","name":"getOwner","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"address"}]},
{"type":"function","name":"getPair","stateMutability":"view","inputs":[{"name":"a","type":"address"},{"name":"b","type":"address"}],"outputs":[{"name":"","type":"address"}]},
{"type":"function","name":"getPool","stateMutability":"view","inputs":[{"name":"a","type":"address"},{"name":"b","type":"address"},{"name":"fee","type":"uint24"}],"outputs":[{"name":"","type":"address"}]},
{"type":"function","name":"getReserves","stateMutability":"view","inputs":[],"outputs":[{"name":"r0","type":"uint112"},{"name":"r1","type":"uint112"},{"name":"t","type":"uint32"}]},
{"type":"function","name":"token0","stateMutability":"view","inputs":[],"outputs":[{"name":"","type":"address"}]},
{"type":"function","name":"slot0","stateMutability":"view","inputs":[],"outputs":[{"name":"sqrtPriceX96","type":"uint160"},{"name":"tick","type":"int24"},{"name":"a","type":"uint16"},{"name":"b","type":"uint16"},{"name":"c","type":"uint16"},{"name":"d","type":"uint8"},{"name":"e","type":"bool"}]}
]`

//go:embed TokenSim.abi
var simABIJSON string

//go:embed TokenSim.bin-runtime
var simRuntimeHex string

var (
	reads  = mustABI(readsABI)
	simABI = mustABI(simABIJSON)
	// simCode is TokenSim's runtime code, put at the buyer's address by a
	// state override (TokenSim.sol, built as TokenSim.md says).
	simCode = common.FromHex(strings.TrimSpace(simRuntimeHex))

	topicTransfer = crypto.Keccak256Hash([]byte("Transfer(address,address,uint256)"))
	topicSwapV2   = crypto.Keccak256Hash([]byte("Swap(address,uint256,uint256,uint256,uint256,address)"))
	topicSyncV2   = crypto.Keccak256Hash([]byte("Sync(uint112,uint112)"))
	topicSwapV3   = crypto.Keccak256Hash([]byte("Swap(address,address,int256,int256,uint160,uint128,int24)"))
)

// EIP-1967 slots: bytes32(uint256(keccak256(label)) - 1).
var (
	SlotImplementation = common.HexToHash("0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc")
	SlotAdmin          = common.HexToHash("0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103")
	SlotBeacon         = common.HexToHash("0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50")
)

// Addresses that hold burned tokens.
var (
	zeroAddress = common.Address{}
	deadAddress = common.HexToAddress("0x000000000000000000000000000000000000dEaD")
)

func mustABI(s string) abi.ABI {
	a, err := abi.JSON(strings.NewReader(s))
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return a
}

func pack(method string, args ...any) []byte {
	b, err := reads.Pack(method, args...)
	if err != nil {
		panic("BUG: cannot pack " + method + ": " + err.Error())
	}
	return b
}
