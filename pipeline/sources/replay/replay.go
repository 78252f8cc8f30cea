// Package replay reads recorded market-data captures and files of normalized
// trades and yields them as a sources.Source, so that the pipeline can be run
// on real history, deterministically: reading a file twice yields the same
// records, byte for byte, because nothing comes from the wall clock.
//
// Accepted formats (see docs/replay.md for layouts and field mappings):
//
//   - binance:     Binance raw websocket captures, `<local_recv_ts> <json>`
//     (spot, USD-M, COIN-M);
//   - coinbase:    cryptofeed JSONL recordings of Coinbase Advanced Trade, and
//     legacy Coinbase Exchange websocket lines (match / last_match);
//   - bybit:       cryptofeed JSONL recordings of Bybit v5 public streams;
//   - okx:         OKX v5 WebSocket captures: cryptofeed recordings (JSONL
//     format 2, and format 1 `<ts>: <json>` files with their HTTP file),
//     `<ts> <json>` lines, bare messages; swap contract values from the
//     recorded instruments answers or PATH#instruments=FILE;
//   - kraken_rest: pages of Kraken's REST /0/public/Trades, one a line or
//     pretty-printed one after another;
//   - hyperliquid: Hyperliquid raw websocket captures, `<local_ns> <json>`;
//   - tardis:      Tardis.dev normalized trades CSV;
//   - uniswap:     Uniswap v3 pool logs, as the raw-logs CSV or an eth_getLogs
//     JSON response;
//   - generic:     the documented normalized trade format, CSV or NDJSON.
//
// The reader frames files — gzip, lines, `<ts> <json>`, the cryptofeed
// record container, CSV, eth_getLogs answers — and hands each venue
// message to its venue's decoder (pipeline/sources/venue/<venue>), the one
// the live connectors use, so a message yields the same records live and in
// replay; the normalized trade formats (Tardis, generic) are read here.
//
// Files ending in .gz (or starting with the gzip magic) are decompressed
// transparently. Every input line the reader cannot turn into a valid trade
// becomes a sources.Record with a Reason; lines that are valid but carry no
// trade (order books, tickers, heartbeats, Mint/Burn events) are skipped and
// counted (see Skipper).
package replay

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/gzip"

	"github.com/marketintel/mi/pipeline/sources"
	js "github.com/marketintel/mi/pipeline/sources/jsonscan"
	"github.com/marketintel/mi/pipeline/sources/venue"
	"github.com/marketintel/mi/pipeline/sources/venue/coinbase"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
)

// ErrUnknownFormat is wrapped by Open's error when it cannot tell the format
// of a file.
var ErrUnknownFormat = errors.New("unknown replay format")

// Formats lists the accepted formats, as Open's errors name them.
const Formats = "binance raw ws (`<ts> <json>`), cryptofeed JSONL (coinbase, bybit, okx), cryptofeed format-1 ws files (okx), " +
	"okx ws messages, kraken REST Trades pages, coinbase legacy ws JSON lines, " +
	"hyperliquid raw ws (`<ts> <json>`), tardis trades CSV, uniswap v3 raw logs CSV (pool from the file name or PATH#pool=0x...), " +
	"eth_getLogs JSON, generic trades CSV (header row) or NDJSON"

// maxLine bounds one input line; a longer line is rejected, not buffered.
const maxLine = 32 << 20

// Skipper is implemented by every Source that Open and OpenAll return.
type Skipper interface {
	// Skipped returns how many valid inputs carried no trade (order book,
	// ticker and heartbeat messages, non-Swap pool events, ...) so far.
	// They are neither trades nor rejected records.
	Skipped() uint64
}

// parser turns one input unit (a line, or one log of an eth_getLogs answer)
// into records: a framer that hands the unit's message to its venue's
// decoder (timestamped, coinbaseCapture, bybitCapture), or the reader of a
// file format that is not a venue's protocol (Tardis, Uniswap logs, the
// generic format).
type parser interface {
	// parse appends the records the unit yields to out. A valid unit that
	// carries no trade yields nothing and counts as skipped.
	parse(unit []byte, out []sources.Record) []sources.Record
	// Skipped counts the skipped units.
	Skipped() uint64
	// SetSource sets the source name stamped on trades.
	SetSource(name string)
}

// unitReader yields the input units of a file.
type unitReader interface {
	// next returns the next unit, valid until the following call, and
	// whether it was cut short at the length limit; io.EOF at the end.
	next() (unit []byte, tooLong bool, err error)
}

// Open opens a capture or trade file and returns it as a Source. The format
// is detected from the file name and its first line; the error names the
// accepted formats when it cannot be. A Uniswap raw-logs CSV takes its pool
// from the file name or from a `#pool=0x...` suffix on path.
//
// Uniswap v3 logs of a pool that is not one of KnownPools are replayed
// when a pool registry is set for the capture's chain (SetPoolRegistry):
// the chain is named by a `#chain=polygon` suffix (combined with a pool as
// `#pool=0x...&chain=polygon`), or is the only chain with a registry.
func Open(path string) (sources.Source, error) {
	path, frag, _ := strings.Cut(path, "#")
	var pool, chainName, instruments string
	if frag != "" {
		for _, kv := range strings.Split(frag, "&") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "pool":
				pool = v
			case "chain":
				chainName = v
			case "instruments":
				instruments = v
			default:
				return nil, fmt.Errorf("cannot open replay file %s: unknown suffix %q: accepted are #pool=0x..., #chain=NAME and #instruments=FILE, joined by &", path, kv)
			}
		}
	}
	reg, err := poolRegistry(chainName)
	if err != nil {
		return nil, fmt.Errorf("cannot open replay file %s: %w", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open replay file: %w", err)
	}
	s, err := newFileSource(f, filepath.Base(path), pool, reg)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	if oc, ok := s.p.(*okxCapture); ok {
		err = oc.loadInstruments(path, instruments)
	} else if instruments != "" {
		err = fmt.Errorf("cannot open replay file %s: #instruments= is for OKX captures only", path)
	}
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// OpenAll opens several files and merges them by event time (see merge).
// Its Name is "replay:" followed by the files' names joined by ",".
func OpenAll(paths []string) (sources.Source, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("cannot open replay: no files given")
	}
	srcs := make([]*fileSource, 0, len(paths))
	for _, p := range paths {
		s, err := Open(p)
		if err != nil {
			for _, o := range srcs {
				_ = o.Close()
			}
			return nil, err
		}
		srcs = append(srcs, s.(*fileSource))
	}
	return newMerge(srcs), nil
}

// sourceName is the file's base name without its extensions:
// "binance_spot_BTCUSDT_ws_raw_2024-08-08.txt.gz" -> "binance_spot_BTCUSDT_ws_raw_2024-08-08".
func sourceName(base string) string {
	for {
		ext := strings.ToLower(filepath.Ext(base))
		switch ext {
		case ".gz", ".txt", ".csv", ".json", ".jsonl", ".ndjson", ".dat", ".tsv":
			base = base[:len(base)-len(ext)]
			continue
		}
		return base
	}
}

type fileSource struct {
	name    string
	closers []io.Closer
	r       unitReader
	p       parser
	pending []sources.Record
	pos     int
	err     error
}

func newFileSource(f io.ReadCloser, base, pool string, reg *uniswap.Registry) (*fileSource, error) {
	s := &fileSource{name: "replay:" + sourceName(base), closers: []io.Closer{f}}
	br := bufio.NewReaderSize(f, 1<<16)
	var rd io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("cannot open %s: bad gzip: %w", base, err)
		}
		s.closers = append(s.closers, zr)
		rd = zr
	}
	lr := newLineReader(rd)
	first, err := lr.peekFirst()
	if err == io.EOF {
		s.r, s.p = lr, &emptyParser{}
		return s, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", base, err)
	}
	p, ur, err := detect(base, pool, reg, first, lr, rd)
	if err != nil {
		return nil, err
	}
	p.SetSource(s.name)
	s.r, s.p = ur, p
	return s, nil
}

// Name implements sources.Source.
func (s *fileSource) Name() string { return s.name }

// Skipped implements Skipper.
func (s *fileSource) Skipped() uint64 { return s.p.Skipped() }

// Next implements sources.Source.
func (s *fileSource) Next(ctx context.Context) (sources.Record, error) {
	for s.pos >= len(s.pending) {
		if s.err != nil {
			return sources.Record{}, s.err
		}
		if err := ctx.Err(); err != nil {
			return sources.Record{}, err
		}
		s.pending, s.pos = s.pending[:0], 0
		unit, tooLong, err := s.r.next()
		if err != nil {
			if err != io.EOF {
				err = fmt.Errorf("cannot read %s: %w", s.name, err)
			}
			s.err = err
			continue
		}
		if tooLong {
			s.pending = append(s.pending, venue.Reject(unit[:min(len(unit), 4096)], fmt.Sprintf("line too long: over %d bytes", maxLine)))
			continue
		}
		s.pending = s.p.parse(unit, s.pending)
	}
	rec := s.pending[s.pos]
	s.pending[s.pos] = sources.Record{}
	s.pos++
	return rec, nil
}

// Close implements sources.Source.
func (s *fileSource) Close() error {
	var first error
	for i := len(s.closers) - 1; i >= 0; i-- {
		if err := s.closers[i].Close(); err != nil && first == nil {
			first = err
		}
	}
	s.closers = nil
	return first
}

// lineReader splits its input into lines without their line ending. Blank
// lines are dropped.
type lineReader struct {
	r       *bufio.Reader
	buf     []byte
	first   []byte
	hasPeek bool
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 1<<16)}
}

// peekFirst returns the first non-blank line; next returns it again.
func (lr *lineReader) peekFirst() ([]byte, error) {
	line, tooLong, err := lr.next()
	if err != nil {
		return nil, err
	}
	_ = tooLong
	lr.first = append([]byte(nil), line...)
	lr.hasPeek = true
	return lr.first, nil
}

func (lr *lineReader) next() ([]byte, bool, error) {
	if lr.hasPeek {
		lr.hasPeek = false
		return lr.first, len(lr.first) >= maxLine, nil
	}
	for {
		line, tooLong, err := lr.readLine()
		if err != nil {
			return nil, false, err
		}
		line = bytes.TrimRight(line, "\r")
		if len(bytes.TrimSpace(line)) == 0 && !tooLong {
			continue
		}
		return line, tooLong, nil
	}
}

func (lr *lineReader) readLine() ([]byte, bool, error) {
	line, err := lr.r.ReadSlice('\n')
	if err == nil {
		return line[:len(line)-1], false, nil
	}
	if err == io.EOF {
		if len(line) == 0 {
			return nil, false, io.EOF
		}
		return line, false, nil
	}
	if err != bufio.ErrBufferFull {
		return nil, false, err
	}
	lr.buf = append(lr.buf[:0], line...)
	for {
		line, err = lr.r.ReadSlice('\n')
		if len(lr.buf) < maxLine {
			lr.buf = append(lr.buf, line...)
		}
		switch err {
		case nil:
			lr.buf = bytes.TrimSuffix(lr.buf, []byte{'\n'})
			return lr.buf, len(lr.buf) >= maxLine, nil
		case io.EOF:
			return lr.buf, len(lr.buf) >= maxLine, nil
		case bufio.ErrBufferFull:
			continue
		default:
			return nil, false, err
		}
	}
}

type emptyParser struct{ venue.Base }

func (p *emptyParser) parse(unit []byte, out []sources.Record) []sources.Record { return out }

// detect picks the parser for a file from its name and first line, and
// returns the unit reader it reads with.
func detect(name, pool string, reg *uniswap.Registry, first []byte, lr *lineReader, rd io.Reader) (parser, unitReader, error) {
	lname := strings.ToLower(name)
	unknown := func(why string) error {
		return fmt.Errorf("cannot open %s: %w (%s); accepted formats: %s", name, ErrUnknownFormat, why, Formats)
	}
	trimmed := bytes.TrimSpace(first)
	switch {
	case isCryptofeed1(trimmed):
		if strings.Contains(lname, "okx") || bytes.Contains(trimmed, []byte("okx.com")) {
			return newOKXCapture(), lr, nil
		}
		return nil, nil, unknown("cryptofeed format-1 recording of an exchange other than OKX")
	case startsWithTimestamp(trimmed):
		_, msg, _ := bytes.Cut(trimmed, []byte{' '})
		switch {
		case strings.Contains(lname, "hyperliquid"):
			return newHyperliquidCapture(), lr, nil
		case strings.Contains(lname, "binance"):
			return newBinanceCapture(lname), lr, nil
		case js.HasKey(msg, "stream") || js.HasKey(msg, "e"):
			return newBinanceCapture(lname), lr, nil
		case js.HasKey(msg, "channel"):
			return newHyperliquidCapture(), lr, nil
		case strings.Contains(lname, "okx") || js.HasKey(msg, "arg") || js.HasKey(msg, "event"):
			return newOKXCapture(), lr, nil
		}
		return nil, nil, unknown("timestamped JSON lines of neither Binance nor Hyperliquid")
	case len(trimmed) > 0 && trimmed[0] == '{':
		if js.HasKey(trimmed, "t") && js.HasKey(trimmed, "exchange") {
			ex := strings.ToUpper(js.StringField(trimmed, "exchange"))
			switch ex {
			case "COINBASE":
				return newCoinbaseCapture(), lr, nil
			case "BYBIT":
				return newBybitCapture(), lr, nil
			case "OKX":
				return newOKXCapture(), lr, nil
			}
			return nil, nil, unknown(fmt.Sprintf("cryptofeed recording of unsupported exchange %q", ex))
		}
		if isKrakenPage(trimmed) {
			return newKrakenPages(), lr, nil
		}
		if js.HasKey(trimmed, "arg") && js.HasKey(trimmed, "data") || strings.Contains(lname, "okx") && (js.HasKey(trimmed, "arg") || js.HasKey(trimmed, "event")) {
			return newOKXCapture(), lr, nil
		}
		if string(trimmed) == "{" && krakenPageAhead(lr) {
			return newKrakenPages(), newDocReader(lr), nil
		}
		if js.HasKey(trimmed, "jsonrpc") || js.HasKey(trimmed, "result") || bytes.HasPrefix(trimmed, []byte(`{"jsonrpc"`)) {
			ur, err := newLogsReader(lr, rd)
			if err != nil {
				return nil, nil, fmt.Errorf("cannot open %s: %w", name, err)
			}
			return newUniswapParser("", reg), ur, nil
		}
		if js.HasKey(trimmed, "type") && (strings.Contains(lname, "coinbase") || coinbase.IsLegacyType(js.StringField(trimmed, "type"))) {
			return newCoinbaseCapture(), lr, nil
		}
		if js.HasKey(trimmed, "venue") && js.HasKey(trimmed, "symbol") {
			return newGenericJSONParser(), lr, nil
		}
		if !js.Valid(trimmed) && (strings.HasSuffix(lname, ".ndjson") || strings.HasSuffix(lname, ".jsonl") || strings.Contains(lname, "trades")) {
			// A damaged first line of a normalized NDJSON file.
			return newGenericJSONParser(), lr, nil
		}
		if strings.Contains(lname, "eth_getlogs") {
			ur, err := newLogsReader(lr, rd)
			if err != nil {
				return nil, nil, fmt.Errorf("cannot open %s: %w", name, err)
			}
			return newUniswapParser("", reg), ur, nil
		}
		return nil, nil, unknown("JSON lines of no known layout")
	case len(trimmed) > 0 && trimmed[0] == '[':
		return nil, nil, unknown("a JSON array (freqtrade lists are not supported)")
	}
	cols := splitCSV(string(trimmed), nil)
	switch {
	case sameColumns(cols, tardisColumns):
		p, err := newTardisParser(cols)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot open %s: %w", name, err)
		}
		return p, lr, nil
	case sameColumns(cols, uniswapCSVColumns):
		addr, err := poolFor(lname, pool, reg)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot open %s: %w", name, err)
		}
		p := newUniswapParser(addr, reg)
		if err := p.csvHeader(cols); err != nil {
			return nil, nil, fmt.Errorf("cannot open %s: %w", name, err)
		}
		return p, lr, nil
	case hasColumns(cols, genericRequired):
		p, err := newGenericCSVParser(cols)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot open %s: %w", name, err)
		}
		return p, lr, nil
	}
	return nil, nil, unknown("first line is no known header or message")
}

// startsWithTimestamp reports whether a line looks like `<digits> {`.
func startsWithTimestamp(b []byte) bool {
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i >= 9 && i < len(b) && b[i] == ' '
}

func sameColumns(cols, want []string) bool {
	if len(cols) != len(want) {
		return false
	}
	return hasColumns(cols, want)
}

func hasColumns(cols, want []string) bool {
	for _, w := range want {
		found := false
		for _, c := range cols {
			if strings.EqualFold(strings.TrimSpace(c), w) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
