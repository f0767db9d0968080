package main

// Consumer-group steps: group_consume, group_members, committed, describe_group
// and list_groups (see compat-tests/PROTOCOL.md).

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// assignmentTracker follows one group member's assignment through kgo's
// rebalance callbacks, and counts OnPartitionsAssigned calls (kgo makes one
// per completed join, even when nothing new is assigned).
type assignmentTracker struct {
	mu         sync.Mutex
	owned      map[string]map[int32]bool
	rebalances int
	assigned   chan struct{}
}

func newTracker() *assignmentTracker {
	return &assignmentTracker{owned: map[string]map[int32]bool{}, assigned: make(chan struct{}, 1)}
}

func (t *assignmentTracker) add(_ context.Context, _ *kgo.Client, m map[string][]int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rebalances++
	for topic, ps := range m {
		if t.owned[topic] == nil {
			t.owned[topic] = map[int32]bool{}
		}
		for _, p := range ps {
			t.owned[topic][p] = true
		}
	}
	select {
	case t.assigned <- struct{}{}:
	default:
	}
}

func (t *assignmentTracker) remove(_ context.Context, _ *kgo.Client, m map[string][]int32) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for topic, ps := range m {
		for _, p := range ps {
			delete(t.owned[topic], p)
		}
	}
}

// rebalanceCount is how many times OnPartitionsAssigned has been called.
func (t *assignmentTracker) rebalanceCount() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rebalances
}

// snapshot is the assignment as sorted [topic, partition] pairs.
func (t *assignmentTracker) snapshot() [][2]any {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := [][2]any{}
	for topic, ps := range t.owned {
		for p := range ps {
			out = append(out, [2]any{topic, p})
		}
	}
	sortPairs(out)
	return out
}

func sortPairs(pairs [][2]any) {
	sort.Slice(pairs, func(i, j int) bool {
		a, b := pairs[i], pairs[j]
		if a[0].(string) != b[0].(string) {
			return a[0].(string) < b[0].(string)
		}
		return a[1].(int32) < b[1].(int32)
	})
}

func balancer(name string) (kgo.GroupBalancer, error) {
	switch name {
	case "", "range":
		return kgo.RangeBalancer(), nil
	case "roundrobin":
		return kgo.RoundRobinBalancer(), nil
	case "sticky":
		return kgo.StickyBalancer(), nil
	case "cooperative-sticky":
		return kgo.CooperativeStickyBalancer(), nil
	}
	return nil, errUnsupported
}

func resetOffset(name string) (kgo.Offset, error) {
	switch name {
	case "", "earliest":
		return kgo.NewOffset().AtStart(), nil
	case "latest":
		return kgo.NewOffset().AtEnd(), nil
	case "none":
		return kgo.NoResetOffset(), nil
	}
	return kgo.NoResetOffset(), errUnsupported
}

// groupClient is a group member subscribed to s.Topic; auto commit is off.
// extra options are applied after the common ones.
func (d *driver) groupClient(s *step, t *assignmentTracker, extra ...kgo.Opt) (*kgo.Client, error) {
	reset, err := resetOffset(s.AutoOffsetReset)
	if err != nil {
		return nil, err
	}
	bal, err := balancer(s.Assignor)
	if err != nil {
		return nil, err
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(d.bootstrap),
		kgo.ConsumerGroup(s.Group),
		kgo.ConsumeTopics(s.Topic),
		kgo.ConsumeResetOffset(reset),
		kgo.Balancers(bal),
		kgo.DisableAutoCommit(),
		kgo.FetchMaxWait(500 * time.Millisecond),
		kgo.FetchMaxBytes(clientMaxBytes),
		kgo.FetchMaxPartitionBytes(clientMaxBytes),
		kgo.OnPartitionsAssigned(t.add),
		kgo.OnPartitionsRevoked(t.remove),
		kgo.OnPartitionsLost(t.remove),
	}
	return newClient(append(opts, extra...)...)
}

func stepTimeout(s *step) time.Duration {
	if s.TimeoutMs != nil {
		return time.Duration(*s.TimeoutMs) * time.Millisecond
	}
	return 5 * time.Second
}

func toOut(r *kgo.Record) outRecord {
	hs := [][2]*string{}
	for _, h := range r.Headers {
		k := h.Key
		hs = append(hs, [2]*string{&k, encode(h.Value)})
	}
	return outRecord{
		Partition: r.Partition, Offset: r.Offset, Key: encode(r.Key), Value: encode(r.Value),
		Headers: hs, Timestamp: r.Timestamp.UnixMilli(),
	}
}

func (d *driver) groupConsume(s *step) (map[string]any, error) {
	t := newTracker()
	cl, err := d.groupClient(s, t)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	maxRecords := 1 << 30
	if s.MaxRecords != nil {
		maxRecords = *s.MaxRecords
	}
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout(s))
	defer cancel()
	var kept []*kgo.Record
	for len(kept) < maxRecords && ctx.Err() == nil {
		fetches := cl.PollRecords(ctx, maxRecords-len(kept))
		for _, fe := range fetches.Errors() {
			if errors.Is(fe.Err, context.DeadlineExceeded) || errors.Is(fe.Err, context.Canceled) {
				continue
			}
			return nil, fe.Err
		}
		fetches.EachRecord(func(r *kgo.Record) {
			if len(kept) < maxRecords {
				kept = append(kept, r)
			}
		})
	}
	assignment := t.snapshot()
	if s.Commit && len(kept) > 0 {
		cctx, ccancel := stepContext(20)
		defer ccancel()
		if err := cl.CommitRecords(cctx, kept...); err != nil {
			return nil, err
		}
	}
	records := []outRecord{}
	for _, r := range kept {
		records = append(records, toOut(r))
	}
	sort.SliceStable(records, func(i, j int) bool {
		if records[i].Partition != records[j].Partition {
			return records[i].Partition < records[j].Partition
		}
		return records[i].Offset < records[j].Offset
	})
	return map[string]any{"records": records, "assignment": assignment}, nil
}

// groupMembers runs s.Members consumers of one group concurrently until their
// assignments cover every partition of the topic exactly once with no member
// left empty (or the step's timeout passes), then reports each assignment.
func (d *driver) groupMembers(s *step) (map[string]any, error) {
	adm, err := d.adminClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), stepTimeout(s))
	defer cancel()
	details, err := adm.ListTopics(ctx, s.Topic)
	if err != nil {
		return nil, err
	}
	total := len(details[s.Topic].Partitions)
	var count int
	if err := json.Unmarshal(s.Members, &count); err != nil {
		return nil, err
	}
	trackers := make([]*assignmentTracker, count)
	clients := make([]*kgo.Client, count)
	defer func() {
		var wg sync.WaitGroup
		for _, cl := range clients {
			if cl != nil {
				wg.Add(1)
				go func(c *kgo.Client) { defer wg.Done(); c.Close() }(cl)
			}
		}
		wg.Wait()
	}()
	var wg sync.WaitGroup
	for i := range clients {
		trackers[i] = newTracker()
		cl, err := d.groupClient(s, trackers[i])
		if err != nil {
			return nil, err
		}
		clients[i] = cl
		wg.Add(1)
		go func(c *kgo.Client) {
			defer wg.Done()
			for ctx.Err() == nil {
				c.PollRecords(ctx, 100)
			}
		}(cl)
	}
	settled := func() bool {
		seen := map[int32]bool{}
		for _, t := range trackers {
			snap := t.snapshot()
			if len(snap) == 0 {
				return false
			}
			for _, pair := range snap {
				if seen[pair[1].(int32)] {
					return false
				}
				seen[pair[1].(int32)] = true
			}
		}
		return len(seen) == total
	}
	for ctx.Err() == nil && !settled() {
		time.Sleep(50 * time.Millisecond)
	}
	members := []map[string]any{}
	for _, t := range trackers {
		members = append(members, map[string]any{"assignment": t.snapshot()})
	}
	cancel()
	wg.Wait()
	sortMembers(members)
	return map[string]any{"members": members}, nil
}

func sortMembers(members []map[string]any) {
	key := func(m map[string]any) string {
		b, _ := json.Marshal(m["assignment"])
		return string(b)
	}
	sort.Slice(members, func(i, j int) bool { return key(members[i]) < key(members[j]) })
}

func (d *driver) committed(s *step) (map[string]any, error) {
	adm, err := d.adminClient()
	if err != nil {
		return nil, err
	}
	var partitions []int32
	if err := json.Unmarshal(s.Partitions, &partitions); err != nil {
		return nil, err
	}
	ctx, cancel := stepContext(30)
	defer cancel()
	resp, err := adm.FetchOffsets(ctx, s.Group)
	if err != nil {
		return nil, err
	}
	if err := resp.Error(); err != nil {
		return nil, err
	}
	offsets := []map[string]any{}
	for _, p := range partitions {
		at := int64(-1)
		if o, ok := resp.Lookup(s.Topic, p); ok {
			at = o.At
		}
		offsets = append(offsets, map[string]any{"partition": p, "offset": at})
	}
	return map[string]any{"offsets": offsets}, nil
}

func describedMembers(g kadm.DescribedGroup) []map[string]any {
	members := []map[string]any{}
	for _, m := range g.Members {
		pairs := [][2]any{}
		if c, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range c.Topics {
				for _, p := range t.Partitions {
					pairs = append(pairs, [2]any{t.Topic, p})
				}
			}
		}
		sortPairs(pairs)
		members = append(members, map[string]any{"assignment": pairs})
	}
	sortMembers(members)
	return members
}

func (d *driver) describeGroup(s *step) (map[string]any, error) {
	adm, err := d.adminClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := stepContext(30)
	defer cancel()
	described, err := adm.DescribeGroups(ctx, s.Group)
	if err != nil {
		return nil, err
	}
	g, ok := described[s.Group]
	if !ok {
		return nil, errors.New("group missing from DescribeGroups response")
	}
	if g.Err != nil {
		return nil, g.Err
	}
	return map[string]any{
		"state": g.State, "protocol_type": g.ProtocolType, "protocol": g.Protocol,
		"members": describedMembers(g),
	}, nil
}

func (d *driver) listGroups() (map[string]any, error) {
	adm, err := d.adminClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := stepContext(30)
	defer cancel()
	listed, err := adm.ListGroups(ctx)
	if err != nil {
		return nil, err
	}
	groups := []map[string]any{}
	for _, g := range listed.Sorted() {
		groups = append(groups, map[string]any{"group": g.Group, "state": g.State, "protocol_type": g.ProtocolType})
	}
	return map[string]any{"groups": groups}, nil
}
