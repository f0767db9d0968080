package main

// Long-lived group members: member_start, members_wait, member_pause and
// member_stop (compat-tests/PROTOCOL.md). Each member is one kgo client with
// its own poll goroutine; the step loop only reads the member's
// assignmentTracker and signals the goroutine.
//
// max_poll_interval_ms is unsupported: franz-go has no max.poll.interval.ms.
// The Java client has two halves to it: it sends the value as JoinGroup's
// rebalance timeout (kgo.RebalanceTimeout does that much), and its heartbeat
// thread leaves the group once poll has not been called for that long. kgo
// has nothing like the second half: it keeps heartbeating whatever the
// application does, so the member never leaves on its own.
//
// member_pause still models what a stalled poll loop does to kgo: members run
// with kgo.BlockRebalanceOnPoll (like a Java consumer, which takes part in a
// rebalance only from inside poll(), kgo then runs rebalance callbacks only
// once the application calls AllowRebalance after a poll), and a pause stops
// the loop between PollFetches and AllowRebalance. A paused member keeps its
// session and partitions until a rebalance starts; then it cannot rejoin
// within the rebalance timeout and the broker removes it.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// memberPoll bounds one PollFetches call of a member's loop.
const memberPoll = 200 * time.Millisecond

// memberSettle is how long members_wait's condition must hold unchanged.
const memberSettle = 500 * time.Millisecond

// memberFields are the fields of the member ops that other steps do not have.
type memberFields struct {
	Member              string   `json:"member"`
	Members             []string `json:"members"`
	Partitions          int      `json:"partitions"`
	SessionTimeoutMs    *int64   `json:"session_timeout_ms"`
	HeartbeatIntervalMs *int64   `json:"heartbeat_interval_ms"`
	MaxPollIntervalMs   *int64   `json:"max_poll_interval_ms"`
	GroupInstanceID     *string  `json:"group_instance_id"`
	Ms                  int64    `json:"ms"`
}

// member is one running group member. Invariant: after done is closed the
// poll goroutine has returned and has called AllowRebalance after its last
// poll, so Close cannot block on a held rebalance.
type member struct {
	cl      *kgo.Client
	tracker *assignmentTracker
	pause   chan time.Duration
	cancel  context.CancelFunc
	done    chan struct{}
}

// stepFailure is a failed step whose reply carries fields besides the error.
type stepFailure struct {
	name   string
	fields map[string]any
}

func (f *stepFailure) Error() string { return f.name }

func ms(v int64) time.Duration { return time.Duration(v) * time.Millisecond }

func (d *driver) memberStep(s *step) (map[string]any, error) {
	var f memberFields
	if err := json.Unmarshal(s.raw, &f); err != nil {
		return nil, err
	}
	switch s.Op {
	case "member_start":
		return d.memberStart(s, &f)
	case "members_wait":
		return d.membersWait(s, &f)
	case "member_pause":
		m, err := d.member(f.Member)
		if err != nil {
			return nil, err
		}
		select {
		case m.pause <- ms(f.Ms):
		default:
			return nil, fmt.Errorf("member %s already has a pause pending", f.Member)
		}
		return map[string]any{}, nil
	case "member_stop":
		m, err := d.member(f.Member)
		if err != nil {
			return nil, err
		}
		delete(d.members, f.Member)
		m.stop()
		return map[string]any{}, nil
	}
	return nil, errUnsupported
}

func (d *driver) member(name string) (*member, error) {
	m, ok := d.members[name]
	if !ok {
		return nil, fmt.Errorf("no member %s", name)
	}
	return m, nil
}

func (d *driver) memberStart(s *step, f *memberFields) (map[string]any, error) {
	if _, ok := d.members[f.Member]; ok {
		return nil, fmt.Errorf("member %s already running", f.Member)
	}
	if f.MaxPollIntervalMs != nil {
		return nil, errUnsupported
	}
	extra := []kgo.Opt{kgo.BlockRebalanceOnPoll()}
	if f.SessionTimeoutMs != nil {
		extra = append(extra, kgo.SessionTimeout(ms(*f.SessionTimeoutMs)))
	}
	if f.HeartbeatIntervalMs != nil {
		extra = append(extra, kgo.HeartbeatInterval(ms(*f.HeartbeatIntervalMs)))
	}
	if f.GroupInstanceID != nil {
		extra = append(extra, kgo.InstanceID(*f.GroupInstanceID))
	}
	t := newTracker()
	cl, err := d.groupClient(s, t, extra...)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &member{cl: cl, tracker: t, pause: make(chan time.Duration, 1), cancel: cancel, done: make(chan struct{})}
	d.members[f.Member] = m
	go m.run(ctx, f.Member)
	return map[string]any{}, nil
}

// run polls until ctx ends, discarding records; a pause holds the poll's
// rebalance block (see the file comment).
func (m *member) run(ctx context.Context, name string) {
	defer close(m.done)
	for ctx.Err() == nil {
		pctx, cancel := context.WithTimeout(ctx, memberPoll)
		fetches := m.cl.PollFetches(pctx)
		cancel()
		for _, fe := range fetches.Errors() {
			if !errors.Is(fe.Err, context.DeadlineExceeded) && !errors.Is(fe.Err, context.Canceled) {
				fmt.Fprintf(os.Stderr, "member %s: poll: %v\n", name, fe.Err)
			}
		}
		select {
		case pause := <-m.pause:
			timer := time.NewTimer(pause)
			select {
			case <-timer.C:
			case <-ctx.Done():
				timer.Stop()
			}
		default:
		}
		m.cl.AllowRebalance()
	}
}

// stop ends the poll loop, then closes the client the default way (a dynamic
// member leaves the group; a static one does not).
func (m *member) stop() {
	m.cancel()
	<-m.done
	m.cl.Close()
}

// stopAllMembers stops every running member at once (the close step).
func (d *driver) stopAllMembers() {
	done := make(chan struct{})
	for _, m := range d.members {
		go func(m *member) { m.stop(); done <- struct{}{} }(m)
	}
	for range d.members {
		<-done
	}
	d.members = map[string]*member{}
}

// membersWait waits until the named members each hold a non-empty assignment,
// no partition twice, and exactly f.Partitions partitions of s.Topic together,
// unchanged for memberSettle.
func (d *driver) membersWait(s *step, f *memberFields) (map[string]any, error) {
	watched := make([]*member, len(f.Members))
	for i, name := range f.Members {
		m, err := d.member(name)
		if err != nil {
			return nil, err
		}
		watched[i] = m
	}
	deadline := time.Now().Add(stepTimeout(s))
	var since time.Time
	var last string
	for {
		now := make([][][2]any, len(watched))
		for i, m := range watched {
			now[i] = m.tracker.snapshot()
		}
		key, _ := json.Marshal(now)
		t := time.Now()
		if settled(now, s.Topic, f.Partitions) {
			if since.IsZero() || string(key) != last {
				since = t
			}
			if t.Sub(since) >= memberSettle {
				return membersReport(f.Members, watched, now), nil
			}
		} else {
			since = time.Time{}
		}
		last = string(key)
		if !t.Before(deadline) {
			return nil, &stepFailure{name: "CLIENT_ERROR:TimeoutException", fields: membersReport(f.Members, watched, now)}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func settled(assignments [][][2]any, topic string, want int) bool {
	seen := map[int32]bool{}
	for _, a := range assignments {
		if len(a) == 0 {
			return false
		}
		for _, pair := range a {
			if pair[0].(string) != topic {
				continue
			}
			if seen[pair[1].(int32)] {
				return false
			}
			seen[pair[1].(int32)] = true
		}
	}
	return len(seen) == want
}

func membersReport(names []string, watched []*member, now [][][2]any) map[string]any {
	members := []map[string]any{}
	byMember := map[string]any{}
	for i, name := range names {
		members = append(members, map[string]any{"assignment": now[i]})
		byMember[name] = map[string]any{"assignment": now[i], "rebalances": watched[i].tracker.rebalanceCount()}
	}
	sortMembers(members)
	return map[string]any{"members": members, "by_member": byMember}
}
