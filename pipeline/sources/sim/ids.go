package sim

import (
	"strconv"
	"unsafe"
)

// mix64 is the SplitMix64 finalizer: a fast, well-mixing bijection on 64-bit
// words. The simulator uses it to derive seeds, fake addresses and
// transaction hashes; it is not a cryptographic hash.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// golden is the 64-bit golden-ratio increment of SplitMix64.
const golden = 0x9e3779b97f4a7c15

// hashString returns a 64-bit FNV-1a hash of s, mixed.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return mix64(h)
}

// hashBytes fills dst with a deterministic pseudo-random byte string derived
// from key: consecutive SplitMix64 outputs.
func hashBytes(dst []byte, key uint64) {
	for i := 0; i < len(dst); i += 8 {
		key += golden
		w := mix64(key)
		for j := 0; j < 8 && i+j < len(dst); j++ {
			dst[i+j] = byte(w >> (8 * j))
		}
	}
}

const hexDigits = "0123456789abcdef"

// appendHex64 appends the 16 lower-case hex digits of w to b.
func appendHex64(b []byte, w uint64) []byte {
	for shift := 60; shift >= 0; shift -= 4 {
		b = append(b, hexDigits[(w>>uint(shift))&0xf])
	}
	return b
}

// evmAddress returns a fake but stable EVM address ("0x" and 40 lower-case
// hex digits) derived from key.
func evmAddress(key uint64) string {
	var raw [20]byte
	hashBytes(raw[:], key)
	b := make([]byte, 0, 42)
	b = append(b, "0x"...)
	for _, c := range raw {
		b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return string(b)
}

const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// solanaAddress returns a fake but stable Solana address (base58 of 32 bytes)
// derived from key.
func solanaAddress(key uint64) string {
	var raw [32]byte
	hashBytes(raw[:], key)
	return base58(raw[:])
}

// base58 encodes b in the Bitcoin base58 alphabet. It is quadratic in len(b)
// and used only when the simulator is built, never per trade.
func base58(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	digits := make([]byte, 0, len(b)*138/100+1) // little-endian base-58 digits
	for _, c := range b[zeros:] {
		carry := int(c)
		for i := range digits {
			carry += int(digits[i]) << 8
			digits[i] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits = append(digits, byte(carry%58))
			carry /= 58
		}
	}
	out := make([]byte, 0, zeros+len(digits))
	for i := 0; i < zeros; i++ {
		out = append(out, '1')
	}
	for i := len(digits) - 1; i >= 0; i-- {
		out = append(out, base58Alphabet[digits[i]])
	}
	return string(out)
}

// arena hands out immutable strings carved from large byte blocks, so a trade
// id costs no allocation of its own. A block is never written again once a
// string points into it; the garbage collector frees it when no string
// refers to it any more.
type arena struct {
	buf []byte
}

// arenaBlock is the size of one arena block.
const arenaBlock = 64 << 10

// reserve returns a zero-length slice with room for n bytes at the end of the
// current block, starting a new block when the current one is full.
func (a *arena) reserve(n int) []byte {
	if cap(a.buf)-len(a.buf) < n {
		a.buf = make([]byte, 0, max(arenaBlock, n))
	}
	return a.buf[len(a.buf):len(a.buf):cap(a.buf)][:0]
}

// commit turns b, obtained from reserve and filled without growing past the
// reserved room, into a string and moves the block's end past it.
func (a *arena) commit(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if &b[:1][0] != &a.buf[len(a.buf):cap(a.buf)][0] {
		panic("BUG: arena string was not built in the reserved room")
	}
	a.buf = a.buf[:len(a.buf)+len(b)]
	return unsafe.String(&b[0], len(b))
}

// cexTradeID returns "<run>-<seq>": prefix is the run prefix (8 hex digits
// of a hash of seed and start, and "-"), seq the venue's sequence number.
func (a *arena) cexTradeID(prefix string, seq uint64) string {
	b := a.reserve(len(prefix) + 20)
	b = append(b, prefix...)
	b = strconv.AppendUint(b, seq, 10)
	return a.commit(b)
}

// hexPairs holds the two lower-case hex digits of every byte value.
var hexPairs = func() (t [512]byte) {
	for i := range 256 {
		t[2*i], t[2*i+1] = hexDigits[i>>4], hexDigits[i&0xf]
	}
	return t
}()

// txHash returns a 32-byte transaction hash derived from key as 64 lower-case
// hex digits, with a "0x" prefix when prefix is set.
func (a *arena) txHash(key uint64, prefix bool) string {
	b := a.reserve(66)
	if prefix {
		b = append(b, "0x"...)
	}
	n := len(b)
	b = b[:n+64]
	out := b[n:]
	for i := range 4 {
		w := mix64(key + uint64(i+1)*golden)
		o := out[16*i : 16*i+16]
		for j := range 8 {
			c := byte(w >> (56 - 8*j))
			o[2*j], o[2*j+1] = hexPairs[2*int(c)], hexPairs[2*int(c)+1]
		}
	}
	return a.commit(b)
}
