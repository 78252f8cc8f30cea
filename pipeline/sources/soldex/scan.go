package soldex

import (
	"fmt"
	"math/big"
	"sync"
)

// The scanning decoder of transaction metadata.
//
// ParseMeta and Source.Records first walk the metadata once with
// scanMeta: it validates the whole document as strict JSON (RFC 8259) while
// skipping every member but err, preTokenBalances and postTokenBalances, and
// reads the balances in the same pass without allocating. It accepts only
// the common shape: err null or absent, balances as arrays of objects whose
// accountIndex and decimals are plain small integers, whose amount is a
// string of at most 18 digits, whose mint and owner are ASCII strings
// without escapes, every member at most once, keys without escapes and
// not differing from a known one only by case. On anything else (and on any
// transaction the semantic step would reject as malformed) it declines, and
// the general decoder (encoding/json into Meta, then Swaps) decodes the
// metadata and produces the swaps or the exact error. So the scanner never
// decides what is rejected except ErrNotSwap, whose message it reproduces;
// TestScanMatchesGeneral and FuzzParseMeta check that both paths agree.

// maxScanDepth is the nesting the scanner follows before it declines.
const maxScanDepth = 64

// maxScanBalances bounds the balances the scanner reads (a Solana
// transaction has at most 256 accounts, so at most 512 balances): its account
// matching is quadratic, and a document with more goes to the general path.
const maxScanBalances = 512

// maxScanDigits bounds amounts to 18 digits: below 2^60, so a delta fits
// an int64 and sums are checked.
const maxScanDigits = 18

// scanBal is one token balance as the scanner reads it; mint and owner
// alias the input.
type scanBal struct {
	idx       int
	mint      []byte
	owner     []byte
	amount    int64
	dec       int
	post      bool
	hasMint   bool
	hasAmount bool
}

// scanAcct is one token account of the transaction, in order of first
// appearance.
type scanAcct struct {
	idx       int
	mint      []byte
	owner     []byte
	dec       int
	pre, post int64
}

// scanner holds the balances of one scan; scanners are recycled (the
// scanners pool), so the arrays serve most transactions without allocating.
type scanner struct {
	b     []byte
	bals  []scanBal
	accts []scanAcct
	bbuf  [24]scanBal
	abuf  [16]scanAcct
}

// isWS reports JSON white space.
var isWS = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

func (s *scanner) ws(i int) int {
	b := s.b
	for i+8 <= len(b) && le64(b[i:]) == ' '*lo8 { // indentation
		i += 8
	}
	for i < len(b) && isWS[b[i]] {
		i++
	}
	return i
}

// str returns the index after the string at b[i] == '"', validating
// escapes and rejecting control characters and bytes >= 0x80 (which the
// general decoder may treat differently). plain reports no escape.
func (s *scanner) str(i int) (j int, plain, ok bool) {
	b := s.b
	j = i + 1
	plain = true
	for {
		for j+8 <= len(b) {
			w := le64(b[j:])
			if m := specialBytes(w) | (w & hi8); m != 0 {
				j += firstByte(m)
				break
			}
			j += 8
		}
		if j >= len(b) {
			return 0, false, false
		}
		c := b[j]
		switch {
		case c == '"':
			return j + 1, plain, true
		case c == '\\':
			plain = false
			if j+1 >= len(b) {
				return 0, false, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) {
					return 0, false, false
				}
				for _, h := range b[j+2 : j+6] {
					if !isHex(h) {
						return 0, false, false
					}
				}
				j += 6
			default:
				return 0, false, false
			}
		case c < 0x20 || c >= 0x80:
			return 0, false, false
		default:
			j++
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// plainStr reads a string without escapes at b[i] and returns its contents.
func (s *scanner) plainStr(i int) (v []byte, j int, ok bool) {
	if i >= len(s.b) || s.b[i] != '"' {
		return nil, 0, false
	}
	j, plain, ok := s.str(i)
	if !ok || !plain {
		return nil, 0, false
	}
	return s.b[i+1 : j-1], j, true
}

// number validates the JSON number at b[i].
func (s *scanner) number(i int) (int, bool) {
	b := s.b
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return 0, false
	}
	if i < len(b) && b[i] == '.' {
		i++
		k := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == k {
			return 0, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		k := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == k {
			return 0, false
		}
	}
	return i, true
}

// smallInt reads a non-negative integer of at most max digits at b[i],
// without leading zeros (so it is a valid JSON number the general decoder
// reads the same).
func (s *scanner) smallInt(i, max int) (v, j int, ok bool) {
	b := s.b
	j = i
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		v = v*10 + int(b[j]-'0')
		j++
	}
	if j == i || j-i > max || (b[i] == '0' && j-i > 1) {
		return 0, 0, false
	}
	if j < len(b) && (b[j] == '.' || b[j] == 'e' || b[j] == 'E') {
		return 0, 0, false
	}
	return v, j, true
}

// value validates (and skips) the JSON value at b[i] (white space skipped
// before it) and returns the index after it.
func (s *scanner) value(i, depth int) (int, bool) {
	b := s.b
	i = s.ws(i)
	if i >= len(b) {
		return 0, false
	}
	switch c := b[i]; {
	case c == '"':
		j, _, ok := s.str(i)
		return j, ok
	case c == '{':
		if depth >= maxScanDepth {
			return 0, false
		}
		i = s.ws(i + 1)
		if i < len(b) && b[i] == '}' {
			return i + 1, true
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return 0, false
			}
			j, _, ok := s.str(i)
			if !ok {
				return 0, false
			}
			j = s.ws(j)
			if j >= len(b) || b[j] != ':' {
				return 0, false
			}
			if j, ok = s.value(j+1, depth+1); !ok {
				return 0, false
			}
			j = s.ws(j)
			if j >= len(b) {
				return 0, false
			}
			if b[j] == '}' {
				return j + 1, true
			}
			if b[j] != ',' {
				return 0, false
			}
			i = s.ws(j + 1)
		}
	case c == '[':
		if depth >= maxScanDepth {
			return 0, false
		}
		return s.array(i, func(j int) (int, bool) { return s.value(j, depth+1) })
	case c == '-' || c >= '0' && c <= '9':
		return s.number(i)
	case c == 't':
		return lit(b, i, "true")
	case c == 'f':
		return lit(b, i, "false")
	case c == 'n':
		return lit(b, i, "null")
	}
	return 0, false
}

func lit(b []byte, i int, l string) (int, bool) {
	if len(b)-i >= len(l) && string(b[i:i+len(l)]) == l {
		return i + len(l), true
	}
	return 0, false
}

// key reads `"key":` at b[i] (no white space before) with an escape-free,
// ASCII key and returns it and the index after the colon.
func (s *scanner) key(i int) (k []byte, j int, ok bool) {
	k, j, ok = s.plainStr(i)
	if !ok {
		return nil, 0, false
	}
	j = s.ws(j)
	if j >= len(s.b) || s.b[j] != ':' {
		return nil, 0, false
	}
	return k, j + 1, true
}

// foldMatch reports whether k equals one of names ignoring ASCII case but
// not exactly: a member the general decoder would read that the scanner
// does not.
func foldMatch(k []byte, names ...string) bool {
	for _, n := range names {
		if len(k) == len(n) && string(k) != n && asciiFold(k, n) {
			return true
		}
	}
	return false
}

func asciiFold(k []byte, n string) bool {
	for i := range k {
		a, b := k[i], n[i]
		if 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		if a != b {
			return false
		}
	}
	return true
}

// object walks the object at b[i] (white space skipped before it), calling
// member for each key with the index of its value; member returns the index
// after the value.
func (s *scanner) object(i int, member func(k []byte, j int) (int, bool)) (int, bool) {
	b := s.b
	i = s.ws(i)
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	i = s.ws(i + 1)
	if i < len(b) && b[i] == '}' {
		return i + 1, true
	}
	for {
		k, j, ok := s.key(i)
		if !ok {
			return 0, false
		}
		if j, ok = member(k, j); !ok {
			return 0, false
		}
		j = s.ws(j)
		if j >= len(b) {
			return 0, false
		}
		if b[j] == '}' {
			return j + 1, true
		}
		if b[j] != ',' {
			return 0, false
		}
		i = s.ws(j + 1)
	}
}

// scan walks the whole metadata; ok is false when the scanner declines.
func (s *scanner) scan() bool {
	var seen uint8
	j, ok := s.object(0, func(k []byte, j int) (int, bool) {
		switch string(k) {
		case "err":
			if seen&1 != 0 {
				return 0, false
			}
			seen |= 1
			j = s.ws(j)
			return lit(s.b, j, "null")
		case "preTokenBalances":
			if seen&2 != 0 {
				return 0, false
			}
			seen |= 2
			return s.balances(j, false)
		case "postTokenBalances":
			if seen&4 != 0 {
				return 0, false
			}
			seen |= 4
			return s.balances(j, true)
		}
		if foldMatch(k, "err", "preTokenBalances", "postTokenBalances") {
			return 0, false
		}
		return s.value(j, 1)
	})
	if !ok || s.ws(j) != len(s.b) {
		return false
	}
	return true
}

// balances reads an array of token balances.
func (s *scanner) balances(i int, post bool) (int, bool) {
	return s.array(i, func(j int) (int, bool) { return s.balance(j, post) })
}

// array walks the array at b[i] (white space skipped before it), calling
// elem with the index of each element; elem returns the index after it.
func (s *scanner) array(i int, elem func(j int) (int, bool)) (int, bool) {
	b := s.b
	i = s.ws(i)
	if i >= len(b) || b[i] != '[' {
		return 0, false
	}
	i = s.ws(i + 1)
	if i < len(b) && b[i] == ']' {
		return i + 1, true
	}
	for {
		j, ok := elem(i)
		if !ok {
			return 0, false
		}
		j = s.ws(j)
		if j >= len(b) {
			return 0, false
		}
		if b[j] == ']' {
			return j + 1, true
		}
		if b[j] != ',' {
			return 0, false
		}
		i = j + 1
	}
}

// balance reads one token balance object.
func (s *scanner) balance(i int, post bool) (int, bool) {
	tb := scanBal{post: post}
	var seen uint8
	j, ok := s.object(i, func(k []byte, j int) (int, bool) {
		j = s.ws(j)
		var ok bool
		switch string(k) {
		case "accountIndex":
			if seen&1 != 0 {
				return 0, false
			}
			seen |= 1
			tb.idx, j, ok = s.smallInt(j, 9)
			return j, ok
		case "mint":
			if seen&2 != 0 {
				return 0, false
			}
			seen |= 2
			tb.mint, j, ok = s.plainStr(j)
			tb.hasMint = ok && len(tb.mint) > 0
			return j, ok
		case "owner":
			if seen&4 != 0 {
				return 0, false
			}
			seen |= 4
			tb.owner, j, ok = s.plainStr(j)
			return j, ok
		case "uiTokenAmount":
			if seen&8 != 0 {
				return 0, false
			}
			seen |= 8
			var seen2 uint8
			return s.object(j, func(k []byte, j int) (int, bool) {
				j = s.ws(j)
				switch string(k) {
				case "amount":
					if seen2&1 != 0 {
						return 0, false
					}
					seen2 |= 1
					v, j, ok := s.plainStr(j)
					if !ok || len(v) == 0 || len(v) > maxScanDigits {
						return 0, false
					}
					var a int64
					for _, c := range v {
						if c < '0' || c > '9' {
							return 0, false
						}
						a = a*10 + int64(c-'0')
					}
					tb.amount, tb.hasAmount = a, true
					return j, true
				case "decimals":
					if seen2&2 != 0 {
						return 0, false
					}
					seen2 |= 2
					var ok bool
					tb.dec, j, ok = s.smallInt(j, 2)
					return j, ok && tb.dec <= 30
				}
				if foldMatch(k, "amount", "decimals") {
					return 0, false
				}
				return s.value(j, 3)
			})
		}
		if foldMatch(k, "accountIndex", "mint", "owner", "uiTokenAmount") {
			return 0, false
		}
		return s.value(j, 2)
	})
	if !ok || !tb.hasMint || !tb.hasAmount || len(s.bals) >= maxScanBalances {
		return 0, false
	}
	if len(s.bals) == 0 && cap(s.bals) == 0 {
		s.bals = s.bbuf[:0]
	}
	s.bals = append(s.bals, tb)
	return j, true
}

// swaps is Swaps on the scanned balances; ok is false when it declines (a
// malformed balance, an overflow), leaving the verdict to Swaps.
func (s *scanner) swaps(pools map[string]*Pool, order []string) ([]Swap, error, bool) {
	s.accts = s.abuf[:0]
	// The pre balances first, then the post ones, whatever their order in
	// the document: the accounts' order of first appearance is Swaps'.
	for pass := 0; pass < 2; pass++ {
		if !s.account(pass == 1) {
			return nil, nil, false
		}
	}
	// The pools in order: as given, or (order nil) the known vault owners in
	// order of first appearance, as indexes of their first account.
	n := len(order)
	var firstBuf [8]int
	first := firstBuf[:0]
	if order == nil {
		for x, a := range s.accts {
			if pools[string(a.owner)] == nil {
				continue
			}
			dup := false
			for _, e := range s.accts[:x] {
				if string(e.owner) == string(a.owner) {
					dup = true
					break
				}
			}
			if !dup {
				first = append(first, x)
			}
		}
		n = len(first)
	}
	var out []Swap
	for o := 0; o < n; o++ {
		var p *Pool
		if order != nil {
			p = pools[order[o]]
		} else {
			p = pools[string(s.accts[first[o]].owner)]
		}
		if p == nil {
			continue
		}
		var base, quote int64
		bdec, qdec := -1, -1
		for _, a := range s.accts {
			if string(a.owner) != p.Address {
				continue
			}
			d := a.post - a.pre
			switch string(a.mint) {
			case p.BaseMint:
				if base += d; !small(base) {
					return nil, nil, false
				}
				bdec = a.dec
			case p.QuoteMint:
				if quote += d; !small(quote) {
					return nil, nil, false
				}
				qdec = a.dec
			}
		}
		if bdec < 0 || qdec < 0 || (base == 0 && quote == 0) {
			continue
		}
		if sign(base) == sign(quote) || base == 0 || quote == 0 {
			return nil, fmt.Errorf("%w: pool %s vaults moved base %s and quote %s", ErrNotSwap, p.Address, big.NewInt(base), big.NewInt(quote)), true
		}
		outMint := p.BaseMint
		if quote < 0 {
			outMint = p.QuoteMint
		}
		var best int64
		var trader []byte
		for _, a := range s.accts {
			if string(a.owner) == p.Address || string(a.mint) != outMint {
				continue
			}
			if d := a.post - a.pre; d > best {
				best, trader = d, a.owner
			}
		}
		out = append(out, Swap{Pool: p, BaseDelta: big.NewInt(base), QuoteDelta: big.NewInt(quote),
			BaseDecimals: bdec, QuoteDecimals: qdec, Trader: string(trader)})
	}
	return out, nil, true
}

// account adds the pre (post false) or post balances to the accounts;
// false when an account changes mint (left to Swaps).
func (s *scanner) account(post bool) bool {
	for _, tb := range s.bals {
		if tb.post != post {
			continue
		}
		k := -1
		for x := range s.accts {
			if s.accts[x].idx == tb.idx {
				k = x
				break
			}
		}
		if k < 0 {
			s.accts = append(s.accts, scanAcct{idx: tb.idx, mint: tb.mint, owner: tb.owner, dec: tb.dec})
			k = len(s.accts) - 1
		} else if string(s.accts[k].mint) != string(tb.mint) {
			return false
		}
		if post {
			s.accts[k].post = tb.amount
		} else {
			s.accts[k].pre = tb.amount
		}
	}
	return true
}

// small reports that a sum of deltas stayed below 2^62 in magnitude: every
// delta is below 2^60, so adding the next one cannot overflow.
func small(sum int64) bool { return sum < 1<<62 && sum > -(1<<62) }

func sign(x int64) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

// scanSwaps is the scanner's ParseMeta; ok is false when it declines.
func scanSwaps(raw []byte, pools map[string]*Pool, order []string) ([]Swap, error, bool) {
	s := scanners.Get().(*scanner)
	defer func() {
		*s = scanner{} // drop the references to raw
		scanners.Put(s)
	}()
	s.b = raw
	if !s.scan() {
		return nil, nil, false
	}
	return s.swaps(pools, order)
}

// scanners recycles the scanners (3 KB of balance arrays each).
var scanners = sync.Pool{New: func() any { return new(scanner) }}

// le64 reads 8 bytes little-endian.
func le64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// specialBytes returns a word whose high bit is set in (at least) the first
// byte of w that is '"', '\\' or below 0x20, and 0 when there is none.
func specialBytes(w uint64) uint64 {
	q := w ^ ('"' * lo8)
	s := w ^ ('\\' * lo8)
	return ((q - lo8) | (s - lo8) | (w - 0x20*lo8)) &^ w & hi8
}

// firstByte returns the index of the lowest byte whose high bit is set in m.
func firstByte(m uint64) int {
	n := 0
	for m&0x80 == 0 {
		m >>= 8
		n++
	}
	return n
}
