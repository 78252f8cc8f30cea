// Package evmdex is the connector for Uniswap v3-style pools on EVM chains
// (Ethereum, Base, Arbitrum, Optimism). It follows new blocks over JSON-RPC —
// eth_subscribe("newHeads") over WebSocket when the endpoint offers it, else
// polling eth_blockNumber — and reads the pools' Swap, Mint and Burn logs with
// eth_getLogs by block range, so that the range missed during a disconnect is
// backfilled by the same code path that follows the head.
//
// Each Swap becomes one trade: event time is the block time, the trade id is
// the transaction hash and the log index makes the dedupe key; the aggressor
// side comes from the signs of the amounts (the base token left the pool: a
// buy); the price is quote per base in USD, directly for a USD-stablecoin
// quote and through the latest ETHUSD swap price of the same connector for a
// WETH quote; the wallet is the Swap event's recipient (see docs/venues.md).
//
// Every Swap, Mint and Burn is also a state change of its pool: the source
// yields it, before the trade of a swap, as a record of mi.pool-events.v1
// (pipeline/sidetopic.PoolEvents, key chain|pool), which the liquidity view
// of every API instance applies (docs/liquidity.md). Before that, the first
// time it meets a pool, it reads the pool's whole state at the last block
// read — slot0, the in-range liquidity and every initialized tick — and
// yields it as a snapshot record (snapshot.go).
//
// Logs are emitted once Confirmations blocks sit on top of their block.
// Reorgs deeper than that are detected by re-reading the hash of the last
// block read; the logs of every replaced block are retracted — each as a
// rejected record whose Reason starts with ReasonRetracted — and the blocks
// are read again. Logs flagged removed:true retract the same way; a pool
// event is retracted by the same event with retracted set.
package evmdex

import (
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/schemas"
)

// ReasonRetracted starts the Reason of a record that retracts a trade emitted
// earlier: its Raw is the JSON of the log that was reorged out. Downstream it
// goes to the dead-letter topic like any rejected input; a consumer that can
// undo a trade finds it by (transaction hash, log index) in Raw.
const ReasonRetracted = "retracted"

// Venue is the venue id of the trades.
const Venue = "uniswap_v3"

// Config configures one chain's connector.
type Config struct {
	ChainConfig
	// Pools are the pools to follow; all must be on Chain.
	Pools []PoolConfig
	// StartBlock is the first block read; 0 starts at the confirmed head.
	StartBlock uint64
	// EndBlock, when not 0, makes the source end (io.EOF) once it has read
	// this block: a bounded backfill.
	EndBlock uint64
	// ReorgWindow is how many recent blocks keep their hashes for reorg
	// detection; default 128.
	ReorgWindow uint64
	// MinBackoff and MaxBackoff bound the reconnect delay (doubled on each
	// failure, with ±25% jitter); defaults 500ms and 30s.
	MinBackoff, MaxBackoff time.Duration
	// Logf, when set, receives one line per connection failure streak.
	Logf func(format string, args ...any)
	// Now stamps IngestTimeNs; default time.Now.
	Now func() time.Time
	// Name overrides the source name "evmdex:<chain>".
	Name string
	// Observer, when set, receives state changes ("connecting", "running",
	// "reconnecting") and reconnections, for /status.
	Observer Observer
	// StepTimeout bounds one step (head, reorg check and the logs of the
	// new blocks): a stuck call ends the session; default 30s.
	StepTimeout time.Duration
	// SnapshotRate is the rate of the pool snapshots' eth_call (calls per
	// second, burst as many); default DefaultSnapshotRate.
	SnapshotRate float64
	// NoSnapshots turns the pool snapshots off: the pools' state is then
	// only what their events since start say (snapshot.go).
	NoSnapshots bool
}

// Stats are the connector's counters.
type Stats struct {
	Reconnects  uint64 // sessions that ended in an error
	Retracted   uint64 // trades and pool events retracted by reorgs
	Duplicates  uint64 // logs seen again and dropped
	Reorgs      uint64 // reorgs detected
	LastBlock   uint64 // last block read
	Subscribed  bool   // the current session follows heads by subscription
	Backfilled  uint64 // blocks read in ranges of more than one block
	Snapshots   uint64 // pool states read from the chain and yielded
	LastErrText string // the last connection error
}

// Source is the connector of one chain. It implements sources.Source.
type Source struct {
	cfg   Config
	name  string
	pools map[common.Address]*operators.PoolMeta
	toks  map[common.Address]*tokenInfo

	out    chan sources.Record
	done   chan struct{}
	start  sync.Once
	cancel context.CancelFunc
	endErr atomic.Value // error
	mu     sync.Mutex
	stats  Stats
	swaps  uniswap.Swaps // the venue's mapping and the latest ETHUSD price
	// snap reads the pool snapshots; snapped and snapFailed record which
	// pools have one and which failed (logged once).
	snap       batcher
	snapped    map[common.Address]bool
	snapFailed map[common.Address]bool
	slab       []recordTrade           // trade records for decode
	arena      []byte                  // hex strings of the trades
	next       uint64                  // next block to read
	hashes     map[uint64]common.Hash  // block -> hash for blocks read
	headers    map[uint64]header       // cache of block headers
	emitted    map[logKey]uint64       // dedupe: log -> block
	byBlock    map[uint64][]emittedLog // block -> logs emitted from it
	// Pools found through the factory (discover.go): the pairs still to
	// ask getPool for, the tokens of Discover (nil without it), and the
	// block the PoolCreated scan has read up to (0: not yet).
	factory      common.Address
	pairs        []PoolConfig
	discoverToks map[common.Address]bool
	scannedTo    uint64
}

type tokenInfo struct {
	addr     common.Address
	ticker   string
	decimals int
	symbol   string // normalized: "ETHUSD", "USD", ...
}

type logKey struct {
	tx    common.Hash
	index uint
}

type emittedLog struct {
	key  logKey
	log  *types.Log           // marshalled only when retracted
	pool *operators.PoolEvent // the pool event it produced
}

type header struct {
	Number     hexutil.Uint64 `json:"number"`
	Hash       common.Hash    `json:"hash"`
	ParentHash common.Hash    `json:"parentHash"`
	Time       hexutil.Uint64 `json:"timestamp"`
}

// New validates the configuration and returns an idle source; it connects on
// the first Next.
func New(cfg Config) (*Source, error) {
	if cfg.Chain == "" || cfg.RPC == "" {
		return nil, errors.New("cannot start evmdex: chain and rpc are required")
	}
	if len(cfg.Pools) == 0 && cfg.Discover == nil {
		return nil, fmt.Errorf("cannot start evmdex on %s: no pools, and no discover", cfg.Chain)
	}
	if err := cfg.validateFactory(); err != nil {
		return nil, err
	}
	if cfg.MaxRange == 0 {
		cfg.MaxRange = 500
	}
	if cfg.PollInterval == 0 {
		cfg.PollInterval = Duration(2 * time.Second)
	}
	if cfg.ReorgWindow == 0 {
		cfg.ReorgWindow = 128
	}
	if cfg.MinBackoff == 0 {
		cfg.MinBackoff = 500 * time.Millisecond
	}
	if cfg.MaxBackoff == 0 {
		cfg.MaxBackoff = 30 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.StepTimeout == 0 {
		cfg.StepTimeout = 30 * time.Second
	}
	s := &Source{
		cfg: cfg, name: cmp.Or(cfg.Name, "evmdex:"+cfg.Chain),
		pools:   map[common.Address]*operators.PoolMeta{},
		toks:    map[common.Address]*tokenInfo{},
		out:     make(chan sources.Record, 1024),
		done:    make(chan struct{}),
		hashes:  map[uint64]common.Hash{},
		headers: map[uint64]header{},
		emitted: map[logKey]uint64{},
		byBlock: map[uint64][]emittedLog{},
		next:    cfg.StartBlock,
		snapped: map[common.Address]bool{}, snapFailed: map[common.Address]bool{},
	}
	if !cfg.NoSnapshots {
		var err error
		if s.snap, err = newSnapshotReader(cfg); err != nil {
			return nil, fmt.Errorf("cannot start evmdex on %s: %w", cfg.Chain, err)
		}
	}
	for _, p := range cfg.Pools {
		if p.Chain != cfg.Chain {
			return nil, fmt.Errorf("cannot follow pool %s: it is on %s, not %s", p.label(), p.Chain, cfg.Chain)
		}
		if err := p.validate(cfg.Factory != ""); err != nil {
			return nil, err
		}
		if p.byPair() {
			s.pairs = append(s.pairs, p)
			continue
		}
		a := common.HexToAddress(p.Address)
		s.pools[a] = &operators.PoolMeta{Chain: cfg.Chain, Address: strings.ToLower(a.Hex()), Name: p.Name}
	}
	if cfg.Factory != "" {
		s.factory = common.HexToAddress(cfg.Factory)
	}
	if d := cfg.Discover; d != nil {
		s.discoverToks = map[common.Address]bool{}
		for _, t := range d.Tokens {
			s.discoverToks[common.HexToAddress(t)] = true
		}
	}
	return s, nil
}

// Name is "evmdex:<chain>".
func (s *Source) Name() string { return s.name }

// Stats returns a copy of the counters.
func (s *Source) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Next returns the next trade, rejected log or retraction. It returns io.EOF
// after EndBlock when one is set.
func (s *Source) Next(ctx context.Context) (sources.Record, error) {
	s.start.Do(func() {
		rctx, cancel := context.WithCancel(context.Background())
		s.cancel = cancel
		go s.run(rctx)
	})
	select {
	case r, ok := <-s.out:
		if !ok {
			if err, _ := s.endErr.Load().(error); err != nil {
				return sources.Record{}, err
			}
			return sources.Record{}, io.EOF
		}
		return r, nil
	case <-ctx.Done():
		return sources.Record{}, ctx.Err()
	}
}

// Close stops the connector.
func (s *Source) Close() error {
	s.start.Do(func() { close(s.out); close(s.done) })
	if s.cancel != nil {
		s.cancel()
		<-s.done
	}
	return nil
}

var errDone = errors.New("end block reached")

func (s *Source) run(ctx context.Context) {
	defer close(s.done)
	defer close(s.out)
	bo := sources.Backoff{Min: s.cfg.MinBackoff, Max: s.cfg.MaxBackoff}
	failing := false
	for {
		progressed, err := s.session(ctx)
		if errors.Is(err, errDone) {
			return
		}
		if ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		s.stats.Reconnects++
		s.stats.LastErrText = err.Error()
		s.mu.Unlock()
		if o := s.cfg.Observer; o != nil {
			o.SetState(s.name, "reconnecting", err)
			o.Reconnect(s.name)
		}
		if progressed {
			bo.Reset()
			failing = false
		}
		if !failing && s.cfg.Logf != nil {
			s.cfg.Logf("%s: cannot read %s: %v; retrying with backoff", s.name, s.cfg.RPC, err)
		}
		failing = true
		select {
		case <-time.After(bo.Next()):
		case <-ctx.Done():
			return
		}
	}
}

// session connects, resolves the pools and follows the chain until an error.
// progressed reports whether any step succeeded.
func (s *Source) session(ctx context.Context) (progressed bool, err error) {
	if o := s.cfg.Observer; o != nil {
		o.SetState(s.name, "connecting", nil)
	}
	c, err := rpc.DialContext(ctx, s.cfg.RPC)
	if err != nil {
		return false, fmt.Errorf("cannot dial: %w", err)
	}
	defer c.Close()
	ec := ethclient.NewClient(c)
	if err := s.findPools(ctx, ec); err != nil { // discover.go
		return false, err
	}
	if err := s.resolve(ctx, ec); err != nil {
		return false, err
	}
	var heads chan json.RawMessage
	var sub *rpc.ClientSubscription
	if strings.HasPrefix(s.cfg.RPC, "ws") {
		heads = make(chan json.RawMessage, 16)
		sub, err = c.EthSubscribe(ctx, heads, "newHeads")
		if err != nil {
			sub, heads = nil, nil // not offered: poll
		} else {
			defer sub.Unsubscribe()
		}
	}
	s.mu.Lock()
	s.stats.Subscribed = sub != nil
	s.mu.Unlock()
	var subErr <-chan error
	if sub != nil {
		subErr = sub.Err()
	}
	tick := time.NewTicker(time.Duration(s.cfg.PollInterval))
	defer tick.Stop()
	for {
		s.snapshots(ctx, c)
		sctx, cancel := context.WithTimeout(ctx, s.cfg.StepTimeout)
		err := s.step(sctx, c, ec)
		cancel()
		if errors.Is(err, errDone) {
			return progressed, err
		}
		if err != nil && !errors.Is(err, errInconsistent) {
			return progressed, err
		}
		if !progressed && s.cfg.Observer != nil {
			s.cfg.Observer.SetState(s.name, "running", nil)
		}
		progressed = true
		select {
		case <-ctx.Done():
			return progressed, ctx.Err()
		case err := <-subErr:
			if err == nil {
				err = errors.New("subscription closed")
			}
			return progressed, fmt.Errorf("cannot follow heads: %w", err)
		case <-heads:
		case <-tick.C:
		}
	}
}

// resolve reads each pool's tokens, fee and tick spacing, and each token's
// decimals and symbol, with eth_call; results are kept across sessions.
func (s *Source) resolve(ctx context.Context, ec *ethclient.Client) error {
	for addr, m := range s.pools {
		if m.Resolved {
			continue
		}
		var t0, t1 common.Address
		var fee, spacing *big.Int
		if err := s.call(ctx, ec, addr, uniswap.PoolABI, "token0", &t0); err != nil {
			return err
		}
		if err := s.call(ctx, ec, addr, uniswap.PoolABI, "token1", &t1); err != nil {
			return err
		}
		if err := s.call(ctx, ec, addr, uniswap.PoolABI, "fee", &fee); err != nil {
			return err
		}
		if err := s.call(ctx, ec, addr, uniswap.PoolABI, "tickSpacing", &spacing); err != nil {
			return err
		}
		var tok [2]*tokenInfo
		for i, ta := range []common.Address{t0, t1} {
			ti, err := s.token(ctx, ec, ta)
			if err != nil {
				return err
			}
			tok[i] = ti
		}
		m.Fee, m.TickSpacing = uint32(fee.Uint64()), int32(spacing.Int64())
		m.Token0, m.Token1 = strings.ToLower(t0.Hex()), strings.ToLower(t1.Hex())
		m.Ticker0, m.Ticker1 = tok[0].ticker, tok[1].ticker
		m.Decimals0, m.Decimals1 = tok[0].decimals, tok[1].decimals
		m.Symbol0, m.Symbol1 = tok[0].symbol, tok[1].symbol
		if m.Name == "" { // found through the factory
			m.Name = fmt.Sprintf("%s/%s %s%%", m.Ticker0, m.Ticker1, strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.4f", float64(m.Fee)/1e4), "0"), "."))
		}
		m.Resolved = true
	}
	return nil
}

func (s *Source) token(ctx context.Context, ec *ethclient.Client, a common.Address) (*tokenInfo, error) {
	if t, ok := s.toks[a]; ok {
		return t, nil
	}
	var dec uint8
	var sym string
	if err := s.call(ctx, ec, a, ERC20ABI, "decimals", &dec); err != nil {
		return nil, err
	}
	if err := s.call(ctx, ec, a, ERC20ABI, "symbol", &sym); err != nil {
		return nil, err
	}
	// The registry's symbol, else the quote rules of the venue (bridged
	// stablecoins are USD, WETH is ETH, any other ticker its USD pair).
	t := &tokenInfo{addr: a, ticker: sym, decimals: int(dec), symbol: uniswap.TokenSymbol(s.cfg.Chain, a.Hex(), sym)}
	if reg, ok := symbols.LookupToken(s.cfg.Chain, a.Hex()); ok && reg.Decimals != t.decimals {
		return nil, fmt.Errorf("cannot use token %s on %s: decimals() = %d, the registry says %d", a.Hex(), s.cfg.Chain, t.decimals, reg.Decimals)
	}
	s.toks[a] = t
	return t, nil
}

func (s *Source) call(ctx context.Context, ec *ethclient.Client, to common.Address, a interface {
	Pack(string, ...any) ([]byte, error)
	UnpackIntoInterface(any, string, []byte) error
}, method string, out any) error {
	data, err := a.Pack(method)
	if err != nil {
		panic("BUG: cannot pack " + method + ": " + err.Error())
	}
	res, err := ec.CallContract(ctx, ethereum.CallMsg{To: &to, Data: data}, nil)
	if err != nil {
		return fmt.Errorf("cannot call %s() on %s: %w", method, to.Hex(), err)
	}
	if err := a.UnpackIntoInterface(out, method, res); err != nil {
		return fmt.Errorf("cannot decode %s() of %s: %w", method, to.Hex(), err)
	}
	return nil
}

// step reads every confirmed block not yet read.
func (s *Source) step(ctx context.Context, c *rpc.Client, ec *ethclient.Client) error {
	head, err := ec.BlockNumber(ctx)
	if err != nil {
		return fmt.Errorf("cannot read block number: %w", err)
	}
	if head < s.cfg.Confirmations {
		return nil
	}
	target := head - s.cfg.Confirmations
	if s.cfg.EndBlock > 0 && target > s.cfg.EndBlock {
		target = s.cfg.EndBlock
	}
	if s.next == 0 {
		s.next = target
	}
	if err := s.checkReorg(ctx, c); err != nil {
		return err
	}
	if err := s.scanCreated(ctx, ec, s.next-1); err != nil { // discover.go
		return err
	}
	s.snapshots(ctx, c) // the state of pools just discovered, before their first range
	for s.next <= target {
		to := min(target, s.next+s.cfg.MaxRange-1)
		logs, err := s.rangeLogs(ctx, ec, s.next, to) // discover.go
		if err != nil {
			return err
		}
		if err := s.process(ctx, c, logs, s.next, to); err != nil {
			return err
		}
		s.mu.Lock()
		if to > s.next {
			s.stats.Backfilled += to - s.next + 1
		}
		s.stats.LastBlock = to
		s.mu.Unlock()
		s.next = to + 1
	}
	if s.cfg.EndBlock > 0 && s.next > s.cfg.EndBlock {
		return errDone
	}
	return nil
}

func (s *Source) header(ctx context.Context, c *rpc.Client, n uint64, cached bool) (header, error) {
	if h, ok := s.headers[n]; ok && cached {
		return h, nil
	}
	var h *header
	if err := c.CallContext(ctx, &h, "eth_getBlockByNumber", hexutil.EncodeUint64(n), false); err != nil {
		return header{}, fmt.Errorf("cannot get block %d: %w", n, err)
	}
	if h == nil || uint64(h.Number) != n {
		return header{}, fmt.Errorf("cannot get block %d: not found", n)
	}
	s.headers[n] = *h
	return *h, nil
}

// prefetch reads the uncached headers of the logs' blocks with batched
// eth_getBlockByNumber calls, 100 per batch.
func (s *Source) prefetch(ctx context.Context, c *rpc.Client, logs []types.Log) error {
	var need []uint64
	seen := map[uint64]bool{}
	for i := range logs {
		n := logs[i].BlockNumber
		if _, ok := s.headers[n]; !ok && !seen[n] {
			seen[n] = true
			need = append(need, n)
		}
	}
	for len(need) > 0 {
		k := min(len(need), 100)
		batch := make([]rpc.BatchElem, k)
		hs := make([]*header, k)
		for i, n := range need[:k] {
			batch[i] = rpc.BatchElem{Method: "eth_getBlockByNumber", Args: []any{hexutil.EncodeUint64(n), false}, Result: &hs[i]}
		}
		if err := c.BatchCallContext(ctx, batch); err != nil {
			return fmt.Errorf("cannot get blocks: %w", err)
		}
		for i, n := range need[:k] {
			if batch[i].Error == nil && hs[i] != nil && uint64(hs[i].Number) == n {
				s.headers[n] = *hs[i]
			} // else: header() reads it alone and reports the error
		}
		need = need[k:]
	}
	return nil
}

// errInconsistent means the logs and the block headers came from different
// forks: the range is read again on the next step.
var errInconsistent = errors.New("logs and block hash disagree (reorg in progress)")

func (s *Source) process(ctx context.Context, c *rpc.Client, logs []types.Log, from, to uint64) error {
	sort.SliceStable(logs, func(i, j int) bool {
		if logs[i].BlockNumber != logs[j].BlockNumber {
			return logs[i].BlockNumber < logs[j].BlockNumber
		}
		return logs[i].Index < logs[j].Index
	})
	// Every header the range is checked against is read after the logs,
	// and the last block's before the others: a reorg that lands while the
	// range is read then shows as a log whose block hash disagrees, never
	// as a canonical last block stored above blocks read on the old fork
	// (which checkReorg, walking down from the last block, would miss).
	for n := from; n <= to; n++ {
		delete(s.headers, n)
	}
	last, err := s.header(ctx, c, to, false)
	if err != nil {
		return err
	}
	// The range must continue the chain read so far: a reorg between two
	// steps shows as a parent hash that differs from the hash kept.
	if prev, ok := s.hashes[from-1]; ok {
		h, err := s.header(ctx, c, from, false)
		if err != nil {
			return err
		}
		if h.ParentHash != prev {
			return fmt.Errorf("block %d: parent hash differs from the one read: %w", from, errInconsistent)
		}
	}
	// Read the headers the cache lacks in batches (blocks whose logs carry
	// no blockTimestamp need one each).
	if err := s.prefetch(ctx, c, logs); err != nil {
		return err
	}
	// Check every block's hash before emitting anything of the range.
	blocks := map[uint64]header{}
	for i := range logs {
		l := &logs[i]
		if l.BlockNumber < from || l.BlockNumber > to {
			return fmt.Errorf("cannot use eth_getLogs answer: log of block %d outside %d-%d", l.BlockNumber, from, to)
		}
		if _, ok := blocks[l.BlockNumber]; ok {
			continue
		}
		h, err := s.header(ctx, c, l.BlockNumber, true)
		if err != nil {
			return err
		}
		if l.BlockHash != (common.Hash{}) && l.BlockHash != h.Hash && !l.Removed {
			delete(s.headers, l.BlockNumber)
			return fmt.Errorf("block %d: %w", l.BlockNumber, errInconsistent)
		}
		blocks[l.BlockNumber] = h
	}
	if h, ok := blocks[to]; ok && h.Hash != last.Hash {
		return fmt.Errorf("block %d: %w", to, errInconsistent)
	}
	for n, h := range blocks {
		s.hashes[n] = h.Hash
	}
	s.hashes[to] = last.Hash
	for i := range logs {
		l := &logs[i]
		k := logKey{l.TxHash, l.Index}
		if l.Removed {
			s.retractLog(ctx, k)
			continue
		}
		if _, dup := s.emitted[k]; dup {
			s.mu.Lock()
			s.stats.Duplicates++
			s.mu.Unlock()
			continue
		}
		ts := l.BlockTimestamp
		if ts == 0 {
			ts = uint64(blocks[l.BlockNumber].Time)
		}
		rec, ev := s.decode(l, int64(ts)*1e9)
		s.emitted[k] = l.BlockNumber
		s.byBlock[l.BlockNumber] = append(s.byBlock[l.BlockNumber], emittedLog{key: k, log: l, pool: ev})
		if ev != nil {
			// The pool event goes first: the trade of a swap is the
			// consequence of the state change it records.
			if !s.send(ctx, sidetopic.PoolEvents.Record(ev.Proto())) {
				return ctx.Err()
			}
		}
		if rec != nil {
			if rec.Trade == nil && rec.Raw == nil {
				rec.Raw, _ = json.Marshal(l)
			}
			if !s.send(ctx, *rec) {
				return ctx.Err()
			}
		}
	}
	s.prune(to)
	return nil
}

func (s *Source) send(ctx context.Context, r sources.Record) bool {
	select {
	case s.out <- r:
		return true
	case <-ctx.Done():
		return false
	}
}

// prune forgets blocks older than the reorg window.
func (s *Source) prune(to uint64) {
	if to < s.cfg.ReorgWindow {
		return
	}
	floor := to - s.cfg.ReorgWindow
	for n := range s.hashes {
		if n < floor {
			delete(s.hashes, n)
		}
	}
	for n := range s.headers {
		if n < floor {
			delete(s.headers, n)
		}
	}
	for n, ls := range s.byBlock {
		if n < floor {
			for _, e := range ls {
				delete(s.emitted, e.key)
			}
			delete(s.byBlock, n)
		}
	}
}

// checkReorg compares the hash of the last block read with the chain's; on a
// mismatch it walks back to the newest block that still matches, retracts
// everything emitted above it and rewinds.
func (s *Source) checkReorg(ctx context.Context, c *rpc.Client) error {
	if len(s.hashes) == 0 {
		return nil
	}
	nums := make([]uint64, 0, len(s.hashes))
	for n := range s.hashes {
		nums = append(nums, n)
	}
	sort.Slice(nums, func(i, j int) bool { return nums[i] > nums[j] })
	fork := uint64(0)
	for i, n := range nums {
		h, err := s.header(ctx, c, n, false)
		if err != nil {
			return err
		}
		if h.Hash == s.hashes[n] {
			if i == 0 {
				return nil
			}
			fork = n + 1
			break
		}
		fork = n
	}
	s.mu.Lock()
	s.stats.Reorgs++
	s.mu.Unlock()
	var blocks []uint64
	for n := range s.byBlock {
		if n >= fork {
			blocks = append(blocks, n)
		}
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i] > blocks[j] })
	for _, n := range blocks {
		ls := s.byBlock[n]
		for i := len(ls) - 1; i >= 0; i-- {
			s.retractLog(ctx, ls[i].key)
		}
	}
	for n := range s.hashes {
		if n >= fork {
			delete(s.hashes, n)
		}
	}
	for n := range s.headers {
		if n >= fork {
			delete(s.headers, n)
		}
	}
	if fork < s.next {
		s.next = fork
	}
	return nil
}

// retractLog retracts one emitted log: a retraction record when it made a
// trade, a retracted pool event when it changed pool state.
func (s *Source) retractLog(ctx context.Context, k logKey) {
	n, ok := s.emitted[k]
	if !ok {
		return
	}
	delete(s.emitted, k)
	ls := s.byBlock[n]
	for i, e := range ls {
		if e.key != k {
			continue
		}
		s.byBlock[n] = append(ls[:i:i], ls[i+1:]...)
		if len(s.byBlock[n]) == 0 {
			delete(s.byBlock, n)
		}
		if e.pool != nil {
			ev := *e.pool
			ev.Retracted = true
			if !s.send(ctx, sidetopic.PoolEvents.Record(ev.Proto())) {
				return
			}
			if ev.Kind == operators.PoolSwap {
				s.mu.Lock()
				s.stats.Retracted++
				s.mu.Unlock()
				raw, _ := json.Marshal(e.log)
				s.send(ctx, sources.Record{Raw: raw, Reason: fmt.Sprintf("%s: reorged out of block %d (tx %s, log %d)", ReasonRetracted, n, k.tx.Hex(), k.index)})
			}
		}
		return
	}
}

// decode turns one log into a record (nil for a valid mint or burn) and the
// pool event it implies (nil when it is malformed), with the venue's one
// mapping (uniswap.Swaps, uniswap.SwapEvent, uniswap.PositionEvent).
func (s *Source) decode(l *types.Log, tsNs int64) (*sources.Record, *operators.PoolEvent) {
	m := s.pools[l.Address]
	if m == nil {
		return &sources.Record{Reason: "unknown pool: " + strings.ToLower(l.Address.Hex())}, nil
	}
	if len(l.Topics) > 0 && l.Topics[0] != uniswap.TopicSwap {
		p, err := uniswap.DecodePosition(l)
		if err != nil {
			// A Mint or Burn is input of mi.pool-events.v1: dead-lettered there.
			r := sidetopic.PoolEvents.Reject(nil, err.Error())
			return &r, nil
		}
		return nil, uniswap.PositionEvent(m, l.BlockNumber, uint32(l.Index), tsNs, s.hexString(l.TxHash[:]), &p)
	}
	var sw uniswap.SwapFixed
	if err := uniswap.DecodeSwapFixed(l, &sw); err != nil {
		return &sources.Record{Reason: err.Error()}, nil
	}
	rt := s.newRecord()
	t := &rt.t
	if reason := s.swaps.Trade(m, &sw.Amount0, &sw.Amount1, t); reason != "" {
		return &sources.Record{Reason: reason}, uniswap.SwapEvent(m, l.BlockNumber, uint32(l.Index), tsNs, s.hexString(l.TxHash[:]), &sw.SwapWords)
	}
	t.EventTimeNs, t.IngestTimeNs = tsNs, s.cfg.Now().UnixNano()
	t.TradeId, t.LogIndex = s.hexString(l.TxHash[:]), uint32(l.Index) // lower case, as Hash.Hex
	t.Wallet, t.Source = s.hexString(sw.Recipient[:]), s.name
	if err := schemas.Validate(t); err != nil {
		return &sources.Record{Reason: err.Error()}, uniswap.SwapEvent(m, l.BlockNumber, uint32(l.Index), tsNs, t.TradeId, &sw.SwapWords)
	}
	rt.rec.Trade = t
	return &rt.rec, uniswap.SwapEvent(m, l.BlockNumber, uint32(l.Index), tsNs, t.TradeId, &sw.SwapWords)
}

// recordSlab is how many trade records decode allocates at once.
const recordSlab = 64

type recordTrade struct {
	rec sources.Record
	t   schemas.Trade
}

// newRecord returns a zero trade record from the decoder's slab. The
// records of a slab are distinct; one kept trade keeps its slab alive.
func (s *Source) newRecord() *recordTrade {
	if len(s.slab) == 0 {
		s.slab = make([]recordTrade, recordSlab)
	}
	r := &s.slab[0]
	s.slab = s.slab[1:]
	return r
}

// hexString returns "0x" and the lower-case hex of b, packed with other
// such strings into a shared chunk (never written again once handed out).
func (s *Source) hexString(b []byte) string {
	n := 2 + 2*len(b)
	if n > 256 {
		return "0x" + hex.EncodeToString(b)
	}
	if cap(s.arena)-len(s.arena) < n {
		s.arena = make([]byte, 0, 4096)
	}
	k := len(s.arena)
	s.arena = append(s.arena, "0x"...)
	s.arena = hex.AppendEncode(s.arena, b)
	return unsafe.String(&s.arena[k], n)
}
