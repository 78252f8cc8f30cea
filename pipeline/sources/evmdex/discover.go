package evmdex

import (
	"context"
	"fmt"
	"math/big"
	"sort"
	"strings"

	ethereum "github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/ethclient"

	"github.com/marketintel/mi/operators"
	"github.com/marketintel/mi/pipeline/sources/venue/uniswap"
)

// findPools asks the factory for the pools named by pair (getPool). A
// pair the factory has no pool of is logged once and dropped; an RPC
// failure ends the session, and the pairs not found yet are asked again
// on the next.
func (s *Source) findPools(ctx context.Context, ec *ethclient.Client) error {
	for len(s.pairs) > 0 {
		p := s.pairs[0]
		a, b := common.HexToAddress(p.Token0), common.HexToAddress(p.Token1)
		data, err := uniswap.FactoryABI.Pack("getPool", a, b, new(big.Int).SetUint64(uint64(p.Fee)))
		if err != nil {
			panic("BUG: cannot pack getPool: " + err.Error())
		}
		res, err := ec.CallContract(ctx, ethereum.CallMsg{To: &s.factory, Data: data}, nil)
		if err != nil {
			return fmt.Errorf("cannot call getPool() on %s: %w", s.factory.Hex(), err)
		}
		var pool common.Address
		if err := uniswap.FactoryABI.UnpackIntoInterface(&pool, "getPool", res); err != nil {
			return fmt.Errorf("cannot decode getPool() of %s: %w", s.factory.Hex(), err)
		}
		s.pairs = s.pairs[1:]
		if pool == (common.Address{}) {
			if s.cfg.Logf != nil {
				s.cfg.Logf("%s: the factory %s has no pool of %s; not followed", s.name, s.factory.Hex(), p.label())
			}
			continue
		}
		s.addPool(pool, p.Name)
	}
	return nil
}

// addPool follows the pool at a from the next range read; it is resolved
// (tokens, fee, decimals) before its logs are processed. It reports
// whether the pool is new.
func (s *Source) addPool(a common.Address, name string) bool {
	if _, ok := s.pools[a]; ok {
		return false
	}
	s.pools[a] = &operators.PoolMeta{Chain: s.cfg.Chain, Address: strings.ToLower(a.Hex()), Name: name}
	return true
}

// created adds the pool of a PoolCreated log of the factory when both
// its tokens are Discover's, and returns it and whether it was new. A log
// that does not decode is skipped: the factory is a known contract, and a
// log it did not emit cannot carry its address.
func (s *Source) created(l *types.Log) (common.Address, bool) {
	pc, err := uniswap.DecodePoolCreated(l)
	if err != nil || !s.discoverToks[pc.Token0] || !s.discoverToks[pc.Token1] {
		return common.Address{}, false
	}
	return pc.Pool, s.addPool(pc.Pool, "")
}

// scanCreated reads the factory's PoolCreated logs from Discover's
// FromBlock (or where the last scan stopped) up to block upTo, in ranges
// of MaxRange, and follows the pools between Discover's tokens. Without
// Discover it does nothing.
func (s *Source) scanCreated(ctx context.Context, ec *ethclient.Client, upTo uint64) error {
	if s.discoverToks == nil || upTo == ^uint64(0) {
		return nil
	}
	from := max(s.cfg.Discover.FromBlock, s.scannedTo+1)
	added := false
	for from <= upTo {
		to := min(upTo, from+s.cfg.MaxRange-1)
		logs, err := ec.FilterLogs(ctx, ethereum.FilterQuery{
			FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to),
			Addresses: []common.Address{s.factory}, Topics: [][]common.Hash{{uniswap.TopicPoolCreated}},
		})
		if err != nil {
			return fmt.Errorf("cannot get the factory's PoolCreated logs of blocks %d-%d: %w", from, to, err)
		}
		for i := range logs {
			_, isNew := s.created(&logs[i])
			added = added || isNew
		}
		s.scannedTo, from = to, to+1
	}
	if added {
		return s.resolve(ctx, ec)
	}
	return nil
}

// rangeLogs returns the Swap, Mint and Burn logs of the followed pools in
// blocks from..to. With Discover, the same call reads the factory's
// PoolCreated logs of the range: a pool created there between Discover's
// tokens is resolved, and its logs of the range are read and merged, so
// a pool's first swap in the block that created it is not missed.
func (s *Source) rangeLogs(ctx context.Context, ec *ethclient.Client, from, to uint64) ([]types.Log, error) {
	topics := []common.Hash{uniswap.TopicSwap, uniswap.TopicMint, uniswap.TopicBurn}
	addrs := s.addresses()
	if len(addrs) == 0 && s.discoverToks == nil {
		return nil, nil // no pool (every pair without one): an empty filter would match every pool of the chain
	}
	if s.discoverToks != nil {
		addrs = append(addrs, s.factory)
		topics = append(topics, uniswap.TopicPoolCreated)
	}
	logs, err := ec.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to),
		Addresses: addrs, Topics: [][]common.Hash{topics},
	})
	if err != nil {
		return nil, fmt.Errorf("cannot get logs of blocks %d-%d: %w", from, to, err)
	}
	if s.discoverToks == nil {
		return logs, nil
	}
	var fresh []common.Address
	out := logs[:0]
	for i := range logs {
		l := &logs[i]
		if l.Address != s.factory {
			out = append(out, *l)
			continue
		}
		if pool, isNew := s.created(l); isNew {
			fresh = append(fresh, pool)
			// Created inside a range that is read whole: every event of
			// its life is in the logs, so no snapshot is read.
			s.snapped[pool] = true
		}
	}
	s.scannedTo = max(s.scannedTo, to)
	if len(fresh) == 0 {
		return out, nil
	}
	if err := s.resolve(ctx, ec); err != nil {
		return nil, err
	}
	more, err := ec.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(from), ToBlock: new(big.Int).SetUint64(to),
		Addresses: fresh, Topics: [][]common.Hash{topics[:3]},
	})
	if err != nil {
		return nil, fmt.Errorf("cannot get logs of blocks %d-%d of the pools created there: %w", from, to, err)
	}
	return append(out, more...), nil
}

// addresses returns the followed pools' addresses, sorted.
func (s *Source) addresses() []common.Address {
	addrs := make([]common.Address, 0, len(s.pools)+1)
	for a := range s.pools {
		addrs = append(addrs, a)
	}
	sort.Slice(addrs, func(i, j int) bool { return addrs[i].Cmp(addrs[j]) < 0 })
	return addrs
}
