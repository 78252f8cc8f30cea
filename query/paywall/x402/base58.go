package x402

import (
	"errors"
	"fmt"
)

// base58Alphabet is the Bitcoin alphabet Solana writes keys and signatures in.
const base58Alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// maxBase58Len bounds what decodeBase58 accepts: a 64-byte ed25519
// signature is at most 88 characters, and decoding is quadratic.
const maxBase58Len = 128

// base58Index maps a byte to its digit, -1 when it is not in the alphabet.
var base58Index = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(base58Alphabet); i++ {
		t[base58Alphabet[i]] = int8(i)
	}
	return t
}()

// errBase58 is returned for text that is not base58.
var errBase58 = errors.New("not base58")

// decodeBase58 decodes s (Bitcoin alphabet; each leading '1' is a zero
// byte). It refuses empty text, text longer than maxBase58Len and
// characters outside the alphabet.
func decodeBase58(s string) ([]byte, error) {
	if len(s) == 0 || len(s) > maxBase58Len {
		return nil, fmt.Errorf("%w: length %d", errBase58, len(s))
	}
	zeros := 0
	for zeros < len(s) && s[zeros] == '1' {
		zeros++
	}
	// Little-endian base-256 digits of the number; 733/1000 > log(58)/log(256).
	out := make([]byte, 0, len(s)*733/1000+1)
	for i := zeros; i < len(s); i++ {
		d := base58Index[s[i]]
		if d < 0 {
			return nil, fmt.Errorf("%w: character %q", errBase58, s[i])
		}
		carry := int(d)
		for j := range out {
			carry += int(out[j]) * 58
			out[j] = byte(carry)
			carry >>= 8
		}
		for carry > 0 {
			out = append(out, byte(carry))
			carry >>= 8
		}
	}
	res := make([]byte, zeros+len(out))
	for i, b := range out {
		res[len(res)-1-i] = b
	}
	return res, nil
}

// encodeBase58 is the inverse of decodeBase58.
func encodeBase58(b []byte) string {
	zeros := 0
	for zeros < len(b) && b[zeros] == 0 {
		zeros++
	}
	digits := make([]byte, 0, len(b)*138/100+1) // little-endian base-58
	for _, v := range b[zeros:] {
		carry := int(v)
		for j := range digits {
			carry += int(digits[j]) << 8
			digits[j] = byte(carry % 58)
			carry /= 58
		}
		for carry > 0 {
			digits = append(digits, byte(carry%58))
			carry /= 58
		}
	}
	out := make([]byte, zeros+len(digits))
	for i := 0; i < zeros; i++ {
		out[i] = '1'
	}
	for i, d := range digits {
		out[len(out)-1-i] = base58Alphabet[d]
	}
	return string(out)
}
