// Package cex holds the live WebSocket connectors of the exchanges: Coinbase
// Advanced Trade, Binance spot, Kraken WebSocket v2, Bybit v5, Hyperliquid
// and OKX v5. Each connector is a sources.Source: it dials the venue,
// subscribes to the trade channel of its markets, keeps the connection alive
// (venue pings, idle timeout), reconnects with exponential backoff and full
// jitter, drops duplicated trades, detects missed trades where the venue's
// trade ids are consecutive (yielding them, and every disconnect, as gap
// records of the affected symbols), and turns every message it cannot use into a
// rejected record with a reason (the pipeline dead-letters those) without
// dropping the connection. Each venue's messages are decoded by its venue
// decoder (pipeline/sources/venue/<venue>), the one the capture reader
// uses too, so a message yields the same trade live and in replay.
// Aggressor-side semantics per venue are in docs/venues.md.
package cex

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/marketintel/mi/pipeline/sources"
	"github.com/marketintel/mi/pipeline/sources/poll"
	"github.com/marketintel/mi/pipeline/symbols"
	"github.com/marketintel/mi/schemas"
)

// Observer receives a connector's operational events (sources.Observer;
// *pipeline.Stats implements it).
type Observer = sources.Observer

type nopObserver struct{}

func (nopObserver) SetState(string, string, error)   {}
func (nopObserver) Reconnect(string)                 {}
func (nopObserver) Gap(string, int64, int64, string) {}

// Config configures one connector. Zero durations and sizes take the
// defaults below.
type Config struct {
	// Name is the source name in logs, /status and checkpoints; default
	// "<protocol>:<venue>".
	Name string
	// Protocol is one of Protocols().
	Protocol string
	// Venue selects the market type where a protocol has several (see
	// NewDecoder); empty = spot.
	Venue string
	// URL of the venue's WebSocket endpoint; default the venue's public one.
	URL string
	// Markets are venue symbols, e.g. "BTC-USD" (Coinbase), "BTCUSDT"
	// (Binance, Bybit), "BTC/USD" (Kraken), "BTC" (Hyperliquid).
	Markets []string
	// MaxMessageBytes bounds one message: a longer one is discarded and
	// dead-lettered as "oversized message" (default 16 MiB: a Coinbase
	// level2 snapshot exceeds 1 MiB).
	MaxMessageBytes int64
	// PingInterval paces keep-alive pings (default 20 s).
	PingInterval time.Duration
	// IdleTimeout drops a connection that received nothing for this long
	// (default 60 s).
	IdleTimeout time.Duration
	// DialTimeout bounds one connection attempt (default 10 s).
	DialTimeout time.Duration
	// BackoffMin and BackoffMax bound the delay before reconnecting: the
	// n-th consecutive failure waits a uniformly random time in
	// [BackoffMin/2, min(BackoffMax, BackoffMin·2^n)] (defaults 500 ms, 30 s).
	BackoffMin, BackoffMax time.Duration
	// DedupeWindow is how many recent trade ids are remembered to drop
	// duplicates (default 65536).
	DedupeWindow int
	// GapGrace is how many further trades of a market a missing trade id may
	// take to arrive (reordering) before it is recorded as a gap (default 256).
	GapGrace int
	// InstrumentsURL is the venue's REST endpoint of instrument details,
	// read before each connection (OKX: contract values of swaps, default
	// https://www.okx.com/api/v5/public/instruments).
	InstrumentsURL string
	// HTTP makes the REST requests (default: a poll.Client with the
	// process's host limits).
	HTTP     *poll.Client
	Observer Observer
	Logger   *slog.Logger
	// Now is the wall clock that stamps ingest times (default time.Now).
	Now func() time.Time
}

// venue is what a connector needs to know about one venue's protocol.
type venue struct {
	url string
	// subscribe returns the messages that subscribe to markets' trades.
	subscribe func(markets []string) [][]byte
	// dialURL, when set, adds the markets to the configured URL.
	dialURL func(url string, markets []string) string
	// ping is the application-level ping message; nil sends WebSocket pings.
	ping []byte
	// seqIDs is set when trade ids are consecutive integers per market, so
	// that a jump is a missed trade.
	seqIDs bool
	// prepare, when set, runs before each connection and fetches what the
	// decoder needs (OKX: contract values); an error fails the attempt,
	// which is retried with backoff.
	prepare func(ctx context.Context, c *Conn) error
	// decoder returns the venue package's decoder of the protocol's
	// messages for venueID ("" = the protocol's spot venue) and the venue
	// id it stamps.
	decoder func(venueID, source string) (Decoder, string, error)
}

var venues = map[string]venue{}

func register(protocol string, v venue) { venues[protocol] = v }

// Decoder decodes one venue's live messages: the decoder of the venue's
// package (pipeline/sources/venue/...), which the capture reader uses too.
type Decoder interface {
	// Message appends the records of one message received at ingestNs:
	// trades, a rejected record per message it cannot use ("malformed
	// json", "venue error: ...", "unknown message type: ..."), nothing for
	// a control message, which it counts as skipped.
	Message(msg []byte, ingestNs int64, out []sources.Record) []sources.Record
	// Skipped returns how many control messages were skipped so far.
	Skipped() uint64
}

// Protocols returns the protocols New and NewDecoder accept, sorted and
// comma-separated.
func Protocols() string {
	names := make([]string, 0, len(venues))
	for p := range venues {
		names = append(names, p)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// NewDecoder returns the live decoder of protocol's messages for venueID
// ("" = the protocol's spot venue) that stamps source on its trades, and
// the venue id of its trades.
func NewDecoder(protocol, venueID, source string) (Decoder, string, error) {
	v, ok := venues[protocol]
	if !ok {
		return nil, "", fmt.Errorf("cannot decode messages of protocol %q: accepted %s", protocol, Protocols())
	}
	return v.decoder(venueID, source)
}

// Conn is a live connector; it implements sources.Source.
type Conn struct {
	cfg     Config
	v       venue
	decoder Decoder
	venueID string
	obs     Observer
	log     *slog.Logger

	startOnce sync.Once
	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{}
	recs      chan sources.Record

	dedupe *dedupe
	gaps   *gapTracker
	// symbols are the normalized symbols of the markets, sorted: a
	// disconnect is a gap of each.
	symbols []string

	// Counters, readable while running.
	messages   atomic.Uint64
	rejected   atomic.Uint64
	duplicates atomic.Uint64
	dials      atomic.Uint64
}

// New returns a connector; it dials on the first call to Next.
func New(cfg Config) (*Conn, error) {
	v, ok := venues[cfg.Protocol]
	if !ok {
		return nil, fmt.Errorf("cannot connect to protocol %q: accepted %s", cfg.Protocol, Protocols())
	}
	if len(cfg.Markets) == 0 {
		return nil, fmt.Errorf("cannot connect to %s: no markets configured", cfg.Protocol)
	}
	if cfg.URL == "" {
		cfg.URL = v.url
	}
	_, venueID, err := v.decoder(cfg.Venue, "")
	if err != nil {
		return nil, err
	}
	if cfg.Name == "" {
		cfg.Name = cfg.Protocol + ":" + venueID
	}
	p, _, _ := v.decoder(cfg.Venue, cfg.Name)
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&cfg.PingInterval, 20*time.Second)
	def(&cfg.IdleTimeout, 60*time.Second)
	def(&cfg.DialTimeout, 10*time.Second)
	def(&cfg.BackoffMin, 500*time.Millisecond)
	def(&cfg.BackoffMax, 30*time.Second)
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = 16 << 20
	}
	if cfg.DedupeWindow <= 0 {
		cfg.DedupeWindow = 1 << 16
	}
	if cfg.GapGrace <= 0 {
		cfg.GapGrace = 256
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTP == nil && v.prepare != nil {
		cfg.HTTP = poll.NewClient(sources.HTTPConfig{}, poll.Options{})
	}
	c := &Conn{cfg: cfg, v: v, decoder: p, venueID: venueID, obs: cfg.Observer, log: cfg.Logger,
		done: make(chan struct{}), recs: make(chan sources.Record, 4096),
		dedupe: newDedupe(cfg.DedupeWindow), gaps: newGapTracker(cfg.GapGrace)}
	for _, m := range cfg.Markets {
		if sym, ok := symbols.Normalize(venueID, m); ok && !slices.Contains(c.symbols, sym) {
			c.symbols = append(c.symbols, sym)
		}
	}
	slices.Sort(c.symbols)
	if c.obs == nil {
		c.obs = nopObserver{}
	}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	return c, nil
}

// Name implements sources.Source.
func (c *Conn) Name() string { return c.cfg.Name }

// Venue returns the venue stamped on the trades.
func (c *Conn) Venue() string { return c.venueID }

// Next implements sources.Source. It never returns io.EOF: a live source
// ends only when ctx ends or the connector is closed.
func (c *Conn) Next(ctx context.Context) (sources.Record, error) {
	c.startOnce.Do(func() { go c.run() })
	select {
	case r := <-c.recs:
		return r, nil
	case <-ctx.Done():
		return sources.Record{}, ctx.Err()
	case <-c.done:
		select {
		case r := <-c.recs:
			return r, nil
		default:
		}
		return sources.Record{}, fmt.Errorf("cannot read %s: %w", c.cfg.Name, ErrClosed)
	}
}

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("connector closed")

// Close stops the connector.
func (c *Conn) Close() error {
	c.cancel()
	c.startOnce.Do(func() { close(c.done) })
	<-c.done
	return nil
}

// Stats are a connector's counters.
type Stats struct {
	Messages, Rejected, Duplicates, Dials, GapTrades uint64
}

// Stats returns the connector's counters so far.
func (c *Conn) Stats() Stats {
	return Stats{Messages: c.messages.Load(), Rejected: c.rejected.Load(), Duplicates: c.duplicates.Load(),
		Dials: c.dials.Load(), GapTrades: c.gaps.missed.Load()}
}

func (c *Conn) run() {
	defer close(c.done)
	bo := sources.Backoff{Min: c.cfg.BackoffMin, Max: c.cfg.BackoffMax}
	loggedUnreachable := false
	var downSince int64
	for c.ctx.Err() == nil {
		if c.dials.Add(1) > 1 {
			c.obs.Reconnect(c.cfg.Name)
		}
		if c.dials.Load() == 1 {
			c.obs.SetState(c.cfg.Name, "connecting", nil)
		}
		connected, err := c.session(&downSince)
		if c.ctx.Err() != nil {
			return
		}
		if connected {
			bo.Reset()
			loggedUnreachable = false
			c.obs.SetState(c.cfg.Name, "reconnecting", err)
			c.log.Warn("venue connection lost; reconnecting", "source", c.cfg.Name, "err", err)
		} else {
			c.obs.SetState(c.cfg.Name, "unreachable", err)
			if !loggedUnreachable {
				// Said once per outage; retries continue quietly.
				c.log.Warn("venue unreachable; retrying with backoff", "source", c.cfg.Name, "url", c.cfg.URL, "err", err)
				loggedUnreachable = true
			} else {
				c.log.Debug("venue still unreachable", "source", c.cfg.Name, "err", err)
			}
		}
		if downSince == 0 {
			downSince = c.cfg.Now().UnixNano()
		}
		select {
		case <-c.ctx.Done():
			return
		case <-time.After(bo.Next()):
		}
	}
}

// session dials, subscribes and reads until the connection fails. It
// reports whether it got as far as subscribing.
func (c *Conn) session(downSince *int64) (bool, error) {
	if c.v.prepare != nil {
		if err := c.v.prepare(c.ctx, c); err != nil {
			return false, err
		}
	}
	dctx, cancel := context.WithTimeout(c.ctx, c.cfg.DialTimeout)
	url := c.cfg.URL
	if c.v.dialURL != nil {
		url = c.v.dialURL(url, c.cfg.Markets)
	}
	ws, _, err := websocket.Dial(dctx, url, nil)
	cancel()
	if err != nil {
		return false, fmt.Errorf("cannot dial %s: %w", c.cfg.URL, err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(-1) // oversized messages are read through and discarded below
	for _, m := range c.v.subscribe(c.cfg.Markets) {
		wctx, cancel := context.WithTimeout(c.ctx, c.cfg.DialTimeout)
		err := ws.Write(wctx, websocket.MessageText, m)
		cancel()
		if err != nil {
			return false, fmt.Errorf("cannot subscribe: %w", err)
		}
	}
	now := c.cfg.Now().UnixNano()
	if *downSince != 0 {
		c.obs.Gap(c.cfg.Name, *downSince, now, "disconnected")
		for _, sym := range c.symbols {
			c.send(sources.Record{Symbol: sym, Gap: &schemas.Gap{FromNs: *downSince, ToNs: now, Reason: "disconnected"}})
		}
		*downSince = 0
	}
	c.obs.SetState(c.cfg.Name, "running", nil)
	sctx, scancel := context.WithCancel(c.ctx)
	defer scancel()
	var lastRead atomic.Int64
	lastRead.Store(time.Now().UnixNano())
	go c.pinger(sctx, ws)
	go c.idleWatch(sctx, ws, &lastRead)
	buf := make([]byte, 0, 64<<10)
	var out []sources.Record
	for {
		typ, r, err := ws.Reader(sctx)
		if err != nil {
			*downSince = c.cfg.Now().UnixNano()
			return true, fmt.Errorf("cannot read: %w", err)
		}
		buf, err = readBounded(r, buf[:0], c.cfg.MaxMessageBytes)
		lastRead.Store(time.Now().UnixNano())
		ingest := c.cfg.Now().UnixNano()
		c.messages.Add(1)
		switch {
		case errors.Is(err, errOversized):
			c.deliver(sources.Record{Raw: append([]byte(nil), buf[:min(len(buf), 4096)]...),
				Reason: "oversized message: over " + strconv.FormatInt(c.cfg.MaxMessageBytes, 10) + " bytes"})
			continue
		case err != nil:
			*downSince = c.cfg.Now().UnixNano()
			return true, fmt.Errorf("cannot read: %w", err)
		}
		if typ != websocket.MessageText {
			c.deliver(sources.Record{Raw: append([]byte(nil), buf[:min(len(buf), 4096)]...), Reason: "unknown message type: binary frame"})
			continue
		}
		out = c.decoder.Message(buf, ingest, out[:0])
		for i := range out {
			c.deliver(out[i])
			out[i] = sources.Record{}
		}
	}
}

var errOversized = errors.New("oversized message")

// readBounded reads r into buf up to limit bytes; past it, it discards the
// rest and returns errOversized with the first bytes in buf.
func readBounded(r io.Reader, buf []byte, limit int64) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			if int64(len(buf)) > limit {
				_, err := io.Copy(io.Discard, r)
				if err != nil {
					return buf, err
				}
				return buf, errOversized
			}
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			if int64(len(buf)) > limit {
				return buf, errOversized
			}
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// deliver drops duplicate trades, tracks trade-id gaps, and hands the
// record to Next, followed by a gap record for each trade-id gap it
// confirmed.
func (c *Conn) deliver(r sources.Record) {
	var confirmed []gap
	if t := r.Trade; t != nil {
		if !c.dedupe.add(t.Market, t.TradeId) {
			c.duplicates.Add(1)
			return
		}
		if c.v.seqIDs {
			if id, err := strconv.ParseInt(t.TradeId, 10, 64); err == nil {
				confirmed = c.gaps.observe(t.Market, id, t.EventTimeNs)
			}
		}
	} else {
		c.rejected.Add(1)
		c.log.Debug("message dead-lettered", "source", c.cfg.Name, "reason", r.Reason)
	}
	c.send(r)
	for _, g := range confirmed {
		c.obs.Gap(c.cfg.Name, g.fromNs, g.toNs, g.reason)
		c.send(sources.Record{Symbol: r.Trade.Symbol, Gap: &schemas.Gap{FromNs: g.fromNs, ToNs: g.toNs, Reason: g.reason}})
	}
}

// send hands a record to Next, or drops it when the connector closes.
func (c *Conn) send(r sources.Record) {
	select {
	case c.recs <- r:
	case <-c.ctx.Done():
	}
}

// idleWatch closes a connection that received nothing for IdleTimeout, so
// that the read fails and the session reconnects. (One watchdog per
// connection instead of a deadline per read: cheaper on the hot path.)
func (c *Conn) idleWatch(ctx context.Context, ws *websocket.Conn, lastRead *atomic.Int64) {
	t := time.NewTicker(max(c.cfg.IdleTimeout/4, time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if time.Since(time.Unix(0, lastRead.Load())) > c.cfg.IdleTimeout {
			c.log.Debug("venue connection idle; reconnecting", "source", c.cfg.Name)
			ws.CloseNow()
			return
		}
	}
}

func (c *Conn) pinger(ctx context.Context, ws *websocket.Conn) {
	t := time.NewTicker(c.cfg.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, c.cfg.PingInterval)
		var err error
		if c.v.ping != nil {
			err = ws.Write(pctx, websocket.MessageText, c.v.ping)
		} else {
			err = ws.Ping(pctx)
		}
		cancel()
		if err != nil && ctx.Err() == nil {
			c.log.Debug("ping failed", "source", c.cfg.Name, "err", err)
			ws.CloseNow()
			return
		}
	}
}
