package evmdex

import "github.com/marketintel/mi/pipeline/sources/venue/uniswap"

// ERC20ABI is the subset of the ERC-20 ABI the connector uses.
var ERC20ABI = uniswap.ERC20ABI
