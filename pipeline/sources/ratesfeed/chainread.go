package ratesfeed

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/marketintel/mi/pipeline/sources"
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

// EthCaller is the part of go-ethereum's ethclient (and of the simulated
// backend's client) a ChainReader needs.
type EthCaller interface {
	CallContract(ctx context.Context, msg ethereum.CallMsg, blockNumber *big.Int) ([]byte, error)
	HeaderByNumber(ctx context.Context, number *big.Int) (*types.Header, error)
}

// EthReader is a ChainReader over an EthCaller, each request bounded by
// Timeout (0: none).
type EthReader struct {
	C       EthCaller
	Timeout time.Duration
}

func (r EthReader) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.Timeout > 0 {
		return context.WithTimeout(ctx, r.Timeout)
	}
	return ctx, func() {}
}

// Latest implements ChainReader.
func (r EthReader) Latest(ctx context.Context) (uint64, int64, error) {
	ctx, cancel := r.ctx(ctx)
	defer cancel()
	h, err := r.C.HeaderByNumber(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	return h.Number.Uint64(), int64(h.Time), nil
}

// Call implements ChainReader.
func (r EthReader) Call(ctx context.Context, to common.Address, data []byte, block uint64) ([]byte, error) {
	ctx, cancel := r.ctx(ctx)
	defer cancel()
	return r.C.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, new(big.Int).SetUint64(block))
}

// DialChain returns a ChainReader of the chains entry cfg that connects on
// first use (openers must not do I/O) and reconnects after a failed dial.
func DialChain(cfg sources.ChainConfig) ChainReader {
	return &lazyReader{cfg: cfg}
}

type lazyReader struct {
	cfg sources.ChainConfig
	mu  sync.Mutex
	r   *EthReader
}

func (l *lazyReader) get(ctx context.Context) (*EthReader, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.r != nil {
		return l.r, nil
	}
	timeout := time.Duration(l.cfg.Timeout)
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	c, err := rpc.DialContext(dctx, l.cfg.RPC)
	if err != nil {
		return nil, fmt.Errorf("cannot reach chain %s: %w", l.cfg.Chain, errors.New(sources.Redact(err.Error())))
	}
	l.r = &EthReader{C: ethclient.NewClient(c), Timeout: timeout}
	return l.r, nil
}

func (l *lazyReader) Latest(ctx context.Context) (uint64, int64, error) {
	r, err := l.get(ctx)
	if err != nil {
		return 0, 0, err
	}
	return r.Latest(ctx)
}

func (l *lazyReader) Call(ctx context.Context, to common.Address, data []byte, block uint64) ([]byte, error) {
	r, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return r.Call(ctx, to, data, block)
}
