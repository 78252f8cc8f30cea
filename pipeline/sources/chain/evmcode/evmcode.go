// Package evmcode reads EVM runtime bytecode without running it: the
// function selectors a contract's dispatcher compares against (read from
// its PUSH instructions, skipping push data, so a selector's bytes that
// merely occur inside another constant are not found), the Solidity/Vyper
// metadata trailer, and EIP-1167 minimal-proxy targets. It has no I/O.
package evmcode

import (
	"bytes"
	"encoding/binary"

	"github.com/ethereum/go-ethereum/common"
)

// Opcodes the scanner needs.
const (
	opPUSH1  = 0x60
	opPUSH4  = 0x63
	opPUSH32 = 0x7f
)

// TrimMetadata returns code without the CBOR metadata trailer solc (and
// Vyper ≥ 0.3.10) appends: the last two bytes give the trailer's length,
// and the trailer is a CBOR map (first byte 0xa1–0xa5). Code without a
// plausible trailer is returned whole.
func TrimMetadata(code []byte) []byte {
	if len(code) < 2 {
		return code
	}
	n := int(binary.BigEndian.Uint16(code[len(code)-2:]))
	start := len(code) - 2 - n
	if n == 0 || start < 0 {
		return code
	}
	if b := code[start]; b < 0xa1 || b > 0xa5 {
		return code
	}
	return code[:start]
}

// Selectors returns the 4-byte values pushed by PUSH1–PUSH4 instructions
// of code (metadata trimmed), each once, in order of first appearance: the
// candidates for the function selectors the dispatcher compares calldata
// against. Solidity pushes a selector with PUSH4, or with a shorter PUSH
// when its leading bytes are zero (0x00fdd58e is pushed as PUSH3 0xfdd58e),
// so shorter pushes are read as selectors too; push data is skipped, never
// read as instructions. A truncated final push is read as far as it goes.
func Selectors(code []byte) []uint32 {
	code = TrimMetadata(code)
	seen := map[uint32]bool{}
	var out []uint32
	for pc := 0; pc < len(code); pc++ {
		op := code[pc]
		if op < opPUSH1 || op > opPUSH32 {
			continue
		}
		n := int(op-opPUSH1) + 1
		if op <= opPUSH4 {
			end := min(pc+1+n, len(code))
			var v uint32
			for _, b := range code[pc+1 : end] {
				v = v<<8 | uint32(b)
			}
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
		pc += n
	}
	return out
}

// Has reports whether code pushes selector sel (see Selectors).
func Has(code []byte, sel uint32) bool {
	for _, s := range Selectors(code) {
		if s == sel {
			return true
		}
	}
	return false
}

var (
	minimalPrefix = common.FromHex("363d3d373d3d3d363d73")
	minimalSuffix = common.FromHex("5af43d82803e903d91602b57fd5bf3")
)

// MinimalProxyTarget returns the implementation an EIP-1167 minimal proxy
// delegates to, and false for any other code.
func MinimalProxyTarget(code []byte) (common.Address, bool) {
	if len(code) != len(minimalPrefix)+20+len(minimalSuffix) || !bytes.HasPrefix(code, minimalPrefix) || !bytes.HasSuffix(code, minimalSuffix) {
		return common.Address{}, false
	}
	return common.BytesToAddress(code[len(minimalPrefix) : len(minimalPrefix)+20]), true
}

// HasOpcode reports whether code (metadata trimmed) executes-or-could
// opcode op as an instruction (push data skipped): e.g. 0xff SELFDESTRUCT,
// 0xf4 DELEGATECALL.
func HasOpcode(code []byte, op byte) bool {
	code = TrimMetadata(code)
	for pc := 0; pc < len(code); pc++ {
		c := code[pc]
		if c == op {
			return true
		}
		if c >= opPUSH1 && c <= opPUSH32 {
			pc += int(c-opPUSH1) + 1
		}
	}
	return false
}
