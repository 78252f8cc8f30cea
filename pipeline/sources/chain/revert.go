package chain

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
)

// RevertKind says what a revert's data held.
type RevertKind string

// Revert kinds.
const (
	RevertNoData  RevertKind = "none"   // the call reverted without data
	RevertMessage RevertKind = "error"  // Error(string): Reason holds the message
	RevertPanic   RevertKind = "panic"  // Panic(uint256): PanicCode holds the code
	RevertCustom  RevertKind = "custom" // a custom error: Selector identifies it
)

var (
	errorSelector = []byte{0x08, 0xc3, 0x79, 0xa0} // Error(string)
	panicSelector = []byte{0x4e, 0x48, 0x7b, 0x71} // Panic(uint256)
	stringArgs    = abi.Arguments{{Type: mustType("string")}}
)

func mustType(t string) abi.Type {
	ty, err := abi.NewType(t, "", nil)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	return ty
}

// RevertError is an eth_call (alone or in a batch) that the node executed
// and that reverted: the node is fine, the call is not. Failures to reach
// the node are other errors. Match it with errors.As.
type RevertError struct {
	Kind RevertKind
	// Data is the raw revert data.
	Data []byte
	// Reason is the Error(string) message.
	Reason string
	// PanicCode is the Panic(uint256) code (0x11 overflow, 0x12 division
	// by zero, ...), nil unless Kind is RevertPanic.
	PanicCode *big.Int
	// Selector is the first 4 bytes of Data ("0x" and 8 hex digits) for a
	// custom error (and for Error/Panic data that does not decode).
	Selector string
}

var panicReasons = map[uint64]string{
	0x00: "generic compiler panic", 0x01: "assertion failed", 0x11: "arithmetic overflow or underflow",
	0x12: "division or modulo by zero", 0x21: "invalid enum value", 0x22: "invalid storage byte array",
	0x31: "pop on an empty array", 0x32: "array index out of bounds", 0x41: "out of memory",
	0x51: "call to a zero-initialized function",
}

func (e *RevertError) Error() string {
	switch e.Kind {
	case RevertMessage:
		return "execution reverted: " + e.Reason
	case RevertPanic:
		s := "execution reverted: panic 0x" + e.PanicCode.Text(16)
		if e.PanicCode.IsUint64() {
			if r, ok := panicReasons[e.PanicCode.Uint64()]; ok {
				s += " (" + r + ")"
			}
		}
		return s
	case RevertCustom:
		return "execution reverted: custom error " + e.Selector
	}
	return "execution reverted without a reason"
}

// DecodeRevert decodes revert data: Error(string), Panic(uint256), a custom
// error (shown by its selector; data shorter than 4 bytes is shown whole),
// or nothing. It never fails: data that claims to be Error or Panic but
// does not decode is reported as a custom error with that selector.
func DecodeRevert(data []byte) *RevertError {
	e := &RevertError{Kind: RevertNoData, Data: data}
	if len(data) == 0 {
		return e
	}
	e.Kind = RevertCustom
	e.Selector = "0x" + hex.EncodeToString(data[:min(4, len(data))])
	switch {
	case len(data) >= 4 && bytes.Equal(data[:4], errorSelector):
		if v, err := stringArgs.Unpack(data[4:]); err == nil && len(v) == 1 {
			if s, ok := v[0].(string); ok {
				e.Kind, e.Reason = RevertMessage, strings.ToValidUTF8(s, "?")
			}
		}
	case len(data) == 36 && bytes.Equal(data[:4], panicSelector):
		e.Kind, e.PanicCode = RevertPanic, new(big.Int).SetBytes(data[4:])
	}
	return e
}

// revertData reads the data of a node's revert error: a hex string.
func revertData(v any) ([]byte, bool) {
	s, ok := v.(string)
	if !ok {
		return nil, false
	}
	b, err := hex.DecodeString(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
	if err != nil {
		return nil, false
	}
	return b, true
}
