// Command godriver is the compat-tests driver for franz-go (kgo, kadm, kmsg).
//
// It reads one JSON step per line on stdin and writes exactly one JSON
// observation per line on stdout (compat-tests' driver protocol). The admin
// client lives for the whole session, group members (members.go) from
// member_start to member_stop or close; other producers and consumers are
// created for one step and closed before the reply. Logs go to stderr only.
package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// clientMaxBytes raises client-side size limits so that size errors come from the broker.
const clientMaxBytes = 16 << 20

// errUnsupported marks a step this client cannot perform.
var errUnsupported = errors.New("unsupported")

type header [2]*string

type inRecord struct {
	Key       *string  `json:"key"`
	Value     *string  `json:"value"`
	Headers   []header `json:"headers"`
	Partition *int32   `json:"partition"`
	Timestamp *int64   `json:"timestamp"`
}

type step struct {
	ID                json.RawMessage    `json:"id"`
	Op                string             `json:"op"`
	Topic             string             `json:"topic"`
	Partitions        json.RawMessage    `json:"partitions"` // a count (create_topic) or a list (committed)
	ReplicationFactor *int16             `json:"replication_factor"`
	Configs           map[string]*string `json:"configs"`
	Records           []inRecord         `json:"records"`
	Acks              string             `json:"acks"`
	Compression       string             `json:"compression"`
	Idempotent        bool               `json:"idempotent"`
	LingerMs          *int64             `json:"linger_ms"`
	Partition         int32              `json:"partition"`
	Offset            json.RawMessage    `json:"offset"`
	MaxRecords        *int               `json:"max_records"`
	TimeoutMs         *int64             `json:"timeout_ms"`
	Isolation         string             `json:"isolation"`
	Spec              json.RawMessage    `json:"spec"`
	Group             string             `json:"group"`
	AutoOffsetReset   string             `json:"auto_offset_reset"`
	Commit            bool               `json:"commit"`
	Members           json.RawMessage    `json:"members"` // a count (group_members) or names (members_wait)
	Assignor          string             `json:"assignor"`
	Names             []string           `json:"names"`
	Synonyms          bool               `json:"synonyms"`
	Set               map[string]string  `json:"set"`
	Delete            []string           `json:"delete"`
	BeforeOffset      int64              `json:"before_offset"`
	raw               []byte             // the step's JSON line, for ops with their own fields
}

type outRecord struct {
	Partition int32        `json:"partition"`
	Offset    int64        `json:"offset"`
	Key       *string      `json:"key"`
	Value     *string      `json:"value"`
	Headers   [][2]*string `json:"headers"`
	Timestamp int64        `json:"timestamp"`
	// TimestampType is set by consume only: "CreateTime" or "LogAppendTime".
	TimestampType string `json:"timestamp_type,omitempty"`
}

type driver struct {
	bootstrap string
	admin     *kgo.Client
	members   map[string]*member // touched by the step loop's goroutine only
	txns      map[string]*txnProducer
}

func main() {
	bootstrap := flag.String("bootstrap", "", "HOST:PORT of a broker")
	flag.Parse()
	if *bootstrap == "" {
		fmt.Fprintln(os.Stderr, "usage: godriver --bootstrap HOST:PORT")
		os.Exit(2)
	}
	d := &driver{bootstrap: *bootstrap, members: map[string]*member{}, txns: map[string]*txnProducer{}}
	out := bufio.NewWriter(os.Stdout)
	emit(out, map[string]any{"ready": true, "client": "franz-go " + franzVersion()})
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 256<<20)
	for in.Scan() {
		line := in.Bytes()
		if len(line) == 0 {
			continue
		}
		var s step
		reply := map[string]any{}
		if err := json.Unmarshal(line, &s); err != nil {
			reply["step"] = nil
			reply["ok"] = false
			reply["error"] = "CLIENT_ERROR:bad step: " + err.Error()
			emit(out, reply)
			continue
		}
		reply["step"] = s.ID
		s.raw = append([]byte(nil), line...)
		result, err := d.dispatch(&s)
		var failed *stepFailure
		switch {
		case errors.Is(err, errUnsupported):
			reply["ok"] = false
			reply["unsupported"] = true
		case errors.As(err, &failed):
			reply["ok"] = false
			reply["error"] = failed.name
			for k, v := range failed.fields {
				reply[k] = v
			}
		case err != nil:
			reply["ok"] = false
			reply["error"] = errorName(err)
		default:
			reply["ok"] = true
			for k, v := range result {
				reply[k] = v
			}
		}
		emit(out, reply)
		if s.Op == "close" {
			break
		}
	}
	if d.admin != nil {
		d.admin.Close()
	}
	os.Exit(0)
}

func emit(out *bufio.Writer, v map[string]any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"step": v["step"], "ok": false, "error": "CLIENT_ERROR:" + err.Error()})
	}
	out.Write(b)
	out.WriteByte('\n')
	out.Flush()
}

// franzVersion is the franz-go module version this binary was built with.
func franzVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/twmb/franz-go" {
				return dep.Version
			}
		}
	}
	return "unknown"
}

// errorName renders an error as Kafka's error name, or CLIENT_ERROR:<text>
// when the client produced no Kafka error code.
func errorName(err error) string {
	var ke *kerr.Error
	if errors.As(err, &ke) {
		return ke.Message
	}
	return "CLIENT_ERROR:" + err.Error()
}

func (d *driver) dispatch(s *step) (map[string]any, error) {
	switch s.Op {
	case "create_topic":
		return d.createTopic(s)
	case "create_partitions":
		return d.createPartitions(s)
	case "elect_leaders":
		return d.electLeaders(s)
	case "alter_reassignment":
		return d.alterReassignment(s)
	case "list_reassignments":
		return d.listReassignments(s)
	case "describe_cluster":
		return d.describeCluster()
	case "delete_topic":
		return d.deleteTopic(s)
	case "list_topics":
		return d.listTopics()
	case "produce":
		return d.produce(s)
	case "consume":
		return d.consume(s)
	case "list_offsets":
		return d.listOffsets(s)
	case "group_consume":
		return d.groupConsume(s)
	case "group_members":
		return d.groupMembers(s)
	case "committed":
		return d.committed(s)
	case "describe_group":
		return d.describeGroup(s)
	case "list_groups":
		return d.listGroups()
	case "describe_configs":
		return d.describeConfigs(s)
	case "alter_configs":
		return d.alterConfigs(s)
	case "delete_records":
		return d.deleteRecords(s)
	case "member_start", "members_wait", "member_pause", "member_stop":
		return d.memberStep(s)
	case "txn_produce", "txn_end", "txn_copy":
		return d.txnStep(s)
	case "close":
		d.stopAllMembers()
		d.closeTxns()
		if d.admin != nil {
			d.admin.Close()
			d.admin = nil
		}
		return map[string]any{}, nil
	}
	return nil, errUnsupported
}

func (d *driver) adminClient() (*kadm.Client, error) {
	if d.admin == nil {
		cl, err := newClient(kgo.SeedBrokers(d.bootstrap), kgo.RequestTimeoutOverhead(10*time.Second))
		if err != nil {
			return nil, err
		}
		d.admin = cl
	}
	return kadm.NewClient(d.admin), nil
}

func stepContext(seconds int) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), time.Duration(seconds)*time.Second)
}

func (d *driver) createTopic(s *step) (map[string]any, error) {
	adm, err := d.adminClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := stepContext(30)
	defer cancel()
	rf := int16(1)
	if s.ReplicationFactor != nil {
		rf = *s.ReplicationFactor
	}
	var partitions int32
	if err := json.Unmarshal(s.Partitions, &partitions); err != nil {
		return nil, err
	}
	resp, err := adm.CreateTopic(ctx, partitions, rf, s.Configs, s.Topic)
	if err != nil {
		return nil, err
	}
	if resp.Err != nil {
		return nil, resp.Err
	}
	return map[string]any{}, nil
}

// createPartitions grows a topic to the step's partition count (kadm's UpdatePartitions sets the total).
func (d *driver) createPartitions(s *step) (map[string]any, error) {
	adm, err := d.adminClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := stepContext(30)
	defer cancel()
	var partitions int
	if err := json.Unmarshal(s.Partitions, &partitions); err != nil {
		return nil, err
	}
	resp, err := adm.UpdatePartitions(ctx, partitions, s.Topic)
	if err != nil {
		return nil, err
	}
	one, err := resp.On(s.Topic, nil)
	if err != nil {
		return nil, err
	}
	if one.Err != nil {
		return nil, one.Err
	}
	return map[string]any{}, nil
}

func (d *driver) deleteTopic(s *step) (map[string]any, error) {
	adm, err := d.adminClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := stepContext(30)
	defer cancel()
	resp, err := adm.DeleteTopic(ctx, s.Topic)
	if err != nil {
		return nil, err
	}
	if resp.Err != nil {
		return nil, resp.Err
	}
	return map[string]any{}, nil
}

func (d *driver) listTopics() (map[string]any, error) {
	adm, err := d.adminClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := stepContext(30)
	defer cancel()
	details, err := adm.ListTopics(ctx)
	if err != nil {
		return nil, err
	}
	topics := map[string]int{}
	for name, td := range details {
		if td.IsInternal {
			continue
		}
		topics[name] = len(td.Partitions)
	}
	return map[string]any{"topics": topics}, nil
}

// manualKey marks, through Record.Context, a record whose partition the step chose.
type manualKey struct{}

// stepPartitioner sends records whose step named a partition to that partition
// and leaves every other record to franz-go's default partitioner.
type stepPartitioner struct{ inner kgo.Partitioner }

type stepTopicPartitioner struct{ inner kgo.TopicPartitioner }

func (p stepPartitioner) ForTopic(t string) kgo.TopicPartitioner {
	return &stepTopicPartitioner{inner: p.inner.ForTopic(t)}
}

func isManual(r *kgo.Record) bool {
	return r.Context != nil && r.Context.Value(manualKey{}) != nil
}

func (p *stepTopicPartitioner) RequiresConsistency(r *kgo.Record) bool {
	return isManual(r) || p.inner.RequiresConsistency(r)
}

func (p *stepTopicPartitioner) Partition(r *kgo.Record, n int) int {
	if isManual(r) {
		return int(r.Partition)
	}
	return p.inner.Partition(r, n)
}

func (p *stepTopicPartitioner) PartitionByBackup(r *kgo.Record, n int, it kgo.TopicBackupIter) int {
	if isManual(r) {
		return int(r.Partition)
	}
	if bp, ok := p.inner.(kgo.TopicBackupPartitioner); ok {
		return bp.PartitionByBackup(r, n, it)
	}
	return p.inner.Partition(r, n)
}

func decode(s *string) ([]byte, error) {
	if s == nil {
		return nil, nil
	}
	b, err := base64.StdEncoding.DecodeString(*s)
	if err != nil {
		return nil, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, nil
}

func encode(b []byte) *string {
	if b == nil {
		return nil
	}
	s := base64.StdEncoding.EncodeToString(b)
	return &s
}

func codec(name string) (kgo.CompressionCodec, error) {
	switch name {
	case "", "none":
		return kgo.NoCompression(), nil
	case "gzip":
		return kgo.GzipCompression(), nil
	case "snappy":
		return kgo.SnappyCompression(), nil
	case "lz4":
		return kgo.Lz4Compression(), nil
	case "zstd":
		return kgo.ZstdCompression(), nil
	}
	return kgo.NoCompression(), errUnsupported
}

func (d *driver) produce(s *step) (map[string]any, error) {
	c, err := codec(s.Compression)
	if err != nil {
		return nil, err
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(d.bootstrap),
		kgo.ProducerBatchCompression(c),
		kgo.RecordPartitioner(stepPartitioner{inner: kgo.UniformBytesPartitioner(64<<10, true, true, nil)}),
		// Like the other clients' producers: unknown topics are auto-created through Metadata, and
		// the client-side batch limit is raised so that size errors come from the broker.
		kgo.AllowAutoTopicCreation(),
		kgo.ProducerBatchMaxBytes(clientMaxBytes),
	}
	linger := int64(5)
	if s.LingerMs != nil {
		linger = *s.LingerMs
	}
	opts = append(opts, kgo.ProducerLinger(time.Duration(linger)*time.Millisecond))
	switch s.Acks {
	case "", "all", "-1":
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()))
	case "0":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()))
	default:
		return nil, errUnsupported
	}
	if !s.Idempotent {
		opts = append(opts, kgo.DisableIdempotentWrite())
	}
	cl, err := newClient(opts...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()

	// The context bounds the whole step: franz-go measures its own delivery
	// timeout from each record's timestamp, which steps may set in the past,
	// so records are bounded through their Context instead.
	ctx, cancel := stepContext(60)
	defer cancel()
	results := make([]map[string]any, len(s.Records))
	for i, in := range s.Records {
		rec := &kgo.Record{Topic: s.Topic, Context: ctx}
		if rec.Key, err = decode(in.Key); err == nil {
			rec.Value, err = decode(in.Value)
		}
		for _, h := range in.Headers {
			if err != nil {
				break
			}
			var v []byte
			if v, err = decode(h[1]); err == nil && h[0] != nil {
				rec.Headers = append(rec.Headers, kgo.RecordHeader{Key: *h[0], Value: v})
			}
		}
		if err != nil {
			results[i] = map[string]any{"error": "CLIENT_ERROR:" + err.Error()}
			continue
		}
		if in.Partition != nil {
			rec.Partition = *in.Partition
			rec.Context = context.WithValue(ctx, manualKey{}, true)
		}
		if in.Timestamp != nil {
			rec.Timestamp = time.UnixMilli(*in.Timestamp)
		}
		cl.Produce(ctx, rec, func(r *kgo.Record, err error) {
			if err != nil {
				results[i] = map[string]any{"error": errorName(err)}
				return
			}
			offset := r.Offset
			if s.Acks == "0" {
				// With acks=0 there is no response; franz-go reports a batch-relative index.
				offset = -1
			}
			results[i] = map[string]any{"partition": r.Partition, "offset": offset}
		})
	}
	if err := cl.Flush(ctx); err != nil {
		for i := range results {
			if results[i] == nil {
				results[i] = map[string]any{"error": errorName(err)}
			}
		}
	}
	return map[string]any{"results": results}, nil
}

func (d *driver) consume(s *step) (map[string]any, error) {
	start := kgo.NoResetOffset()
	var name string
	if err := json.Unmarshal(s.Offset, &name); err == nil {
		switch name {
		case "earliest":
			start = start.AtStart()
		case "latest":
			start = start.AtEnd()
		default:
			return nil, errUnsupported
		}
	} else {
		var at int64
		if err := json.Unmarshal(s.Offset, &at); err != nil {
			return nil, errUnsupported
		}
		start = start.At(at)
	}
	isolation := kgo.ReadUncommitted()
	if s.Isolation == "read_committed" {
		isolation = kgo.ReadCommitted()
	}
	reset := kgo.NoResetOffset()
	if s.AutoOffsetReset != "" {
		var err error
		if reset, err = resetOffset(s.AutoOffsetReset); err != nil {
			return nil, err
		}
	}
	cl, err := newClient(
		kgo.SeedBrokers(d.bootstrap),
		kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{s.Topic: {s.Partition: start}}),
		kgo.ConsumeResetOffset(reset),
		kgo.FetchIsolationLevel(isolation),
		kgo.FetchMaxWait(500*time.Millisecond),
		kgo.FetchMaxBytes(clientMaxBytes),
		kgo.FetchMaxPartitionBytes(clientMaxBytes),
	)
	if err != nil {
		return nil, err
	}
	defer cl.Close()

	maxRecords := 1 << 30
	if s.MaxRecords != nil {
		maxRecords = *s.MaxRecords
	}
	timeout := int64(5000)
	if s.TimeoutMs != nil {
		timeout = *s.TimeoutMs
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(timeout)*time.Millisecond)
	defer cancel()
	records := []outRecord{}
	for len(records) < maxRecords {
		fetches := cl.PollRecords(ctx, maxRecords-len(records))
		for _, fe := range fetches.Errors() {
			if errors.Is(fe.Err, context.DeadlineExceeded) || errors.Is(fe.Err, context.Canceled) {
				continue
			}
			return nil, fe.Err
		}
		fetches.EachRecord(func(r *kgo.Record) {
			if len(records) >= maxRecords {
				return
			}
			hs := [][2]*string{}
			for _, h := range r.Headers {
				k := h.Key
				hs = append(hs, [2]*string{&k, encode(h.Value)})
			}
			records = append(records, outRecord{
				Partition:     r.Partition,
				Offset:        r.Offset,
				Key:           encode(r.Key),
				Value:         encode(r.Value),
				Headers:       hs,
				Timestamp:     r.Timestamp.UnixMilli(),
				TimestampType: timestampTypes[r.Attrs.TimestampType()],
			})
		})
		if ctx.Err() != nil {
			break
		}
	}
	return map[string]any{"records": records}, nil
}

// partitionAdmin is the fields of the partition administration ops.
type partitionAdmin struct {
	Topic      string   `json:"topic"`
	Partitions []int32  `json:"partitions"`
	Partition  int32    `json:"partition"`
	Election   string   `json:"election"`
	Replicas   *[]int32 `json:"replicas"`
}

func (d *driver) partitionAdminStep(s *step) (*kadm.Client, *partitionAdmin, error) {
	adm, err := d.adminClient()
	if err != nil {
		return nil, nil, err
	}
	var fields partitionAdmin
	if err := json.Unmarshal(s.raw, &fields); err != nil {
		return nil, nil, err
	}
	return adm, &fields, nil
}

// electLeaders answers each asked partition with its error name, or null.
func (d *driver) electLeaders(s *step) (map[string]any, error) {
	adm, f, err := d.partitionAdminStep(s)
	if err != nil {
		return nil, err
	}
	ctx, cancel := stepContext(30)
	defer cancel()
	how := kadm.ElectPreferredReplica
	if f.Election == "unclean" {
		how = kadm.ElectLiveReplica
	}
	set := kadm.TopicsSet{}
	set.Add(f.Topic, f.Partitions...)
	elected, err := adm.ElectLeaders(ctx, how, set)
	if err != nil {
		return nil, err
	}
	sorted := append([]int32(nil), f.Partitions...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	results := []map[string]any{}
	for _, p := range sorted {
		var name any
		if r, ok := elected[f.Topic][p]; ok && r.Err != nil {
			name = errorName(r.Err)
		}
		results = append(results, map[string]any{"partition": p, "error": name})
	}
	return map[string]any{"results": results}, nil
}

// alterReassignment moves one partition to the step's replicas (null: cancels its reassignment).
func (d *driver) alterReassignment(s *step) (map[string]any, error) {
	adm, f, err := d.partitionAdminStep(s)
	if err != nil {
		return nil, err
	}
	ctx, cancel := stepContext(30)
	defer cancel()
	req := kadm.AlterPartitionAssignmentsReq{}
	if f.Replicas == nil {
		req.CancelAssign(f.Topic, f.Partition)
	} else {
		req.Assign(f.Topic, f.Partition, *f.Replicas)
	}
	resp, err := adm.AlterPartitionAssignments(ctx, req)
	if err != nil {
		return nil, err
	}
	if err := resp.Error(); err != nil {
		return nil, err
	}
	return map[string]any{}, nil
}

// listReassignments lists the reassignments in progress among the step's partitions.
func (d *driver) listReassignments(s *step) (map[string]any, error) {
	adm, f, err := d.partitionAdminStep(s)
	if err != nil {
		return nil, err
	}
	ctx, cancel := stepContext(30)
	defer cancel()
	set := kadm.TopicsSet{}
	set.Add(f.Topic, f.Partitions...)
	listed, err := adm.ListPartitionReassignments(ctx, set)
	if err != nil {
		return nil, err
	}
	out := [][]any{}
	for _, r := range listed.Sorted() {
		out = append(out, []any{r.Topic, r.Partition})
	}
	return map[string]any{"reassignments": out}, nil
}

// describeCluster answers the broker ids and the controller id.
func (d *driver) describeCluster() (map[string]any, error) {
	adm, err := d.adminClient()
	if err != nil {
		return nil, err
	}
	ctx, cancel := stepContext(30)
	defer cancel()
	meta, err := adm.BrokerMetadata(ctx)
	if err != nil {
		return nil, err
	}
	ids := []int32{}
	for _, b := range meta.Brokers {
		ids = append(ids, b.NodeID)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return map[string]any{"brokers": ids, "controller": meta.Controller}, nil
}
