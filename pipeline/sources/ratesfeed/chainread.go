package ratesfeed

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"

	"github.com/marketintel/mi/pipeline/sources/chain"
)

// ChainReader is what the on-chain rates sources need of a chain: the
// latest block, and read-only calls at a block, so that every figure of
// one read comes from one block.
type ChainReader interface {
	// Latest returns the latest block's number and timestamp (Unix s).
	Latest(ctx context.Context) (number uint64, time int64, err error)
	// Call runs eth_call of data on to at block and returns the return
	// data.
	Call(ctx context.Context, to common.Address, data []byte, block uint64) ([]byte, error)
}

// ClientReader is the ChainReader of a chain client (pipeline/sources/chain:
// rate limit, request sharing, backoff after failures, freshness in
// /status as chain:<name>).
type ClientReader struct{ C *chain.Client }

// Latest implements ChainReader.
func (r ClientReader) Latest(ctx context.Context) (uint64, int64, error) {
	h, err := r.C.Header(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	return h.Number, int64(h.Time), nil
}

// Call implements ChainReader.
func (r ClientReader) Call(ctx context.Context, to common.Address, data []byte, block uint64) ([]byte, error) {
	return r.C.Call(ctx, ethereum.CallMsg{To: &to, Data: data}, new(big.Int).SetUint64(block), nil)
}
