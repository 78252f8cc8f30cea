package chain

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"
	"golang.org/x/sync/singleflight"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/clock"
)

// Defaults of a chain entry that leaves them out.
const (
	DefaultTimeout     = 10 * time.Second
	DefaultMaxLogRange = 1000
)

// DefaultLimit is the rate limit of a chain entry without one.
var DefaultLimit = sources.Limit{Rate: 10, Burst: 10}

// ErrUnavailable is wrapped by the error of a read refused without a
// request because the chain is backing off after a transport failure.
var ErrUnavailable = errors.New("chain unavailable (backing off after a failure)")

// Options are what clients need besides their entry; the zero value is
// production's, without /status.
type Options struct {
	// Registry receives each chain's freshness as "chain:<name>"; nil: a
	// private registry.
	Registry *sources.Registry
	// Clock times the backoff and the freshness; nil: system.
	Clock clock.Clock
	// UserAgent is sent with every request (sources.HTTPConfig's
	// UserAgentHeader); empty: go-ethereum's.
	UserAgent string
	// MinBackoff and MaxBackoff bound how long a chain is left alone after
	// a transport failure; defaults 1 s and 30 s.
	MinBackoff, MaxBackoff time.Duration
	// Rand is the backoff's jitter source; nil: random.
	Rand func() float64
}

// Client reads one chain. It is safe for concurrent use; every caller in
// the process should share the chain's one Client (Set).
type Client struct {
	name, url string
	chainID   uint64 // expected eth_chainId; 0: not checked
	verified  atomic.Bool
	timeout   time.Duration
	maxRange  uint64
	ua        string
	clk       clock.Clock
	lim       *sources.Limiter
	health    *sources.Health
	sf        singleflight.Group

	mu        sync.Mutex
	rc        *rpc.Client
	bo        sources.Backoff
	downUntil time.Time
	lastErr   string

	reads, requests atomic.Uint64
}

// Stats are a client's counters.
type Stats struct {
	// Reads counts the reads asked of the shared read path, one per
	// caller, whether or not another caller's request answered it.
	Reads uint64
	// Requests counts the JSON-RPC requests sent (a batch is one).
	Requests uint64
}

// New returns the client of one chain entry. It does not connect: the
// first read does (a WebSocket endpoint is dialled then, and again after a
// transport failure).
func New(cfg sources.ChainConfig, o Options) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	reg := o.Registry
	if reg == nil {
		reg = sources.NewRegistry(nil, o.Clock)
	}
	limit := DefaultLimit
	if cfg.Limit != nil {
		limit = *cfg.Limit
	}
	clk := clock.Or(o.Clock)
	return &Client{
		name: cfg.Chain, url: cfg.RPC, chainID: cfg.ChainID,
		timeout:  cmp.Or(time.Duration(cfg.Timeout), DefaultTimeout),
		maxRange: cmp.Or(cfg.MaxLogRange, DefaultMaxLogRange),
		ua:       o.UserAgent, clk: clk,
		lim:    sources.NewLimiter(clk, limit),
		health: reg.Register("chain:"+cfg.Chain, "chain", cfg.RPC),
		bo:     sources.Backoff{Min: cmp.Or(o.MinBackoff, time.Second), Max: cmp.Or(o.MaxBackoff, 30*time.Second), Rand: o.Rand},
	}, nil
}

// Name is the chain's name.
func (c *Client) Name() string { return c.name }

// Stats returns the counters.
func (c *Client) Stats() Stats { return Stats{Reads: c.reads.Load(), Requests: c.requests.Load()} }

// Close closes the connection, if any.
func (c *Client) Close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rc != nil {
		c.rc.Close()
		c.rc = nil
	}
}

// CallError is a failed request: the node could not be reached, timed out,
// answered an HTTP error, or answered a JSON-RPC error that is not a
// revert. Its message is redacted (sources.Redact); Unwrap gives the cause
// (context.DeadlineExceeded, rpc.HTTPError, an rpc.Error, ...).
type CallError struct {
	Chain, Method string
	Err           error
}

func (e *CallError) Error() string {
	return fmt.Sprintf("cannot call %s on %s: %s", e.Method, e.Chain, sources.Redact(e.Err.Error()))
}

func (e *CallError) Unwrap() error { return e.Err }

// read is the shared read path: identical concurrent reads (method and
// encoded args) make one request, answered to every caller; each caller
// waits on its own ctx, the request on the client's timeout.
func (c *Client) read(ctx context.Context, result any, method string, args ...any) error {
	key, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("cannot encode %s parameters: %w", method, err)
	}
	ch := c.sf.DoChan(method+string(key), func() (any, error) {
		var raw json.RawMessage
		err := c.send(context.Background(), 1, method, func(ctx context.Context, rc *rpc.Client) error {
			return rc.CallContext(ctx, &raw, method, args...)
		})
		return raw, c.convert(method, err)
	})
	c.reads.Add(1) // after DoChan: the read has joined or started a request
	select {
	case r := <-ch:
		if r.Err != nil {
			return r.Err
		}
		if result == nil {
			return nil
		}
		if err := json.Unmarshal(r.Val.(json.RawMessage), result); err != nil {
			return fmt.Errorf("cannot decode the %s answer of %s: %w", method, c.name, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("cannot read %s on %s: %w", method, c.name, ctx.Err())
	}
}

// send makes one request (n calls) through the backoff gate, the rate
// limit and the timeout, and records its outcome.
func (c *Client) send(parent context.Context, n int, method string, f func(context.Context, *rpc.Client) error) error {
	if err := c.gate(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(parent, c.timeout)
	defer cancel()
	if err := c.lim.WaitN(ctx, n); err != nil {
		return fmt.Errorf("cannot call %s on %s: %w", method, c.name, err)
	}
	c.health.Attempt()
	rc, err := c.conn(ctx)
	if err == nil {
		c.requests.Add(1)
		err = f(ctx, rc)
	}
	if parent.Err() != nil {
		return parent.Err() // the caller gave up: says nothing of the node
	}
	c.settle(err)
	if err != nil {
		return &CallError{Chain: c.name, Method: method, Err: err}
	}
	return nil
}

func (c *Client) gate() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if until := c.downUntil; c.clk.Now().Before(until) {
		return fmt.Errorf("cannot read %s: %w until %s; last error: %s", c.name, ErrUnavailable, until.UTC().Format(time.RFC3339), c.lastErr)
	}
	return nil
}

func (c *Client) conn(ctx context.Context) (*rpc.Client, error) {
	c.mu.Lock()
	rc := c.rc
	c.mu.Unlock()
	if rc != nil {
		return rc, nil
	}
	var opts []rpc.ClientOption
	if c.ua != "" {
		opts = append(opts, rpc.WithHeader("User-Agent", c.ua))
	}
	rc, err := rpc.DialOptions(ctx, c.url, opts...)
	if err != nil {
		return nil, fmt.Errorf("cannot dial: %w", err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rc != nil {
		rc.Close()
		return c.rc, nil
	}
	c.rc = rc
	return rc, nil
}

// nodeAnswered is true when err is a JSON-RPC error object: the node is up.
func nodeAnswered(err error) bool {
	var re rpc.Error
	return errors.As(err, &re)
}

// settle records a request's outcome: a success or a node's JSON-RPC error
// resets the backoff; a transport failure opens (or keeps) the backoff
// window, dropping the connection so that the next read dials again.
func (c *Client) settle(err error) {
	if err == nil || nodeAnswered(err) {
		c.mu.Lock()
		c.bo.Reset()
		c.downUntil = time.Time{}
		c.mu.Unlock()
		c.health.Success(time.Time{})
		return
	}
	msg := sources.Redact(err.Error())
	c.mu.Lock()
	now := c.clk.Now()
	if !now.Before(c.downUntil) {
		c.downUntil = now.Add(c.bo.Next())
	}
	c.lastErr = msg
	if c.rc != nil && strings.HasPrefix(c.url, "ws") {
		c.rc.Close()
		c.rc = nil
	}
	c.mu.Unlock()
	c.health.Failure(&CallError{Chain: c.name, Method: "request", Err: err})
}

// convert turns a revert into *RevertError and leaves other errors.
func (c *Client) convert(method string, err error) error {
	if err == nil {
		return nil
	}
	var re rpc.Error
	if !errors.As(err, &re) {
		return err
	}
	msg := strings.ToLower(re.Error())
	if re.ErrorCode() != 3 && !strings.Contains(msg, "revert") {
		return err
	}
	var data []byte
	var de rpc.DataError
	if errors.As(err, &de) {
		data, _ = revertData(de.ErrorData())
	}
	rev := DecodeRevert(data)
	if rev.Kind == RevertNoData {
		// Some nodes give the reason only in the message.
		if _, reason, ok := strings.Cut(re.Error(), "execution reverted: "); ok && reason != "" {
			rev.Kind, rev.Reason = RevertMessage, reason
		}
	}
	return rev
}

// Call runs eth_call of msg against the state at block (nil: latest;
// negative: rpc.BlockNumber tags such as rpc.SafeBlockNumber) with
// overrides applied to the state for this call only (nil: none; balances,
// nonces, code, whole storage or single slots — see
// ethereum.OverrideAccount), and returns the call's return data. A revert
// is a *RevertError.
func (c *Client) Call(ctx context.Context, msg ethereum.CallMsg, block *big.Int, overrides map[common.Address]ethereum.OverrideAccount) ([]byte, error) {
	var out hexutil.Bytes
	args := []any{callArg(msg), blockArg(block)}
	if overrides != nil {
		args = append(args, overrides)
	}
	if err := c.read(ctx, &out, "eth_call", args...); err != nil {
		return nil, err
	}
	return out, nil
}

// Code returns the code at addr (empty for an account without code).
func (c *Client) Code(ctx context.Context, addr common.Address, block *big.Int) ([]byte, error) {
	var out hexutil.Bytes
	if err := c.read(ctx, &out, "eth_getCode", addr, blockArg(block)); err != nil {
		return nil, err
	}
	return out, nil
}

// StorageAt returns the storage word at slot of addr.
func (c *Client) StorageAt(ctx context.Context, addr common.Address, slot common.Hash, block *big.Int) (common.Hash, error) {
	var out hexutil.Bytes
	if err := c.read(ctx, &out, "eth_getStorageAt", addr, slot, blockArg(block)); err != nil {
		return common.Hash{}, err
	}
	if len(out) > 32 {
		return common.Hash{}, fmt.Errorf("cannot read storage of %s on %s: %d-byte word", addr.Hex(), c.name, len(out))
	}
	return common.BytesToHash(out), nil
}

// BlockNumber returns the number of the chain's latest block.
func (c *Client) BlockNumber(ctx context.Context) (uint64, error) {
	var out hexutil.Uint64
	if err := c.read(ctx, &out, "eth_blockNumber"); err != nil {
		return 0, err
	}
	return uint64(out), nil
}

// Header is what the readers need of a block header.
type Header struct {
	Number     uint64
	Hash       common.Hash
	ParentHash common.Hash
	// Time is the block's timestamp (Unix seconds).
	Time uint64
}

type headerJSON struct {
	Number     hexutil.Uint64 `json:"number"`
	Hash       common.Hash    `json:"hash"`
	ParentHash common.Hash    `json:"parentHash"`
	Time       hexutil.Uint64 `json:"timestamp"`
}

// ErrNoBlock is wrapped by the error of a header read for a block the node
// does not have.
var ErrNoBlock = errors.New("no such block")

// Header returns the header of block (nil: latest). Reading the latest
// header records its timestamp as the chain's data time for /status.
func (c *Client) Header(ctx context.Context, block *big.Int) (Header, error) {
	var h *headerJSON
	if err := c.read(ctx, &h, "eth_getBlockByNumber", blockArg(block), false); err != nil {
		return Header{}, err
	}
	if h == nil {
		return Header{}, fmt.Errorf("cannot read block %v on %s: %w", blockArg(block), c.name, ErrNoBlock)
	}
	out := Header{Number: uint64(h.Number), Hash: h.Hash, ParentHash: h.ParentHash, Time: uint64(h.Time)}
	if block == nil {
		c.health.Success(time.Unix(int64(out.Time), 0).UTC())
	}
	return out, nil
}

// Headers returns the headers of blocks nums, in order, read in batches of
// 100.
func (c *Client) Headers(ctx context.Context, nums []uint64) ([]Header, error) {
	out := make([]Header, 0, len(nums))
	for len(nums) > 0 {
		k := min(len(nums), 100)
		hs := make([]*headerJSON, k)
		batch := make([]rpc.BatchElem, k)
		for i, n := range nums[:k] {
			batch[i] = rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.EncodeUint64(n), false}, Result: &hs[i]}
		}
		if err := c.Batch(ctx, batch); err != nil {
			return nil, err
		}
		for i, n := range nums[:k] {
			switch {
			case batch[i].Error != nil:
				return nil, batch[i].Error
			case hs[i] == nil || uint64(hs[i].Number) != n:
				return nil, fmt.Errorf("cannot read block %d on %s: %w", n, c.name, ErrNoBlock)
			}
			h := hs[i]
			out = append(out, Header{Number: n, Hash: h.Hash, ParentHash: h.ParentHash, Time: uint64(h.Time)})
		}
		nums = nums[k:]
	}
	return out, nil
}

// Batch sends elems as one JSON-RPC batch (taking len(elems) tokens of the
// rate limit), outside the request sharing. The error is the request's;
// each element's own error is in its Error field, reverts as *RevertError.
func (c *Client) Batch(ctx context.Context, elems []rpc.BatchElem) error {
	if len(elems) == 0 {
		return nil
	}
	err := c.send(ctx, len(elems), "batch", func(ctx context.Context, rc *rpc.Client) error {
		return rc.BatchCallContext(ctx, elems)
	})
	if err != nil {
		return err
	}
	for i := range elems {
		elems[i].Error = c.convert(elems[i].Method, elems[i].Error)
	}
	return nil
}

// Logs returns the logs matching q, in block order. FromBlock nil means
// block 0 and ToBlock nil (or a negative tag) the latest block. The range is
// read in pieces of at most the entry's max_log_range blocks, and a piece
// the node refuses as too large (too many blocks or results) is halved
// until it passes or is one block. With BlockHash set, one request.
func (c *Client) Logs(ctx context.Context, q ethereum.FilterQuery) ([]types.Log, error) {
	if q.BlockHash != nil {
		var logs []types.Log
		err := c.read(ctx, &logs, "eth_getLogs", filterArg(q, 0, 0))
		return logs, err
	}
	var from, to uint64
	if q.FromBlock != nil {
		if q.FromBlock.Sign() < 0 || !q.FromBlock.IsUint64() {
			return nil, fmt.Errorf("cannot read logs on %s: from block %v is not a block number", c.name, q.FromBlock)
		}
		from = q.FromBlock.Uint64()
	}
	if q.ToBlock != nil && q.ToBlock.Sign() >= 0 {
		if !q.ToBlock.IsUint64() {
			return nil, fmt.Errorf("cannot read logs on %s: to block %v is not a block number", c.name, q.ToBlock)
		}
		to = q.ToBlock.Uint64()
	} else {
		head, err := c.BlockNumber(ctx)
		if err != nil {
			return nil, err
		}
		to = head
	}
	var out []types.Log
	for start := from; start <= to; {
		end := to
		if to-start >= c.maxRange {
			end = start + c.maxRange - 1
		}
		logs, err := c.logsRange(ctx, q, start, end)
		if err != nil {
			return nil, err
		}
		out = append(out, logs...)
		if end == to {
			break
		}
		start = end + 1
	}
	return out, nil
}

func (c *Client) logsRange(ctx context.Context, q ethereum.FilterQuery, from, to uint64) ([]types.Log, error) {
	var logs []types.Log
	err := c.read(ctx, &logs, "eth_getLogs", filterArg(q, from, to))
	if err == nil || from == to || !rangeRefused(err) {
		return logs, err
	}
	mid := from + (to-from)/2
	a, err := c.logsRange(ctx, q, from, mid)
	if err != nil {
		return nil, err
	}
	b, err := c.logsRange(ctx, q, mid+1, to)
	if err != nil {
		return nil, err
	}
	return append(a, b...), nil
}

// rangeRefused recognizes the answers of nodes and providers that refuse
// an eth_getLogs range as too large (geth, Erigon, Nethermind, Alchemy,
// Infura, QuickNode, publicnode, Base and Arbitrum nodes).
func rangeRefused(err error) bool {
	var re rpc.Error
	if !errors.As(err, &re) {
		return false
	}
	if re.ErrorCode() == -32005 {
		return true
	}
	msg := strings.ToLower(re.Error())
	for _, s := range []string{"block range", "range too large", "range is too large", "too many blocks", "query returned more than",
		"max block range", "maximum block range", "response size", "too many results", "limit exceeded", "results exceed", "range limit"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func blockArg(n *big.Int) string {
	switch {
	case n == nil:
		return "latest"
	case n.Sign() >= 0:
		return hexutil.EncodeBig(n)
	case n.IsInt64():
		return rpc.BlockNumber(n.Int64()).String()
	}
	return fmt.Sprintf("<invalid %d>", n)
}

func callArg(msg ethereum.CallMsg) map[string]any {
	arg := map[string]any{"to": msg.To}
	if msg.From != (common.Address{}) {
		arg["from"] = msg.From
	}
	if len(msg.Data) > 0 {
		arg["data"] = hexutil.Bytes(msg.Data)
	}
	if msg.Value != nil {
		arg["value"] = (*hexutil.Big)(msg.Value)
	}
	if msg.Gas != 0 {
		arg["gas"] = hexutil.Uint64(msg.Gas)
	}
	if msg.GasPrice != nil {
		arg["gasPrice"] = (*hexutil.Big)(msg.GasPrice)
	}
	if msg.GasFeeCap != nil {
		arg["maxFeePerGas"] = (*hexutil.Big)(msg.GasFeeCap)
	}
	if msg.GasTipCap != nil {
		arg["maxPriorityFeePerGas"] = (*hexutil.Big)(msg.GasTipCap)
	}
	return arg
}

func filterArg(q ethereum.FilterQuery, from, to uint64) map[string]any {
	arg := map[string]any{"address": q.Addresses, "topics": q.Topics}
	if q.BlockHash != nil {
		arg["blockHash"] = *q.BlockHash
	} else {
		arg["fromBlock"], arg["toBlock"] = hexutil.EncodeUint64(from), hexutil.EncodeUint64(to)
	}
	return arg
}
