package replay

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sidetopic"
	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/chain"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/schemas"
)

// Pool is a Uniswap v3 pool the replay reader knows the tokens of.
type Pool struct {
	// Address is the pool address, lower case.
	Address string
	// Chain is the chain the pool lives on.
	Chain string
	// Token0 and Token1 are the pool's token addresses, lower case, in the
	// pool's order (token0 < token1).
	Token0, Token1 string
	// Name is e.g. "USDC/WETH 0.05%".
	Name string
	// Fee (hundredths of a bip) and TickSpacing are the pool's immutables.
	Fee         uint32
	TickSpacing int32
}

// KnownPools are the pools whose logs Open decodes. Token decimals come from
// the symbol registry.
var KnownPools = []Pool{
	{"0x88e6a0c2ddd26feeb64f039a2c41296fcb3f5640", "ethereum", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", "USDC/WETH 0.05%", 500, 10},
	{"0x8ad599c3a0ff1de082011efddc58f1908eb6e6d8", "ethereum", "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2", "USDC/WETH 0.3%", 3000, 60},
}

// Event signatures (topic0) of Uniswap v3 pool events, as lower-case hex.
var (
	topicSwap = uniswap.TopicSwap.Hex()
	topicMint = uniswap.TopicMint.Hex()
	topicBurn = uniswap.TopicBurn.Hex()
)

// swapEvent decodes the data of a Swap log the fixed-width decoder refuses.
var swapEvent = uniswap.PoolABI.Events["Swap"]

// uniswapCSVColumns is the header of the demeter-fetch raw logs CSV.
var uniswapCSVColumns = []string{"block_number", "block_timestamp", "transaction_hash", "transaction_index", "log_index", "topics", "data"}

// poolFor picks the pool of a raw-logs CSV: the explicit `#pool=` address,
// else the known pool whose address (or its first 6 characters, "0x88e6")
// appears in the lower-cased file name.
func poolFor(lname, explicit string, reg *uniswap.Registry) (string, error) {
	if explicit != "" {
		explicit = strings.ToLower(explicit)
		if _, ok := lookupPool(explicit); !ok && reg == nil {
			return "", fmt.Errorf("unknown pool %s: known pools are %s", explicit, knownPoolList())
		}
		return explicit, nil
	}
	found := ""
	for _, p := range KnownPools {
		if strings.Contains(lname, p.Address) || strings.Contains(lname, p.Address[:6]) {
			if found != "" {
				return "", fmt.Errorf("ambiguous pool in file name: append #pool=0x... to the path")
			}
			found = p.Address
		}
	}
	if found == "" {
		return "", fmt.Errorf("a raw logs CSV has no pool column: name a known pool (%s) in the file name or append #pool=0x... to the path", knownPoolList())
	}
	return found, nil
}

func knownPoolList() string {
	var b strings.Builder
	for i, p := range KnownPools {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(p.Address + " " + p.Name)
	}
	return b.String()
}

func lookupPool(addr string) (Pool, bool) {
	for _, p := range KnownPools {
		if p.Address == addr {
			return p, true
		}
	}
	return Pool{}, false
}

// uniswapParser decodes Uniswap v3 pool logs. Swap events become a record
// of mi.pool-events.v1 (the pool state after the swap) followed by a trade;
// Mint and Burn events become records of mi.pool-events.v1; Collect and
// any other event are skipped.
type uniswapParser struct {
	venue.Base
	pool   string // pool of a raw-logs CSV; "" for eth_getLogs (per log)
	idx    [7]int
	fields []string
	topics [][]byte
	// canonical is true when the CSV header has uniswapCSVColumns in
	// their order, the rows csvLogFast reads.
	canonical bool
	// rowsGeneral turns the row scanners (csvLogFast, jsonLogFast) off and
	// leaves the fixed-width Swap decoder on (the benchmark's "before").
	rowsGeneral bool
	// scanned counts the logs the row scanners read.
	scanned uint64
	// lastPool caches the tokens of the last pool a swap came from.
	lastPool uniPoolTokens
	// swaps is the venue's mapping of a swap to a trade.
	swaps uniswap.Swaps
	// reg resolves the pools that are not KnownPools; nil rejects them.
	reg *uniswap.Registry
}

func newUniswapParser(pool string, reg *uniswap.Registry) *uniswapParser {
	return &uniswapParser{pool: pool, reg: reg}
}

func (p *uniswapParser) csvHeader(cols []string) error {
	m, err := columnIndex(cols)
	if err != nil {
		return err
	}
	for i, c := range uniswapCSVColumns {
		j, ok := m[c]
		if !ok {
			return fmt.Errorf("bad header: missing column %q", c)
		}
		p.idx[i] = j
	}
	p.canonical = p.idx == [7]int{0, 1, 2, 3, 4, 5, 6}
	return nil
}

// uniLog is one decoded pool log.
type uniLog struct {
	pool      string
	block     uint64 // 0 when the row's block number is not a number
	blockTsNs int64
	txHash    string
	logIndex  uint32
	topics    [][]byte // hex strings with 0x; read only (they may alias the unit)
	data      []byte   // hex string with 0x; read only (it may alias the unit)
}

// parse reads one log with the row scanner of its format (uniscan.go) and,
// when the scanner does not take it, with the reference csvLog or jsonLog,
// which makes the rejections.
func (p *uniswapParser) parse(unit []byte, out []sources.Record) []sources.Record {
	var l uniLog
	reason, fast := "", false
	if p.FastPath() && !p.rowsGeneral {
		if p.pool != "" {
			fast = p.canonical && p.csvLogFast(unit, &l)
		} else {
			var skip bool
			if skip, fast = p.jsonLogFast(unit, &l); skip {
				reason = "skip"
			}
		}
	}
	switch {
	case fast:
		p.scanned++
	case p.pool != "":
		reason = p.csvLog(unit, &l)
	default:
		reason = p.jsonLog(unit, &l)
	}
	if reason == "skip" {
		p.Skip(nil)
		return out
	}
	if reason != "" {
		return append(out, venue.Reject(unit, reason))
	}
	if len(l.topics) == 0 {
		return append(out, venue.Reject(unit, "malformed log: no topics"))
	}
	t0 := l.topics[0]
	switch {
	case string(t0) == topicSwap || strings.EqualFold(js.BStr(t0), topicSwap):
		return p.swap(unit, &l, out, fast)
	case strings.EqualFold(js.BStr(t0), topicMint), strings.EqualFold(js.BStr(t0), topicBurn):
		return p.position(unit, &l, out)
	}
	p.Skip(nil) // Collect, Flash, ...
	return out
}

func (p *uniswapParser) csvLog(line []byte, l *uniLog) string {
	p.fields = splitCSV(string(line), p.fields)
	f := p.fields
	if len(f) != len(uniswapCSVColumns) {
		return fmt.Sprintf("malformed csv: %d fields, want %d", len(f), len(uniswapCSVColumns))
	}
	get := func(i int) string { return strings.TrimSpace(f[p.idx[i]]) }
	if get(0) == "block_number" {
		return "skip" // the header row
	}
	l.pool = p.pool
	l.block, _ = strconv.ParseUint(get(0), 10, 64) // 0 if not a number: only the pool events carry it
	ts, ok := blockTime(get(1))
	if !ok {
		return "bad timestamp: block_timestamp is not `YYYY-MM-DD hh:mm:ss` (UTC) or that with an offset (`+00:00`, `Z`, a `T` separator)"
	}
	l.blockTsNs = ts.UnixNano()
	l.txHash = strings.ToLower(get(2))
	li, err := strconv.ParseUint(get(4), 10, 32)
	if err != nil {
		return "bad log index: not a 32-bit unsigned integer"
	}
	l.logIndex = uint32(li)
	// topics is a Python list: ['0x..', '0x..'].
	ts2 := strings.TrimSpace(get(5))
	if !strings.HasPrefix(ts2, "[") || !strings.HasSuffix(ts2, "]") {
		return "malformed topics: not a list"
	}
	p.topics = p.topics[:0]
	for rest := ts2[1 : len(ts2)-1]; ; {
		t, after, more := strings.Cut(rest, ",")
		t = strings.Trim(strings.TrimSpace(t), `'"`)
		if t != "" {
			p.topics = append(p.topics, []byte(t))
		}
		if !more {
			break
		}
		rest = after
	}
	l.topics = p.topics
	l.data = []byte(get(6))
	return ""
}

func (p *uniswapParser) jsonLog(obj []byte, l *uniLog) string {
	var addr, topics, data, ts, tx, li, bn, removed []byte
	err := js.EachField(obj, func(k, v []byte) bool {
		switch string(k) {
		case "address":
			addr, _, _ = js.String(v, nil)
		case "topics":
			topics = v
		case "data":
			data, _, _ = js.String(v, nil)
		case "blockTimestamp":
			ts, _, _ = js.String(v, nil)
		case "transactionHash":
			tx, _, _ = js.String(v, nil)
		case "logIndex":
			li, _, _ = js.String(v, nil)
		case "blockNumber":
			bn, _, _ = js.String(v, nil)
		case "removed":
			removed = v
		}
		return true
	})
	if err != nil {
		return "malformed json"
	}
	if string(removed) == "true" {
		return "skip" // reorged out
	}
	l.pool = strings.ToLower(string(addr))
	if _, ok := lookupPool(l.pool); !ok && p.reg == nil {
		return "unknown pool: " + l.pool + " (configure its chain to replay any pool)"
	}
	sec, ok := hexUint(ts)
	if !ok || sec > 1<<40 {
		return "bad timestamp: blockTimestamp is not a hex quantity"
	}
	l.blockTsNs = int64(sec) * 1e9
	n, ok := hexUint(li)
	if !ok || n > 1<<32-1 {
		return "bad log index: logIndex is not a 32-bit hex quantity"
	}
	l.logIndex = uint32(n)
	l.block, _ = hexUint(bn) // 0 if absent or not a quantity: only the pool events carry it
	l.txHash = strings.ToLower(string(tx))
	p.topics = p.topics[:0]
	if js.EachElem(topics, func(v []byte) bool {
		s, _, ok := js.String(v, nil)
		if ok {
			p.topics = append(p.topics, s)
		}
		return true
	}) != nil {
		return "malformed log: topics is not an array"
	}
	l.topics = p.topics
	l.data = data
	return ""
}

// blockTimeLayouts are the block_timestamp layouts csvLog accepts: UTC
// without an offset (demeter-fetch) and with one (BigQuery, Dune exports:
// "2024-01-05 00:00:23+00:00", "2024-01-05T00:00:23Z").
var blockTimeLayouts = []string{"2006-01-02 15:04:05", "2006-01-02 15:04:05Z07:00", "2006-01-02T15:04:05Z07:00", "2006-01-02 15:04:05 Z07:00"}

func blockTime(s string) (time.Time, bool) {
	for _, l := range blockTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func hexUint(b []byte) (uint64, bool) {
	if len(b) < 3 || b[0] != '0' || (b[1] != 'x' && b[1] != 'X') || len(b) > 18 {
		return 0, false
	}
	n, err := strconv.ParseUint(js.BStr(b[2:]), 16, 64)
	return n, err == nil
}

func decodeHex(b []byte) ([]byte, bool) {
	if len(b) < 2 || b[0] != '0' || (b[1] != 'x' && b[1] != 'X') || len(b)%2 != 0 {
		return nil, false
	}
	out := make([]byte, (len(b)-2)/2)
	if _, err := hex.Decode(out, b[2:]); err != nil {
		return nil, false
	}
	return out, true
}

// hexWord decodes the 0x-prefixed hex string s into dst, which it must fill
// exactly; it is decodeHex without allocating.
func hexWord(dst, s []byte) bool {
	if len(s) != 2+2*len(dst) || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return false
	}
	return decodeHexInto(dst, s[2:])
}

// hexAddress is "0x" + hex.EncodeToString(a) in one allocation.
func hexAddress(a []byte) string {
	var buf [2 + 2*20]byte
	buf[0], buf[1] = '0', 'x'
	n := 2 + hex.Encode(buf[2:], a)
	return string(buf[:n])
}

// swap decodes a Swap log into a trade. fast is true when a row scanner
// read the log: the trade and its wallet then come from the parser's slab
// and arena; the trade is the same.
func (p *uniswapParser) swap(raw []byte, l *uniLog, out []sources.Record, fast bool) []sources.Record {
	pt, reason := p.tokensOf(l.pool)
	if pt == nil {
		return append(out, venue.Reject(raw, reason))
	}
	if len(l.topics) != 3 {
		return append(out, venue.Reject(raw, "malformed swap: want 3 topics"))
	}
	var recipient [32]byte
	if !hexWord(recipient[:], l.topics[2]) {
		return append(out, venue.Reject(raw, "malformed swap: recipient topic is not a 32-byte word"))
	}
	// The fixed-width decoder reads the canonical data; the ABI decodes what
	// it refuses (and makes the rejections), as it did before.
	var w uniswap.SwapWords
	var buf [5 * 32]byte
	var ev *operators.PoolEvent
	if p.FastPath() && hexWord(buf[:], l.data) && uniswap.DecodeSwapData(buf[:], &w) {
		ev = uniswap.SwapEvent(pt.meta, l.block, l.logIndex, l.blockTsNs, l.txHash, &w)
		p.FastTrades++
	} else {
		data, ok := decodeHex(l.data)
		if !ok {
			return append(out, venue.Reject(raw, "malformed swap: data is not hex"))
		}
		vals, err := swapEvent.Inputs.NonIndexed().Unpack(data)
		if err != nil || len(vals) != 5 {
			return append(out, venue.Reject(raw, "malformed swap: cannot decode data"))
		}
		a0, ok0 := vals[0].(*big.Int)
		a1, ok1 := vals[1].(*big.Int)
		if !ok0 || !ok1 {
			return append(out, venue.Reject(raw, "malformed swap: amounts are not integers"))
		}
		sqrtP, ok2 := vals[2].(*big.Int)
		liq, ok3 := vals[3].(*big.Int)
		tick, ok4 := vals[4].(*big.Int)
		if !ok2 || !ok3 || !ok4 || !uniswap.AmountWord(a0, &w.Amount0) || !uniswap.AmountWord(a1, &w.Amount1) {
			panic("BUG: the Swap ABI unpacks to unexpected types or ranges")
		}
		ev = &operators.PoolEvent{Meta: pt.meta, Kind: operators.PoolSwap, Block: l.block, LogIndex: l.logIndex, TimeNs: l.blockTsNs,
			TxHash: l.txHash, SqrtPriceX96: sqrtP, Liquidity: liq, Tick: int32(tick.Int64())}
	}
	// The pool's state after the swap, for the liquidity view; it comes
	// before the trade, as the EVM connector yields it.
	out = append(out, sidetopic.PoolEvents.Record(ev.Proto()))
	var t *schemas.Trade
	if fast {
		t = p.NewTrade()
		var w [2 + 2*20]byte
		w[0], w[1] = '0', 'x'
		hex.Encode(w[2:], recipient[12:])
		t.Wallet = p.Str(w[:])
	} else {
		t = &schemas.Trade{Wallet: hexAddress(recipient[12:])}
	}
	if reason := p.swaps.Trade(pt.meta, &w.Amount0, &w.Amount1, t); reason != "" {
		return append(out, venue.Reject(raw, reason))
	}
	t.EventTimeNs = l.blockTsNs
	t.TradeId = l.txHash
	t.LogIndex = l.logIndex
	return p.Emit(out, raw, t, pt.sym)
}

// position decodes a Mint or Burn log into a record of mi.pool-events.v1; a
// malformed one is dead-lettered there.
func (p *uniswapParser) position(raw []byte, l *uniLog, out []sources.Record) []sources.Record {
	pt, reason := p.tokensOf(l.pool)
	if pt == nil {
		return append(out, sidetopic.PoolEvents.Reject(append([]byte(nil), raw...), reason))
	}
	lg := types.Log{Topics: make([]common.Hash, len(l.topics))}
	for i, t := range l.topics {
		if !hexWord(lg.Topics[i][:], t) {
			return append(out, sidetopic.PoolEvents.Reject(append([]byte(nil), raw...), "malformed log: topic is not a 32-byte word"))
		}
	}
	data, ok := decodeHex(l.data)
	if !ok {
		return append(out, sidetopic.PoolEvents.Reject(append([]byte(nil), raw...), "malformed log: data is not hex"))
	}
	lg.Data = data
	pos, err := uniswap.DecodePosition(&lg)
	if err != nil {
		return append(out, sidetopic.PoolEvents.Reject(append([]byte(nil), raw...), err.Error()))
	}
	ev := uniswap.PositionEvent(pt.meta, l.block, l.logIndex, l.blockTsNs, l.txHash, &pos)
	return append(out, sidetopic.PoolEvents.Record(ev.Proto()))
}

// uniPoolTokens are a known pool's tokens as the trades need them, and
// its description as its pool events carry it.
type uniPoolTokens struct {
	address string
	baseIs0 bool // token0 is the base
	sym     venue.Sym
	meta    *operators.PoolMeta
}

// tokensOf returns the tokens of the pool at addr (lower case): a known
// pool's from the symbol registry, any other pool's from the parser's pool
// registry (read from its chain once), from the parser's cache of the last
// pool (a file or an eth_getLogs answer is mostly one pool). reason says
// why there are none: an unknown pool without a registry, a pool the chain
// cannot describe, or one not quoted in a USD stablecoin or WETH.
func (p *uniswapParser) tokensOf(addr string) (*uniPoolTokens, string) {
	if p.lastPool.address == addr {
		return &p.lastPool, ""
	}
	var m *operators.PoolMeta
	if pool, ok := lookupPool(addr); ok {
		m = knownPoolMeta(pool)
	} else if p.reg == nil {
		return nil, "unknown pool: " + addr
	} else {
		var err error
		if m, err = p.reg.Pool(context.Background(), addr); err != nil {
			return nil, "unknown pool: " + addr + ": " + err.Error()
		}
	}
	baseIs0, ok := m.BaseIsToken0()
	if !ok {
		return nil, fmt.Sprintf("unsupported pool: %s %s/%s is not quoted in a USD stablecoin or WETH", addr, m.Ticker0, m.Ticker1)
	}
	pt := uniPoolTokens{address: addr, baseIs0: baseIs0, meta: m}
	base, quote := m.Ticker1, m.Ticker0
	if baseIs0 {
		base, quote = m.Ticker0, m.Ticker1
	}
	pt.sym = venue.Sym{VenueSymbol: base + "/" + quote, Symbol: m.BaseSymbol(), OK: true}
	p.lastPool = pt
	return &p.lastPool, ""
}

// knownPoolMeta describes a known pool from the symbol registry.
func knownPoolMeta(pool Pool) *operators.PoolMeta {
	t0, okT0 := symbols.LookupToken(pool.Chain, pool.Token0)
	t1, okT1 := symbols.LookupToken(pool.Chain, pool.Token1)
	if !okT0 || !okT1 {
		panic("BUG: known pool " + pool.Address + " has tokens the registry does not list")
	}
	return &operators.PoolMeta{Chain: pool.Chain, Address: pool.Address, Name: pool.Name, Fee: pool.Fee, TickSpacing: pool.TickSpacing,
		Token0: pool.Token0, Token1: pool.Token1, Ticker0: t0.Ticker, Ticker1: t1.Ticker, Decimals0: t0.Decimals, Decimals1: t1.Decimals,
		Symbol0: t0.Symbol, Symbol1: t1.Symbol, Resolved: true}
}

// logsReader yields the logs of an eth_getLogs JSON-RPC answer
// ({"jsonrpc":"2.0","id":1,"result":[{...},...]}) one at a time. The whole
// document is read into memory.
type logsReader struct {
	doc  []byte
	i    int // position in doc of the next element or the closing ']'
	done bool
}

func newLogsReader(lr *lineReader, rd io.Reader) (*logsReader, error) {
	var buf bytes.Buffer
	buf.Write(lr.first)
	buf.WriteByte('\n')
	lr.hasPeek = false
	if _, err := io.Copy(&buf, lr.r); err != nil {
		return nil, fmt.Errorf("cannot read eth_getLogs answer: %w", err)
	}
	doc := buf.Bytes()
	var result []byte
	var rpcErr []byte
	if err := js.EachField(doc, func(k, v []byte) bool {
		switch string(k) {
		case "result":
			result = v
		case "error":
			rpcErr = v
		}
		return true
	}); err != nil {
		return nil, fmt.Errorf("cannot decode eth_getLogs answer: %w", err)
	}
	if rpcErr != nil && string(rpcErr) != "null" {
		return nil, fmt.Errorf("cannot replay eth_getLogs answer: it is an error: %.200s", rpcErr)
	}
	if len(result) == 0 || result[0] != '[' {
		return nil, errors.New("cannot decode eth_getLogs answer: result is not an array")
	}
	return &logsReader{doc: result, i: js.SkipWS(result, 1)}, nil
}

func (r *logsReader) next() ([]byte, bool, error) {
	if r.done {
		return nil, false, io.EOF
	}
	r.i = js.SkipWS(r.doc, r.i)
	if r.i < len(r.doc) && r.doc[r.i] == ']' {
		r.done = true
		return nil, false, io.EOF
	}
	start := r.i
	end, err := js.SkipValue(r.doc, start, 1)
	if err != nil {
		panic("BUG: eth_getLogs result validated but does not scan")
	}
	r.i = js.SkipWS(r.doc, end)
	if r.i < len(r.doc) && r.doc[r.i] == ',' {
		r.i++
	}
	return r.doc[start:end], false, nil
}

// registries are the pool registries of the chains configured for replay,
// by chain name.
var registries struct {
	sync.Mutex
	m map[string]*uniswap.Registry
}

// SetPoolRegistry makes Open resolve, through r, the Uniswap v3 pools of
// r's chain that are not KnownPools (mi backfill sets one per chain of the
// sources configuration). A later registry of the same chain replaces it;
// nil removes the chain's.
func SetPoolRegistry(chainName string, r *uniswap.Registry) {
	registries.Lock()
	defer registries.Unlock()
	if registries.m == nil {
		registries.m = map[string]*uniswap.Registry{}
	}
	if r == nil {
		delete(registries.m, chainName)
		return
	}
	registries.m[chainName] = r
}

// poolRegistry returns the registry of chainName, or with chainName ""
// the only registry set (nil when none is set); a named chain without one
// is an error naming the chains that have one.
func poolRegistry(chainName string) (*uniswap.Registry, error) {
	registries.Lock()
	defer registries.Unlock()
	if chainName == "" {
		if len(registries.m) == 1 {
			for _, r := range registries.m {
				return r, nil
			}
		}
		return nil, nil
	}
	if r, ok := registries.m[chainName]; ok {
		return r, nil
	}
	names := make([]string, 0, len(registries.m))
	for n := range registries.m {
		names = append(names, n)
	}
	sort.Strings(names)
	return nil, fmt.Errorf("chain %q has no RPC endpoint configured for resolving pools (configured: %v)", chainName, names)
}

// UseChains sets a pool registry (SetPoolRegistry) for every chain of set,
// reading through its client: the Uniswap v3 logs of any pool on those
// chains replay. mi backfill calls it with the chains of --sources-config.
func UseChains(set *chain.Set) error {
	for _, name := range set.Chains() {
		c, err := set.Get(name)
		if err != nil {
			return fmt.Errorf("cannot use chain %s for pools: %w", name, err)
		}
		SetPoolRegistry(name, uniswap.NewRegistry(name, func(ctx context.Context, to common.Address, data []byte) ([]byte, error) {
			return c.Call(ctx, ethereum.CallMsg{To: &to, Data: data}, nil, nil)
		}))
	}
	return nil
}
