package operators

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/marketintel/mi/schemas"
)

// stateVersion is the first byte of every encoded state. Version 2 added
// baselines and signal lifecycles; version 3 added the last event type and
// the last evidence time to the lifecycles. Older data is rejected.
const stateVersion = 3

// ErrCorruptState is wrapped by every error RestoreState returns for data it
// cannot decode.
var ErrCorruptState = errors.New("corrupt operator state")

// DirtyKeys returns the sorted keys whose state changed since the last
// ClearDirty: symbols, and PartitionKey for the partition-level state.
func (e *Engine) DirtyKeys() []string {
	keys := make([]string, 0, len(e.dirty)+1)
	for _, sym := range e.dirty {
		keys = append(keys, sym.name)
	}
	if e.partDirty {
		keys = append(keys, PartitionKey)
	}
	slices.Sort(keys)
	return keys
}

// ClearDirty forgets which keys changed; call it once their state is
// written.
func (e *Engine) ClearDirty() {
	for _, sym := range e.dirty {
		sym.dirty = false
	}
	clear(e.dirty)
	e.dirty = e.dirty[:0]
	e.partDirty = false
}

// AppendState appends the deterministic binary encoding of the state of key
// to b and returns the extended slice. The first byte is the format version.
// It panics if key is neither PartitionKey nor a symbol the engine knows:
// callers only pass keys DirtyKeys returned.
func (e *Engine) AppendState(b []byte, key string) []byte {
	if key == PartitionKey {
		return e.appendPartition(b)
	}
	sym := e.symbols[key]
	if sym == nil {
		panic(fmt.Sprintf("BUG: AppendState of unknown key %q", key))
	}
	return sym.appendState(b)
}

// RestoreState replaces the state of key with the decoded data, which
// AppendState produced. It is called for every key before any Push after a
// restart. On error the state of key is left as it was.
func (e *Engine) RestoreState(key string, data []byte) error {
	d := decoder{b: data}
	if v := d.byte(); d.err == nil && v != stateVersion {
		return fmt.Errorf("cannot restore state of %q: %w: unknown version %d", key, ErrCorruptState, v)
	}
	if key == PartitionKey {
		if err := e.decodePartition(&d); err != nil {
			return fmt.Errorf("cannot restore state of %q: %w", key, err)
		}
		return nil
	}
	if key == "" || strings.HasPrefix(key, ReservedPrefix) {
		return fmt.Errorf("cannot restore state of %q: %w: not a symbol", key, ErrCorruptState)
	}
	sym, err := decodeSymbol(&d, key)
	if err != nil {
		return fmt.Errorf("cannot restore state of %q: %w", key, err)
	}
	e.addSymbol(sym)
	return nil
}

// Partition flags.
const (
	partHasClock  = 1 << 0
	partHasDocSec = 1 << 1
	partHasMax0   = 1 << 2 // partHasMax0 << k: hasMax[k]
)

func (e *Engine) appendPartition(b []byte) []byte {
	b = append(b, stateVersion)
	var flags uint64
	if e.hasClock {
		flags |= partHasClock
	}
	if e.hasDocSec {
		flags |= partHasDocSec
	}
	for k := range numKinds {
		if e.hasMax[k] {
			flags |= partHasMax0 << k
		}
	}
	b = binary.AppendUvarint(b, flags)
	if e.hasClock {
		b = binary.AppendVarint(b, e.clockNs)
		b = binary.AppendVarint(b, e.clockNs-e.coverageNs)
	}
	if e.hasDocSec {
		b = binary.AppendVarint(b, e.docSec)
	}
	for k := range numKinds {
		if e.hasMax[k] {
			b = binary.AppendVarint(b, e.clockNs-e.maxEvent[k])
		}
	}
	return b
}

func (e *Engine) decodePartition(d *decoder) error {
	flags := d.uvarint()
	var hasMax [numKinds]bool
	var maxEvent [numKinds]int64
	var clockNs, coverageNs, docSec int64
	hasClock := flags&partHasClock != 0
	hasDocSec := flags&partHasDocSec != 0
	if hasClock {
		clockNs = d.eventTime()
		coverageNs = clockNs - d.nonNegative()
		d.check(coverageNs >= schemas.MinEventTimeNs, "coverage before the minimum event time")
	}
	if hasDocSec {
		docSec = d.varint()
		d.check(docSec >= schemas.MinEventTimeNs/nsPerSecond && docSec < schemas.MaxEventTimeNs/nsPerSecond, "document second out of range")
	}
	for k := range numKinds {
		if flags&(partHasMax0<<k) == 0 {
			continue
		}
		d.check(hasClock && k != int(schemas.VenueKind_VENUE_KIND_UNSPECIFIED), "watermark without clock")
		hasMax[k], maxEvent[k] = true, clockNs-d.nonNegative()
		d.check(maxEvent[k] >= schemas.MinEventTimeNs, "watermark before the minimum event time")
	}
	d.check(flags < partHasMax0<<numKinds, "unknown flags")
	d.check(hasClock == hasDocSec, "clock and document second disagree")
	d.check(!hasClock || floorDiv(clockNs, nsPerSecond) <= docSec, "clock after the document second")
	d.end()
	if d.err != nil {
		return d.err
	}
	e.hasMax, e.maxEvent = hasMax, maxEvent
	e.hasClock, e.clockNs, e.coverageNs = hasClock, clockNs, coverageNs
	e.hasDocSec, e.docSec = hasDocSec, docSec
	// A restored engine closes its candles at the first opportunity.
	for k := range e.nextClose {
		e.nextClose[k] = math.MinInt64
	}
	return nil
}

// Symbol flags.
const (
	symHasLast = 1 << 0
	symTouched = 1 << 1
	symHasGaps = 1 << 2 // the known gaps follow the lifecycles
)

// Bucket field presence bits: a field that is zero is not written.
const (
	bfLarge = 1 << iota
	bfLate
	bfDup
	bfBuy
	bfSell
	bfUnknown
	bfLargeBuy
	bfLargeSell
	bfVenues
	bfCount  // count > 0: size, quote, maxSize, maxNotional, high, low, firstPrice, firstNs follow
	bfSingle // one trade, with its extremes derived: only price, size and firstNs follow
	bfAll    = bfSingle<<1 - 1
)

// singleTrade reports whether bk holds one trade whose extremes and sums
// can be derived exactly from its price, size and notional.
func (bk *bucket) singleTrade() bool {
	return bk.count == 1 && bk.high == bk.firstPrice && bk.low == bk.firstPrice && bk.maxSize == bk.size &&
		bk.quote == bk.firstPrice*bk.size && bk.maxNotional == bk.buy+bk.sell+bk.unknown
}

func (sym *symbol) appendState(b []byte) []byte {
	b = append(b, stateVersion)
	var flags uint64
	if sym.hasLast {
		flags |= symHasLast
	}
	if sym.touched {
		flags |= symTouched
	}
	if len(sym.gaps) > 0 {
		flags |= symHasGaps
	}
	b = binary.AppendUvarint(b, flags)
	if sym.hasLast {
		b = binary.AppendVarint(b, sym.lastNs)
		b = appendFloat(b, sym.lastPrice)
	}

	b = binary.AppendUvarint(b, uint64(len(sym.venues)))
	for _, v := range sym.venues {
		b = appendString(b, v)
	}

	b = appendHistogram(b, &sym.hist)

	for k := range numKinds {
		q := &sym.dedupe.queues[k]
		b = binary.AppendUvarint(b, uint64(q.n))
		prev := sym.lastNs
		for i := range q.n {
			key := q.at(i)
			b = binary.LittleEndian.AppendUint64(b, key.hash)
			b = binary.AppendVarint(b, key.eventNs-prev)
			prev = key.eventNs
		}
	}

	b = binary.AppendUvarint(b, uint64(len(sym.series)))
	for _, s := range sym.series {
		b = appendString(b, s.venue)
		b = appendString(b, s.chain)
		b = binary.AppendUvarint(b, uint64(s.kind))
		b = binary.AppendUvarint(b, uint64(len(s.candles)))
		for i := range s.candles {
			b = appendCandle(b, &s.candles[i])
		}
	}

	for w := range sym.win {
		b = appendRing(b, sym, w)
	}
	for w := range sym.base {
		b = appendBaseline(b, &sym.base[w])
		b = appendLifecycle(b, &sym.life[w])
	}
	if len(sym.gaps) > 0 {
		b = appendGaps(b, sym.gaps)
	}
	return b
}

// appendGaps appends the known gaps of a symbol: their number, then for each
// its start, its length, its source and its reason. A symbol without gaps
// writes nothing (its flag is clear), so states without gaps encode as
// before gaps existed.
func appendGaps(b []byte, gaps []gap) []byte {
	b = binary.AppendUvarint(b, uint64(len(gaps)))
	for _, g := range gaps {
		b = binary.AppendVarint(b, g.fromNs)
		b = binary.AppendUvarint(b, uint64(g.toNs-g.fromNs))
		b = appendString(b, g.source)
		b = appendString(b, g.reason)
	}
	return b
}

func decodeGaps(d *decoder) []gap {
	n := d.count(MaxGaps)
	d.check(n > 0, "empty gap list")
	gaps := make([]gap, 0, n)
	for range n {
		if d.err != nil {
			return nil
		}
		var g gap
		g.fromNs = d.varint()
		g.toNs = g.fromNs + int64(d.uvarintBelow(uint64(schemas.MaxEventTimeNs-schemas.MinEventTimeNs)))
		g.source, g.reason = d.string(), d.string()
		d.check(g.fromNs >= schemas.MinEventTimeNs && g.fromNs < schemas.MaxEventTimeNs && g.fromNs <= g.toNs && g.toNs < schemas.MaxEventTimeNs, "gap out of range")
		d.check(g.source != "" && g.reason != "" && len(g.source) <= maxGapText && len(g.reason) <= maxGapText, "bad gap text")
		d.check(len(gaps) == 0 || compareGaps(gaps[len(gaps)-1], g) < 0, "gaps out of order")
		gaps = append(gaps, g)
	}
	return gaps
}

// appendBaseline appends a baseline: primed flag, number of samples, then
// the samples oldest first (count, volume, range).
func appendBaseline(b []byte, bl *baseline) []byte {
	var flags uint64
	if bl.primed {
		flags = 1
	}
	b = binary.AppendUvarint(b, flags)
	b = binary.AppendUvarint(b, uint64(bl.n))
	for i := range int(bl.n) {
		v, c, r := bl.at(i)
		b = binary.AppendUvarint(b, uint64(c))
		b = appendFloat(b, v)
		b = appendFloat(b, r)
	}
	return b
}

func decodeBaseline(d *decoder, bl *baseline, hasLast bool) {
	flags := d.uvarint()
	d.check(flags <= 1, "unknown baseline flags")
	bl.primed = flags == 1
	d.check(!bl.primed || hasLast, "baseline without trades")
	n := d.count(baselineSize)
	d.check(n == 0 || bl.primed, "samples of an unprimed baseline")
	for range n {
		if d.err != nil {
			return
		}
		c := d.uint32()
		v := d.nonNegativeFloat()
		r := d.nonNegativeFloat()
		d.check(c > 0 || (v == 0 && r == 0), "volume of an empty sample")
		bl.push(v, c, r)
	}
	bl.recompute()
}

// appendLifecycle appends a lifecycle: the signal code, then, when there
// is a signal, the previous code, the second the signal began, the event
// type code and the seconds from the signal's start to the last evidence.
func appendLifecycle(b []byte, lc *lifecycle) []byte {
	b = binary.AppendUvarint(b, uint64(lc.signal))
	if lc.signal != 0 {
		b = binary.AppendUvarint(b, uint64(lc.previous))
		b = binary.AppendVarint(b, lc.changedNs/nsPerSecond)
		b = binary.AppendUvarint(b, uint64(lc.event))
		b = binary.AppendUvarint(b, uint64((lc.evidenceNs-lc.changedNs)/nsPerSecond))
	}
	return b
}

func decodeLifecycle(d *decoder, lc *lifecycle) {
	lc.signal = uint8(d.uvarintBelow(uint64(len(signalNames))))
	if lc.signal == 0 {
		return
	}
	lc.previous = uint8(d.uvarintBelow(uint64(len(signalNames))))
	d.check(lc.previous != lc.signal, "previous signal equals the signal")
	sec := d.varint()
	d.check(sec >= schemas.MinEventTimeNs/nsPerSecond-1 && sec < schemas.MaxEventTimeNs/nsPerSecond, "signal change out of range")
	lc.changedNs = sec * nsPerSecond
	lc.event = uint8(d.uvarintBelow(uint64(len(eventNames))))
	d.check(lc.event != 0, "signal without event type")
	age := d.uvarintBelow(uint64(schemas.MaxEventTimeNs / nsPerSecond))
	d.check(sec+int64(age) < schemas.MaxEventTimeNs/nsPerSecond, "evidence out of range")
	lc.evidenceNs = (sec + int64(age)) * nsPerSecond
}

// appendRing appends the encoding of the ring of window w of sym.
func appendRing(b []byte, sym *symbol, w int) []byte {
	r := &sym.win[w]
	head := floorDiv(sym.lastNs, bucketNs(w))
	b = binary.AppendUvarint(b, uint64(len(r.detail)))
	for i := range r.detail {
		b = appendBucket(b, &r.detail[i], head, bucketNs(w))
	}
	b = binary.AppendUvarint(b, uint64(len(r.prev)))
	for i := range r.prev {
		p := &r.prev[i]
		b = binary.AppendUvarint(b, uint64(head-p.idx))
		b = binary.AppendUvarint(b, uint64(p.count))
		b = appendFloat(b, p.volume)
	}
	return b
}

// appendHistogram appends the non-empty bins of h: their number, then for
// each the distance from the previous non-empty bin and the count.
func appendHistogram(b []byte, h *histogram) []byte {
	n := 0
	for _, c := range h.counts {
		if c != 0 {
			n++
		}
	}
	b = binary.AppendUvarint(b, uint64(n))
	prev := -1
	for i, c := range h.counts {
		if c != 0 {
			b = binary.AppendUvarint(b, uint64(i-prev))
			b = binary.AppendUvarint(b, uint64(c))
			prev = i
		}
	}
	return b
}

func decodeHistogram(d *decoder, h *histogram) {
	n := d.count(histBins)
	bin, prev, total := -1, -1, 0
	for range n {
		bin += int(d.uvarintBelow(histBins + 1))
		c := d.uvarintBelow(histDecayAt)
		d.check(bin > prev && bin < histBins && c > 0, "bad histogram bin")
		prev = bin
		if d.err != nil {
			return
		}
		h.counts[bin] = uint16(c)
		total += int(c)
	}
	d.check(total < histDecayAt, "histogram total out of range")
	h.total = uint16(total)
	h.rederive()
}

func appendCandle(b []byte, c *candle) []byte {
	b = binary.AppendVarint(b, c.startNs)
	b = binary.AppendUvarint(b, uint64(c.openNs-c.startNs))
	b = binary.AppendUvarint(b, uint64(c.closeNs-c.startNs))
	for _, f := range [...]float64{c.open, c.high, c.low, c.close, c.volume, c.volumeUSD,
		c.buyVolume, c.sellVolume, c.buyUSD, c.sellUSD, c.quote} {
		b = appendFloat(b, f)
	}
	for _, n := range [...]uint32{c.count, c.buyCount, c.sellCount, c.unknownCount} {
		b = binary.AppendUvarint(b, uint64(n))
	}
	return b
}

func appendBucket(b []byte, bk *bucket, head, width int64) []byte {
	b = binary.AppendUvarint(b, uint64(head-bk.idx))
	var f uint64
	for i, present := range [...]bool{bk.large != 0, bk.late != 0, bk.dup != 0, bk.buy != 0, bk.sell != 0,
		bk.unknown != 0, bk.largeBuy != 0, bk.largeSell != 0, bk.venues != 0, bk.count != 0} {
		if present {
			f |= 1 << i
		}
	}
	single := bk.singleTrade()
	if single {
		f |= bfSingle
	}
	b = binary.AppendUvarint(b, f)
	if f&bfCount != 0 && !single {
		b = binary.AppendUvarint(b, uint64(bk.count))
	}
	for i, n := range [...]uint32{bk.large, bk.late, bk.dup} {
		if f&(1<<i) != 0 {
			b = binary.AppendUvarint(b, uint64(n))
		}
	}
	for i, v := range [...]float64{bk.buy, bk.sell, bk.unknown, bk.largeBuy, bk.largeSell} {
		if f&(bfBuy<<i) != 0 {
			b = appendFloat(b, v)
		}
	}
	if f&bfVenues != 0 {
		b = binary.AppendUvarint(b, bk.venues)
	}
	switch {
	case single:
		b = appendFloat(b, bk.firstPrice)
		b = appendFloat(b, bk.size)
		b = binary.AppendUvarint(b, uint64(bk.firstNs-bk.idx*width))
	case f&bfCount != 0:
		for _, v := range [...]float64{bk.size, bk.quote, bk.maxSize, bk.maxNotional, bk.high, bk.low, bk.firstPrice} {
			b = appendFloat(b, v)
		}
		b = binary.AppendUvarint(b, uint64(bk.firstNs-bk.idx*width))
	}
	return b
}

func decodeSymbol(d *decoder, name string) (*symbol, error) {
	sym := &symbol{name: cloneString(name)}
	flags := d.uvarint()
	d.check(flags <= symHasLast|symTouched|symHasGaps, "unknown flags")
	sym.hasLast = flags&symHasLast != 0
	sym.touched = flags&symTouched != 0
	d.check(sym.hasLast || !sym.touched, "touched without trades")
	if sym.hasLast {
		sym.lastNs = d.eventTime()
		sym.lastPrice = d.price()
	}

	n := d.count(maxVenueSlots)
	for range n {
		sym.venues = append(sym.venues, d.string())
	}
	sym.sortVenues()

	decodeHistogram(d, &sym.hist)

	for k := range numKinds {
		n := d.count(d.remaining() / 9)
		d.check(n == 0 || (sym.hasLast && k != int(schemas.VenueKind_VENUE_KIND_UNSPECIFIED)), "dedupe keys without trades")
		prev := sym.lastNs
		for range n {
			if d.err != nil {
				break
			}
			h := d.uint64()
			ns := prev + d.varint()
			d.check(h != 0 && ns >= schemas.MinEventTimeNs && ns <= sym.lastNs, "bad dedupe key")
			d.check(d.err != nil || !sym.dedupe.set.has(h), "repeated dedupe key")
			if d.err == nil {
				sym.dedupe.add(k, h, ns)
			}
			prev = ns
		}
	}

	n = d.count(d.remaining() / 4)
	for range n {
		if d.err != nil {
			break
		}
		s := &series{venue: d.string(), chain: d.string(), kind: schemas.VenueKind(d.uvarint()), venueSlot: -1}
		d.check(s.kind > schemas.VenueKind_VENUE_KIND_UNSPECIFIED && s.kind <= schemas.VenueKind_VENUE_KIND_SOLANA_DEX, "bad venue kind")
		d.check(s.venue != "", "empty venue")
		for _, o := range sym.series {
			d.check(o.venue != s.venue || o.chain != s.chain || o.kind != s.kind, "repeated series")
		}
		m := d.count(d.remaining() / 100)
		d.check(m > 0, "series without candles")
		for range m {
			c := decodeCandle(d)
			d.check(len(s.candles) == 0 || s.candles[len(s.candles)-1].startNs < c.startNs, "candles out of order")
			d.check(c.startNs+candleNs <= floorDiv(sym.lastNs, candleNs)*candleNs+candleNs, "candle after the newest trade")
			s.candles = append(s.candles, c)
		}
		sym.series = append(sym.series, s)
	}

	for w := range sym.win {
		r := &sym.win[w]
		width := bucketNs(w)
		head := floorDiv(sym.lastNs, width)
		n := d.count(d.remaining() / 2)
		d.check(n == 0 || sym.hasLast, "buckets without trades")
		for range n {
			if d.err != nil {
				break
			}
			bk := decodeBucket(d, head, width)
			d.check(bk.idx >= head-(bucketsPerWindow-1), "bucket out of the window")
			d.check(len(r.detail) == 0 || r.detail[len(r.detail)-1].idx < bk.idx, "buckets out of order")
			d.check(bk.venues>>len(sym.venues) == 0, "bucket names an unknown venue")
			r.detail = append(r.detail, bk)
		}
		n = d.count(d.remaining() / 10)
		d.check(n == 0 || sym.hasLast, "buckets without trades")
		for range n {
			if d.err != nil {
				break
			}
			p := prevBucket{idx: head - int64(d.uvarint())}
			p.count = d.uint32()
			p.volume = d.nonNegativeFloat()
			d.check(p.idx >= head-(2*bucketsPerWindow-1) && p.idx < head-(bucketsPerWindow-1), "previous bucket out of range")
			d.check(len(r.prev) == 0 || r.prev[len(r.prev)-1].idx < p.idx, "previous buckets out of order")
			d.check(p.count > 0, "empty previous bucket")
			r.prev = append(r.prev, p)
		}
	}
	for w := range sym.base {
		decodeBaseline(d, &sym.base[w], sym.hasLast)
		decodeLifecycle(d, &sym.life[w])
	}
	if flags&symHasGaps != 0 {
		sym.gaps = decodeGaps(d)
	}
	d.end()
	if d.err != nil {
		return nil, d.err
	}
	return sym, nil
}

func decodeCandle(d *decoder) candle {
	var c candle
	c.startNs = d.eventTime()
	d.check(c.startNs%candleNs == 0, "candle start not aligned")
	c.openNs = c.startNs + int64(d.uvarintBelow(uint64(candleNs)))
	c.closeNs = c.startNs + int64(d.uvarintBelow(uint64(candleNs)))
	for _, f := range [...]*float64{&c.open, &c.high, &c.low, &c.close} {
		*f = d.price()
	}
	for _, f := range [...]*float64{&c.volume, &c.volumeUSD, &c.buyVolume, &c.sellVolume, &c.buyUSD, &c.sellUSD, &c.quote} {
		*f = d.nonNegativeFloat()
	}
	for _, n := range [...]*uint32{&c.count, &c.buyCount, &c.sellCount, &c.unknownCount} {
		*n = d.uint32()
	}
	d.check(c.count > 0 && uint64(c.buyCount)+uint64(c.sellCount)+uint64(c.unknownCount) == uint64(c.count), "bad candle counts")
	d.check(c.low <= c.open && c.open <= c.high && c.low <= c.close && c.close <= c.high && c.volume > 0, "bad candle prices")
	return c
}

func decodeBucket(d *decoder, head, width int64) bucket {
	var bk bucket
	bk.idx = head - int64(d.uvarintBelow(bucketsPerWindow))
	f := d.uvarint()
	d.check(f <= bfAll, "unknown bucket fields")
	single := f&bfSingle != 0
	d.check(!single || f&bfCount != 0, "single trade without count")
	switch {
	case single:
		bk.count = 1
	case f&bfCount != 0:
		bk.count = d.uint32()
		d.check(bk.count > 0, "zero count present")
	}
	for i, n := range [...]*uint32{&bk.large, &bk.late, &bk.dup} {
		if f&(1<<i) != 0 {
			*n = d.uint32()
		}
	}
	for i, v := range [...]*float64{&bk.buy, &bk.sell, &bk.unknown, &bk.largeBuy, &bk.largeSell} {
		if f&(bfBuy<<i) != 0 {
			*v = d.nonNegativeFloat()
		}
	}
	if f&bfVenues != 0 {
		bk.venues = d.uvarint()
	}
	switch {
	case single:
		p := d.price()
		bk.size = d.nonNegativeFloat()
		bk.high, bk.low, bk.firstPrice = p, p, p
		bk.maxSize, bk.quote = bk.size, p*bk.size
		bk.maxNotional = bk.buy + bk.sell + bk.unknown
	case bk.count > 0:
		for _, v := range [...]*float64{&bk.size, &bk.quote, &bk.maxSize, &bk.maxNotional} {
			*v = d.nonNegativeFloat()
		}
		for _, v := range [...]*float64{&bk.high, &bk.low, &bk.firstPrice} {
			*v = d.price()
		}
	}
	if bk.count > 0 {
		bk.firstNs = bk.idx*width + int64(d.uvarintBelow(uint64(width)))
		d.check(bk.low <= bk.firstPrice && bk.firstPrice <= bk.high && bk.size > 0, "bad bucket prices")
		d.check(bk.large <= bk.count, "more large trades than trades")
	} else {
		d.check(bk.large == 0 && bk.buy == 0 && bk.sell == 0 && bk.unknown == 0 && bk.largeBuy == 0 &&
			bk.largeSell == 0 && bk.venues == 0, "fields of an empty bucket")
	}
	return bk
}

// appendFloat appends the IEEE 754 bits of f, little endian.
func appendFloat(b []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
}

// appendString appends the length of s and s.
func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decoder reads an encoded state. The first problem sticks in err; later
// reads return zero values.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrCorruptState, what)
	}
}

// check fails with what unless ok.
func (d *decoder) check(ok bool, what string) {
	if !ok {
		d.fail(what)
	}
}

func (d *decoder) remaining() int { return len(d.b) }

func (d *decoder) end() {
	if len(d.b) != 0 {
		d.fail("trailing bytes")
	}
}

func (d *decoder) byte() byte {
	if d.err != nil || len(d.b) == 0 {
		d.fail("truncated")
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail("bad varint")
		return 0
	}
	d.b = d.b[n:]
	return v
}

// uvarintBelow reads an unsigned varint that must be below limit.
func (d *decoder) uvarintBelow(limit uint64) uint64 {
	v := d.uvarint()
	if v >= limit {
		d.fail("value out of range")
		return 0
	}
	return v
}

// count reads a length that must be at most limit.
func (d *decoder) count(limit int) int {
	return int(d.uvarintBelow(uint64(limit) + 1))
}

func (d *decoder) uint32() uint32 {
	return uint32(d.uvarintBelow(math.MaxUint32 + 1))
}

// nonNegative reads a varint that must be >= 0 and fit an event-time span.
func (d *decoder) nonNegative() int64 {
	v := d.varint()
	if v < 0 || v > schemas.MaxEventTimeNs-schemas.MinEventTimeNs {
		d.fail("negative or huge span")
		return 0
	}
	return v
}

// eventTime reads a varint that must be an acceptable event time.
func (d *decoder) eventTime() int64 {
	v := d.varint()
	if d.err == nil && (v < schemas.MinEventTimeNs || v >= schemas.MaxEventTimeNs) {
		d.fail("event time out of range")
		return schemas.MinEventTimeNs
	}
	return v
}

func (d *decoder) uint64() uint64 {
	if d.err != nil || len(d.b) < 8 {
		d.fail("truncated")
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

// nonNegativeFloat reads a float that must be finite, >= 0 and below the
// largest sum the range checks allow.
func (d *decoder) nonNegativeFloat() float64 {
	f := math.Float64frombits(d.uint64())
	if !(f >= 0 && f <= 1e40) {
		d.fail("float out of range")
		return 0
	}
	return f
}

// price reads a float that must be an acceptable price.
func (d *decoder) price() float64 {
	f := math.Float64frombits(d.uint64())
	if d.err == nil && !(f >= minPrice && f < maxPrice) {
		d.fail("price out of range")
		return minPrice
	}
	return f
}

func (d *decoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail("truncated string")
	}
	if d.err != nil {
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
