package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
)

// ErrWrongChain is wrapped by Verify's error when the endpoint answers
// another chain id than its entry's chain_id: a misconfigured endpoint
// whose answers must not be used.
var ErrWrongChain = errors.New("endpoint serves another chain")

// ChainID returns the endpoint's eth_chainId.
func (c *Client) ChainID(ctx context.Context) (uint64, error) {
	var out hexutil.Uint64
	if err := c.read(ctx, &out, "eth_chainId"); err != nil {
		return 0, err
	}
	return uint64(out), nil
}

// Verify checks once that the endpoint serves the entry's chain_id (a
// success is remembered; an entry without chain_id is not checked). A
// mismatch is an error wrapping ErrWrongChain, recorded as the chain's
// failure in /status; it is checked again on the next call, so fixing the
// endpoint behind a proxy needs no restart.
func (c *Client) Verify(ctx context.Context) error {
	if c.chainID == 0 || c.verified.Load() {
		return nil
	}
	got, err := c.ChainID(ctx)
	if err != nil {
		return err
	}
	if got != c.chainID {
		err := fmt.Errorf("cannot use chain %s: %w: eth_chainId answers %d, the entry's chain_id is %d", c.name, ErrWrongChain, got, c.chainID)
		c.health.Failure(err)
		return err
	}
	c.verified.Store(true)
	return nil
}

// maxBlockAtReads bounds the header reads of one BlockAt.
const maxBlockAtReads = 64

// BlockAt returns the number of the first block whose timestamp is at or
// after t (the first block of a window starting at t), and the latest
// header it read. When t is after the latest block, it returns the latest
// block's number plus one (no block yet); when t is at or before the
// genesis block, 0.
//
// It estimates the block from block times, then narrows: the first guess
// is the head minus the time to t divided by the average block time of the
// last 256 blocks, each next guess interpolates between the two closest
// blocks known on either side of t (bisecting when interpolation does not
// halve the bracket), so a window of an hour on a chain of steady block
// times takes three or four header reads. Chains with uneven block times
// (Ethereum before the merge, L2s with idle periods) take more, at most 64.
func (c *Client) BlockAt(ctx context.Context, t time.Time) (uint64, Header, error) {
	head, err := c.Header(ctx, nil)
	if err != nil {
		return 0, Header{}, err
	}
	ts := t.Unix()
	if ts > int64(head.Time) {
		return head.Number + 1, head, nil
	}
	if head.Number == 0 {
		return 0, head, nil
	}
	// hi is a block at or after t; lo, when set, a block before t.
	hi := head
	var lo Header
	haveLo := false
	span := min(head.Number, 256)
	ref, err := c.Header(ctx, new(big.Int).SetUint64(head.Number-span))
	if err != nil {
		return 0, head, err
	}
	reads := 2
	if int64(ref.Time) < ts {
		lo, haveLo = ref, true
	} else {
		hi = ref
	}
	avg := float64(head.Time-ref.Time) / float64(span)
	if avg <= 0 {
		avg = 1
	}
	for {
		if haveLo && hi.Number == lo.Number+1 {
			return hi.Number, head, nil
		}
		if !haveLo && hi.Number == 0 {
			return 0, head, nil
		}
		var guess uint64
		if haveLo {
			// Interpolate between lo and hi; clamp strictly inside.
			f := float64(ts-int64(lo.Time)) / float64(hi.Time-lo.Time)
			guess = lo.Number + uint64(f*float64(hi.Number-lo.Number))
			guess = max(guess, lo.Number+1)
			guess = min(guess, hi.Number-1)
		} else {
			// Extrapolate below hi from the average block time.
			back := uint64(float64(int64(hi.Time)-ts)/avg) + 1
			if back >= hi.Number {
				guess = 0
			} else {
				guess = hi.Number - back
			}
		}
		if reads >= maxBlockAtReads/2 && haveLo {
			guess = lo.Number + (hi.Number-lo.Number)/2 // bisect from here on
		}
		if reads >= maxBlockAtReads {
			return 0, head, fmt.Errorf("cannot find the block at %s on %s within %d header reads", t.UTC().Format(time.RFC3339), c.name, maxBlockAtReads)
		}
		h, err := c.Header(ctx, new(big.Int).SetUint64(guess))
		if err != nil {
			return 0, head, err
		}
		reads++
		before := hi.Number
		if haveLo {
			before -= lo.Number
		}
		if int64(h.Time) < ts {
			lo, haveLo = h, true
		} else {
			hi = h
			if !haveLo && guess == 0 {
				return 0, head, nil
			}
			// Keep extrapolating with the observed local block time.
		}
		if haveLo {
			if after := hi.Number - lo.Number; after*2 > before && hi.Number-lo.Number > 2 {
				// Interpolation barely moved: bisect once.
				mid := lo.Number + (hi.Number-lo.Number)/2
				m, err := c.Header(ctx, new(big.Int).SetUint64(mid))
				if err != nil {
					return 0, head, err
				}
				reads++
				if int64(m.Time) < ts {
					lo = m
				} else {
					hi = m
				}
			}
		}
	}
}
