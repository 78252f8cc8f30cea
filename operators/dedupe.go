package operators

import (
	"math/bits"

	"github.com/marketintel/mi/schemas"
)

// dedupeMargin is how far behind a venue kind's watermark a trade's key is
// still kept: a duplicate of an older trade is rejected as late anyway.
const dedupeMargin = int64(60e9)

// FNV-1a, 64 bit. The hash must be the same in every process, so no seeded
// hash (hash/maphash) is used.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// fnv1a returns the 64-bit FNV-1a hash of b, never 0 (0 marks an empty slot
// of a hashSet; a key hashing to 0 is treated as hashing to 1).
func fnv1a(b []byte) uint64 {
	h := uint64(fnvOffset)
	for _, c := range b {
		h ^= uint64(c)
		h *= fnvPrime
	}
	if h == 0 {
		h = 1
	}
	return h
}

// tradeKeyHash returns fnv1a(schemas.DedupeKey(nil, t)) without building
// the key: venue, 0, trade id, 0, decimal log index.
func tradeKeyHash(t *schemas.Trade) uint64 {
	h := uint64(fnvOffset)
	for i := 0; i < len(t.Venue); i++ {
		h ^= uint64(t.Venue[i])
		h *= fnvPrime
	}
	h *= fnvPrime // ^= 0
	for i := 0; i < len(t.TradeId); i++ {
		h ^= uint64(t.TradeId[i])
		h *= fnvPrime
	}
	h *= fnvPrime // ^= 0
	var digits [10]byte
	i := len(digits)
	for n := t.LogIndex; ; n /= 10 {
		i--
		digits[i] = byte('0' + n%10)
		if n < 10 {
			break
		}
	}
	for _, c := range digits[i:] {
		h ^= uint64(c)
		h *= fnvPrime
	}
	if h == 0 {
		h = 1
	}
	return h
}

// hashSet is a set of non-zero 64-bit hashes: open addressing with linear
// probing and backward-shift deletion, so it never allocates once it has
// grown to its working size. The zero value is an empty set.
type hashSet struct {
	slots []uint64 // len is 0 or a power of two; 0 means empty
	n     int
}

func (s *hashSet) home(h uint64) int {
	// Fibonacci hashing spreads the high bits of the product over the table.
	shift := 64 - bits.Len(uint(len(s.slots)-1))
	return int((h * 0x9E3779B97F4A7C15) >> shift)
}

// has reports whether h is in the set.
func (s *hashSet) has(h uint64) bool {
	if len(s.slots) == 0 {
		return false
	}
	mask := len(s.slots) - 1
	for i := s.home(h); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return true
		case 0:
			return false
		}
	}
}

// add inserts h and reports whether it was absent.
func (s *hashSet) add(h uint64) bool {
	if h == 0 {
		panic("BUG: hashSet.add(0)")
	}
	if 2*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := len(s.slots) - 1
	for i := s.home(h); ; i = (i + 1) & mask {
		switch s.slots[i] {
		case h:
			return false
		case 0:
			s.slots[i] = h
			s.n++
			return true
		}
	}
}

func (s *hashSet) grow() {
	old := s.slots
	n := 2 * len(old)
	if n < 16 {
		n = 16
	}
	s.slots = make([]uint64, n)
	s.n = 0
	for _, h := range old {
		if h != 0 {
			s.add(h)
		}
	}
}

// remove deletes h if present.
func (s *hashSet) remove(h uint64) {
	if len(s.slots) == 0 {
		return
	}
	mask := len(s.slots) - 1
	i := s.home(h)
	for s.slots[i] != h {
		if s.slots[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	// Backward shift: move later members of the probe run into the hole
	// unless their home lies cyclically in (i, j].
	for j := (i + 1) & mask; s.slots[j] != 0; j = (j + 1) & mask {
		k := s.home(s.slots[j])
		if i <= j {
			if i < k && k <= j {
				continue
			}
		} else if i < k || k <= j {
			continue
		}
		s.slots[i] = s.slots[j]
		i = j
	}
	s.slots[i] = 0
	s.n--
}

// seenKey is one retained dedupe key: its hash and the event time of the
// trade that carried it.
type seenKey struct {
	hash    uint64
	eventNs int64
}

// keyQueue is a FIFO of seenKeys in arrival order, a growable ring buffer.
type keyQueue struct {
	buf  []seenKey // len is 0 or a power of two
	head int
	n    int
}

func (q *keyQueue) push(k seenKey) {
	if q.n == len(q.buf) {
		n := 2 * len(q.buf)
		if n < 16 {
			n = 16
		}
		buf := make([]seenKey, n)
		for i := 0; i < q.n; i++ {
			buf[i] = q.at(i)
		}
		q.buf, q.head = buf, 0
	}
	q.buf[(q.head+q.n)&(len(q.buf)-1)] = k
	q.n++
}

// at returns the i-th oldest key.
func (q *keyQueue) at(i int) seenKey {
	return q.buf[(q.head+i)&(len(q.buf)-1)]
}

func (q *keyQueue) pop() seenKey {
	k := q.buf[q.head]
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.n--
	return k
}

// dedupe remembers the keys of a symbol's accepted trades: one set for all
// venue kinds, and one FIFO per kind that says when a key may be forgotten.
// FIFOs are per kind so that a kind that stops trading never holds back the
// expiry of the others.
type dedupe struct {
	set    hashSet
	queues [numKinds]keyQueue
}

// expire forgets the keys of kind k whose event time is before horizonNs,
// oldest arrival first, stopping at the first key still inside the horizon.
// It reports whether anything was forgotten.
func (d *dedupe) expire(k int, horizonNs int64) bool {
	q := &d.queues[k]
	changed := false
	for q.n > 0 && q.at(0).eventNs < horizonNs {
		d.set.remove(q.pop().hash)
		changed = true
	}
	return changed
}

// add remembers a key of kind k; the caller has checked it is new.
func (d *dedupe) add(k int, hash uint64, eventNs int64) {
	if !d.set.add(hash) {
		panic("BUG: dedupe.add of a key already present")
	}
	d.queues[k].push(seenKey{hash: hash, eventNs: eventNs})
}

// len returns the number of keys remembered.
func (d *dedupe) len() int { return d.set.n }
